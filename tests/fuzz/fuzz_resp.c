/* Redis replies: no crash; a reply taken lies within the input, and so does every string of it;
 * none is taken longer than the most the question can get back (the first byte picks it), and an
 * input longer than that is never left waiting for more. */
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
	size_t max = len > 0 ? (size_t)data[0] * 8 : 0;
	k = resp_parse(p, len, max, &r, err, sizeof err);
	if (k > (long)len || k < -1 || r.nelem > RESP_ELEMS || (k > 0 && (size_t)k > max) || (k == 0 && len > max))
		abort();
	if (k > 0 && r.s != NULL && (r.s < p || r.s + r.len > p + k))
		abort();
	for (size_t i = 0; k > 0 && i < r.nelem; i++)
		if (r.elem[i].s != NULL && (r.elem[i].s < p || r.elem[i].s + r.elem[i].len > p + k))
			abort();
	free(p);
	return 0;
}
