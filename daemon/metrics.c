#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "atomicfile.h"
#include "clock.h"
#include "metrics.h"
#include "prom.h"
#include "sidecar.h"
#include "view.h"
#include "workers.h"
#include "xalloc.h"

static const double buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4 };
#define NBUCKETS	(sizeof buckets / sizeof buckets[0])
static const char *const op_names[OP_COUNT] = {
	"probe_rpc", "probe_metadata", "probe_admin", "proxy", "spawn", "write_endpoints", "health_check"
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
static double started_wall;

void
metrics_init(void)
{
	started_wall = wall_now();
}

void
metrics_free(void)
{
	for (size_t i = 0; i < nhttp; i++)
		free(http[i].route);
	free(http);
	http = NULL;
	nhttp = 0;
}

void
metrics_observe(int op, int st, double secs)
{
	if (op < 0 || op >= OP_COUNT || st < 0 || st >= ST_COUNT)
		return;
	prom_hist_observe(&hist[op][st], buckets, NBUCKETS, secs);
}

void
metrics_http(const char *route, int code)
{
	for (size_t i = 0; i < nhttp; i++)
		if (http[i].code == code && strcmp(http[i].route, route) == 0) {
			http[i].n++;
			return;
		}
	http = xrealloc(http, (nhttp + 1) * sizeof *http);
	http[nhttp++] = (struct http_count){ xstrdup(route), code, 1 };
}

static void
render_ops(struct buf *b)
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

static void
render_children(struct buf *b, const struct view *v)
{
	const struct view_child *c = v->children;
	size_t n = v->nchildren;
	prom_family(b, "mooncake_sidecar_child_up", "1 when the supervised process is running.", "gauge");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "child", c[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_child_up", l, c[i].pid > 0);
	}
	prom_family(b, "mooncake_sidecar_child_restarts_total", "Restarts of the supervised process.",
	    "counter");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "child", c[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_child_restarts_total", l, c[i].restarts);
	}
	prom_family(b, "mooncake_sidecar_child_state", "1 for the current state of the supervised process.",
	    "gauge");
	for (size_t i = 0; i < n; i++)
		for (int s = 0; s < view_nstates; s++) {
			const char *l[] = { "child", c[i].name, "state", view_state_names[s], NULL };
			prom_sample(b, "mooncake_sidecar_child_state", l, c[i].state == s);
		}
	prom_family(b, "mooncake_sidecar_child_ready_seconds",
	    "Seconds from the last start of the process to ready (0 before it first was).", "gauge");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "child", c[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_child_ready_seconds", l, c[i].ready_seconds);
	}
	prom_family(b, "mooncake_sidecar_master_ready", "1 when the master is proven ready.", "gauge");
	prom_sample(b, "mooncake_sidecar_master_ready", NULL, v->master_ready);
	prom_family(b, "mooncake_sidecar_endpoints_generation",
	    "The generation of endpoints.json (one more each time the master becomes ready).", "gauge");
	prom_sample(b, "mooncake_sidecar_endpoints_generation", NULL, v->files_gen);
	prom_family(b, "mooncake_sidecar_endpoints_ready",
	    "1 when the endpoint files on disk say ready (written, and the master ready).", "gauge");
	prom_sample(b, "mooncake_sidecar_endpoints_ready", NULL, v->files_ready && v->files_error == NULL);
	prom_family(b, "mooncake_sidecar_upstream_up",
	    "1 when the master's admin port answered the last probe.", "gauge");
	prom_sample(b, "mooncake_sidecar_upstream_up", NULL, v->master_pid > 0 && v->probes[VIEW_ADMIN].ok);
}

static void
render_http(struct buf *b)
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

static void
render_process(struct buf *b)
{
	struct rusage ru;
	long pages = 0, fds = 0;
	char *statm = file_read("/proc/self/statm", NULL);
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	if (statm != NULL)
		sscanf(statm, "%*d %ld", &pages);
	free(statm);
	while (d != NULL && (de = readdir(d)) != NULL)
		fds += de->d_name[0] != '.';
	if (d != NULL) {
		closedir(d);
		fds--;	/* the directory's own fd */
	}
	getrusage(RUSAGE_SELF, &ru);
	prom_family(b, "process_resident_memory_bytes", "Resident memory size in bytes.", "gauge");
	prom_sample(b, "process_resident_memory_bytes", NULL, (double)pages * (double)sysconf(_SC_PAGESIZE));
	prom_family(b, "process_open_fds", "Number of open file descriptors.", "gauge");
	prom_sample(b, "process_open_fds", NULL, (double)fds);
	prom_family(b, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
	    "counter");
	prom_sample(b, "process_cpu_seconds_total", NULL,
	    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	prom_family(b, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
	    "gauge");
	prom_sample(b, "process_start_time_seconds", NULL, started_wall);
}

void
metrics_render(struct buf *b, const struct sidecar *sc)
{
	struct view v;
	view_build(sc, &v);
	render_ops(b);
	render_children(b, &v);
	workers_metrics(sc->workers, b);
	prom_family(b, "mooncake_sidecar_admin_long_polls", "Long-polls of /endpoints and /gangs held now "
	    "(at most admin.max_waiters).", "gauge");
	prom_sample(b, "mooncake_sidecar_admin_long_polls", NULL, (double)v.long_polls);
	prom_family(b, "mooncake_sidecar_proxy_coalesced_total",
	    "Proxied requests answered by an identical request to the master already in flight.", "counter");
	prom_sample(b, "mooncake_sidecar_proxy_coalesced_total", NULL, (double)v.coalesced);
	render_http(b);
	render_process(b);
	view_free(&v);
}
