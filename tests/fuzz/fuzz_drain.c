/* The master's answers to a drain (/get_all_segments, the drain job's JSON): no crash; a name
 * taken is on the host asked for ("host", "host:port", "[host]:port"); a job taken has an id. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "drain.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct strv v = { 0 };
	struct drain_job j;
	char err[256];
	drain_segments((const char *)data, len, "127.0.0.2", &v);
	for (size_t i = 0; i < v.n; i++)
		if (strncmp(v.v[i], "127.0.0.2", 9) != 0 && strncmp(v.v[i], "[127.0.0.2]", 11) != 0)
			abort();
	strv_free(&v);
	if (drain_job_parse((const char *)data, len, &j, err, sizeof err) == 0 && j.id[0] == '\0')
		abort();
	return 0;
}
