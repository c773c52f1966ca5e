/* The config parser and validator on arbitrary JSON text: it must never crash or leak. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text = malloc(len + 1);
	struct cfg c;
	struct strv errs = { 0 };
	memcpy(text, data, len);
	text[len] = '\0';
	cfg_load_string(text, NULL, &c, &errs);
	strv_free(&errs);
	cfg_free(&c);
	free(text);
	return 0;
}
