/* Size strings, both readers' rules: no crash; what SGLang's rule takes, vLLM's takes too, as the
 * same byte count (an integer, or an integer of GiB). */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sizes.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text = malloc(len + 1), err[512];
	uint64_t a, b;
	memcpy(text, data, len);
	text[len] = '\0';
	if (size_parse_sglang(text, &a, err, sizeof err) == 0 && a < (1ULL << 53) &&
	    (size_parse_vllm(text, &b, err, sizeof err) != 0 || a != b))
		abort();
	size_parse_vllm(text, &b, err, sizeof err);
	free(text);
	return 0;
}
