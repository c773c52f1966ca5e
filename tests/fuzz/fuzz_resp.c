/* Redis replies: no crash; a reply taken lies within the input, and so does every string of it. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *p = malloc(len ? len : 1), err[200];
	struct resp_reply r;
	long k;
	memcpy(p, data, len);
	k = resp_parse(p, len, &r, err, sizeof err);
	if (k > (long)len || k < -1 || r.nelem > RESP_ELEMS)
		abort();
	if (k > 0 && r.s != NULL && (r.s < p || r.s + r.len > p + k))
		abort();
	for (size_t i = 0; k > 0 && i < r.nelem; i++)
		if (r.elem[i].s != NULL && (r.elem[i].s < p || r.elem[i].s + r.elem[i].len > p + k))
			abort();
	free(p);
	return 0;
}
