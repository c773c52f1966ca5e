/* SLURM hostlist expansion: no crash, and every name it returns is non-empty and bracket-free. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text = malloc(len + 1), err[256];
	struct strv out = { 0 };
	if (len > 256) {	/* longer inputs only repeat shorter ones' paths */
		free(text);
		return 0;
	}
	memcpy(text, data, len);
	text[len] = '\0';
	if (hostlist_expand(text, &out, err, sizeof err) == 0)
		for (size_t i = 0; i < out.n; i++)
			if (out.v[i][0] == '\0' || strpbrk(out.v[i], "[],") != NULL)
				abort();
	strv_free(&out);
	free(text);
	return 0;
}
