#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "prom.h"
#include "xalloc.h"

static const double buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4 };
#define NBUCKETS	(sizeof buckets / sizeof buckets[0])
static const char *const op_names[OP_COUNT] = {
	"probe_rpc", "probe_metadata", "probe_admin", "proxy", "spawn", "write_endpoints", "health_check", "probe_lock"
};
static const char *const st_names[ST_COUNT] = { "ok", "error", "timeout" };

static struct prom_hist hist[OP_COUNT][ST_COUNT];

struct http_count {
	char		*route;
	int		 code;
	unsigned long	 n;
};
static struct http_count *http;
static size_t nhttp;

void
counters_free(void)
{
	for (size_t i = 0; i < nhttp; i++)
		free(http[i].route);
	free(http);
	http = NULL;
	nhttp = 0;
}

void
counters_observe(int op, int st, double secs)
{
	if (op < 0 || op >= OP_COUNT || st < 0 || st >= ST_COUNT)
		return;
	prom_hist_observe(&hist[op][st], buckets, NBUCKETS, secs);
}

void
counters_http(const char *route, int code)
{
	for (size_t i = 0; i < nhttp; i++)
		if (http[i].code == code && strcmp(http[i].route, route) == 0) {
			http[i].n++;
			return;
		}
	http = xrealloc(http, (nhttp + 1) * sizeof *http);
	http[nhttp++] = (struct http_count){ xstrdup(route), code, 1 };
}

void
counters_render_ops(struct buf *b)
{
	prom_family(b, "mooncake_sidecar_operation_duration_seconds",
	    "Duration of the sidecar's operations (probes, proxied requests, spawns, endpoint writes).",
	    "histogram");
	for (int o = 0; o < OP_COUNT; o++)
		for (int s = 0; s < ST_COUNT; s++) {
			const char *l[] = { "operation", op_names[o], "status", st_names[s], NULL };
			prom_histogram(b, "mooncake_sidecar_operation_duration_seconds", l, buckets, NBUCKETS,
			    &hist[o][s]);
		}
	prom_family(b, "mooncake_sidecar_operations_total", "Operations by kind and outcome.", "counter");
	for (int o = 0; o < OP_COUNT; o++)
		for (int s = 0; s < ST_COUNT; s++) {
			const char *l[] = { "operation", op_names[o], "status", st_names[s], NULL };
			prom_sample(b, "mooncake_sidecar_operations_total", l, (double)hist[o][s].count);
		}
}

void
counters_render_http(struct buf *b)
{
	char code[16];
	prom_family(b, "mooncake_sidecar_http_requests_total", "Admin HTTP requests by route and status.",
	    "counter");
	for (size_t i = 0; i < nhttp; i++) {
		const char *l[] = { "route", http[i].route, "code", code, NULL };
		snprintf(code, sizeof code, "%d", http[i].code);
		prom_sample(b, "mooncake_sidecar_http_requests_total", l, (double)http[i].n);
	}
}
