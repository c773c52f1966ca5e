/* The Prometheus writer: any label value and help text render on one line each. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text = malloc(len + 1);
	struct buf b = { 0 };
	const char *labels[] = { "route", text, NULL };
	size_t lines = 0;
	memcpy(text, data, len);
	text[len] = '\0';
	prom_family(&b, "m_total", text, "counter");
	prom_sample(&b, "m_total", labels, (double)len);
	for (size_t i = 0; i < b.len; i++)
		lines += b.p[i] == '\n';
	if (lines != 3 || b.p[b.len - 1] != '\n')
		abort();
	buf_free(&b);
	free(text);
	return 0;
}
