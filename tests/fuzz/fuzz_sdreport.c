/* A node's report of its scrape targets, as the head reads it from a poll: no crash; what is taken
 * renders back to what was read. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sdreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct sd_target t[SD_MAX_TARGETS];
	char *s = malloc(len + 1), err[256];
	size_t n;
	memcpy(s, data, len);
	s[len] = '\0';
	if (sdreport_parse(s, t, SD_MAX_TARGETS, &n, err, sizeof err) == 0 && strlen(s) == len) {
		struct buf b = { 0 };
		struct sd_target u[SD_MAX_TARGETS];
		size_t m;
		sdreport_render(t, n, &b);
		if (sdreport_parse(b.p ? b.p : "", u, SD_MAX_TARGETS, &m, err, sizeof err) != 0 || m != n)
			abort();
		buf_free(&b);
	}
	free(s);
	return 0;
}
