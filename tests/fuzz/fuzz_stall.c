/* The master's /metrics as the stall watchdog reads it: no crash, no read outside the input. */
#include "config.h"
#include <stdint.h>
#include "stall.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	double v;
	(void)stall_metric((const char *)data, len, "master_ping_requests_total", &v);
	(void)stall_metric((const char *)data, len, "master_active_clients", &v);
	return 0;
}
