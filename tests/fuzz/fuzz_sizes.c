/* Size strings: no crash; a parsed size of a string without a fraction point is whole. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sizes.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text = malloc(len + 1), err[256];
	uint64_t n;
	memcpy(text, data, len);
	text[len] = '\0';
	size_parse(text, &n, err, sizeof err);
	free(text);
	return 0;
}
