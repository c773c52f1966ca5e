/* A program's --helpxml and --version as the sidecar reads them, and its cache of them: no crash; a flag taken has a
 * name and one of gflags' types. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gflags.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct gflags g;
	char err[256];
	gflags_version((const char *)data, len, &g);
	if (strlen(g.version) >= sizeof g.version)
		abort();
	if (gflags_parse((const char *)data, len, &g, err, sizeof err) == 0) {
		for (size_t i = 0; i < g.n; i++)
			if (g.v[i].name[0] == '\0' || !gflags_value_ok(g.v[i].type, "1"))
				abort();
		gflags_free(&g);
	}
	/* the cache file: the same rules, under the key its first lines give */
	if (gflags_cache_parse((const char *)data, len, "k", &g) == 0) {
		for (size_t i = 0; i < g.n; i++)
			if (g.v[i].name[0] == '\0' || !gflags_value_ok(g.v[i].type, "1"))
				abort();
		gflags_free(&g);
	}
	return 0;
}
