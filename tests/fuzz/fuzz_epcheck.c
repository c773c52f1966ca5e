/* A head's /endpoints as a follower receives it: no crash, and what passes has its fields in range. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "epcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct ep_view v;
	char err[256];
	if (epcheck((const char *)data, len, &v, err, sizeof err) == 0 && (v.generation < 1 ||
	    v.generation > 2147483647 || v.rpc_port < 1 || v.rpc_port > 65535 || v.rpc_host[0] == '\0'))
		abort();
	return 0;
}
