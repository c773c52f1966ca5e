#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "atomicfile.h"
#include "audit.h"
#include "clock.h"
#include "counters.h"
#include "prom.h"
#include "metrics.h"

/* A family of one gauge without labels. */
static void
gauge(struct buf *b, const char *name, const char *help, double v)
{
	prom_family(b, name, help, "gauge");
	prom_sample(b, name, NULL, v);
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
	if (v->ha_on) {
		static const char *const phases[] = { "serving", "warmup", "standby", "no_leader", NULL };
		prom_family(b, "mooncake_sidecar_master_ha_phase", "HA: 1 for the phase the master's /health says it is "
		    "in (serving, warmup: the leader before it serves, standby, no_leader).", "gauge");
		for (int i = 0; phases[i] != NULL; i++) {
			const char *l[] = { "phase", phases[i], NULL };
			prom_sample(b, "mooncake_sidecar_master_ha_phase", l, v->ha_answered && strcmp(v->ha_phase, phases[i]) == 0);
		}
		prom_family(b, "mooncake_sidecar_master_ha_serving_leader", "HA: 1 when a leader serves: this master, "
		    "or the leader it names as a standby (its RPC port accepts).", "gauge");
		prom_sample(b, "mooncake_sidecar_master_ha_serving_leader", NULL, v->ha_serving_leader);
		prom_family(b, "mooncake_sidecar_master_ha_phase_seconds", "HA: how long the master has been in its phase.",
		    "gauge");
		prom_sample(b, "mooncake_sidecar_master_ha_phase_seconds", NULL, v->ha_answered ? v->ha_phase_s : 0);
		prom_family(b, "mooncake_sidecar_master_ha_snapshots_total", "HA: the master's snapshots (what a standby "
		    "is promoted from) by how they ended, from its log, over every master this sidecar started.", "counter");
		const char *ok[] = { "outcome", "persisted", NULL }, *bad[] = { "outcome", "failed", NULL };
		prom_sample(b, "mooncake_sidecar_master_ha_snapshots_total", ok, (double)v->ha_snap_ok);
		prom_sample(b, "mooncake_sidecar_master_ha_snapshots_total", bad, (double)v->ha_snap_failed);
		gauge(b, "mooncake_sidecar_master_ha_snapshots_failing", "HA: snapshots failed in a row since the last "
		    "that persisted (0: the last persisted).", v->ha_snap_failing);
		gauge(b, "mooncake_sidecar_master_ha_snapshot_last_persisted_timestamp_seconds", "HA: when the last "
		    "snapshot persisted (0: none yet); a standby promoted now starts from it.", v->ha_snap_last_ok);
		if (v->ha_lease_on) {
			const char *r[] = { "outcome", "released", NULL }, *g[] = { "outcome", "none_left", NULL },
			    *f[] = { "outcome", "failed", NULL };
			prom_family(b, "mooncake_sidecar_master_ha_lease_releases_total", "Redis HA: a master that ended "
			    "while it led, its lease released in Redis by the sidecar (another master leads at once, not "
			    "once the lease lapses), by outcome.", "counter");
			prom_sample(b, "mooncake_sidecar_master_ha_lease_releases_total", r, (double)v->ha_lease_released);
			prom_sample(b, "mooncake_sidecar_master_ha_lease_releases_total", g, (double)v->ha_lease_gone);
			prom_sample(b, "mooncake_sidecar_master_ha_lease_releases_total", f, (double)v->ha_lease_failed);
		}
	}
	if (v->warm_on) {
		const char *ok[] = { "outcome", "persisted", NULL }, *bad[] = { "outcome", "failed", NULL };
		prom_family(b, "mooncake_sidecar_master_snapshots_total", "master.snapshot: the master's snapshots by "
		    "how they ended, from its log, over every master this sidecar started.", "counter");
		prom_sample(b, "mooncake_sidecar_master_snapshots_total", ok, (double)v->ha_snap_ok);
		prom_sample(b, "mooncake_sidecar_master_snapshots_total", bad, (double)v->ha_snap_failed);
		gauge(b, "mooncake_sidecar_master_snapshot_last_persisted_timestamp_seconds", "master.snapshot: when "
		    "the last snapshot persisted (0: none yet); a restart restores it.", v->ha_snap_last_ok);
		gauge(b, "mooncake_sidecar_master_snapshot_bytes", "master.snapshot: the size on disk of the last good "
		    "snapshot (0: none yet).", (double)v->warm_good_bytes);
		gauge(b, "mooncake_sidecar_master_snapshot_interval_seconds", "master.snapshot.interval_s.",
		    (double)v->warm_interval_s);
		gauge(b, "mooncake_sidecar_master_snapshot_age_seconds", "master.snapshot: since the last snapshot "
		    "persisted (since the sidecar started when none has); what a crash now would lose.",
		    wall_now() - (v->ha_snap_last_ok > 0 ? v->ha_snap_last_ok : v->start_wall));
		gauge(b, "mooncake_sidecar_master_restored", "master.snapshot: 1 when the running master restored a "
		    "snapshot at its start, 0 when it started cold (or has not said yet).", v->warm_restore != NULL &&
		    strcmp(v->warm_restore, "restored") == 0);
		if (v->warm_keys >= 0)
			gauge(b, "mooncake_sidecar_master_keys_restored", "master.snapshot: the keys the running master "
			    "held at the sidecar's first reading of its metrics after its restore (master_key_count).",
			    v->warm_keys);
	}
	prom_family(b, "mooncake_sidecar_endpoints_generation",
	    "The generation of endpoints.json (one more each time the master becomes ready).", "gauge");
	prom_sample(b, "mooncake_sidecar_endpoints_generation", NULL, v->files_gen);
	prom_family(b, "mooncake_sidecar_endpoints_ready",
	    "1 when the endpoint files on disk say ready (written, and the master ready).", "gauge");
	prom_sample(b, "mooncake_sidecar_endpoints_ready", NULL, v->files_ready && v->files_error == NULL);
	prom_family(b, "mooncake_sidecar_upstream_up",
	    "1 when the master's admin port answered the last probe.", "gauge");
	{
		static const char *const target[] = { "target", "master", NULL };
		prom_sample(b, "mooncake_sidecar_upstream_up", target, v->master_pid > 0 && v->probes[VIEW_ADMIN].ok);
	}
	prom_family(b, "mooncake_sidecar_master_stalled", "1 when the master is stalled under its metadata locks (the "
	    "lock probe unanswered, or its ping counter flat with clients connected) while /health says it is fine.",
	    "gauge");
	prom_sample(b, "mooncake_sidecar_master_stalled", NULL, v->stall_why != NULL);
	prom_family(b, "mooncake_sidecar_master_stalls_total", "Stalls of the master seen since the sidecar started "
	    "(each is seconds long: a scrape may miss the gauge, not this).", "counter");
	prom_sample(b, "mooncake_sidecar_master_stalls_total", NULL, v->stalls);
	prom_family(b, "mooncake_sidecar_ready", "1 when this node is ready: its master (if any) ready and "
	    "published, its endpoint files written, every worker healthy (what /readyz and READY=1 say).", "gauge");
	prom_sample(b, "mooncake_sidecar_ready", NULL, v->ready);
}

/* Time to ready by worker group, and each gang's generation, restarts and whether it may run. */
static void
render_workers(struct buf *b, const struct view *v)
{
	prom_family(b, "mooncake_sidecar_worker_ready_seconds", "Time from a worker's exec to its first healthy "
	    "check (model loading), by group.", "histogram");
	for (size_t g = 0; g < v->nready_hist; g++) {
		char idx[24];
		const char *l[] = { "group", v->ready_hist[g].role, "group_index", idx, NULL };
		snprintf(idx, sizeof idx, "%zu", v->ready_hist[g].index);
		prom_histogram(b, "mooncake_sidecar_worker_ready_seconds", l, view_ready_buckets, VIEW_READY_NBUCKETS,
		    &v->ready_hist[g].hist);
	}
	prom_family(b, "mooncake_sidecar_gang_generation",
	    "The generation of a gang with members on this node (one more at each gang restart).", "gauge");
	for (size_t i = 0; i < v->ngangs; i++) {
		const char *l[] = { "gang", v->gangs[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_gang_generation", l, v->gangs[i].generation);
	}
	prom_family(b, "mooncake_sidecar_gang_restarts_total", "Gang restarts applied on this node, by group and reason.",
	    "counter");
	for (size_t i = 0; i < v->ngangs; i++)
		for (int r = 0; r < GANG_NREASONS; r++) {
			const char *l[] = { "gang", v->gangs[i].name, "group", v->gangs[i].group, "reason",
			    gang_reason_name(r), NULL };
			prom_sample(b, "mooncake_sidecar_gang_restarts_total", l, v->gangs[i].by_reason[r]);
		}
	prom_family(b, "mooncake_sidecar_gang_up", "Whether a gang with members here may run: 0 once it is fatal "
	    "or stopped by its restart policy.", "gauge");
	for (size_t i = 0; i < v->ngangs; i++) {
		const char *l[] = { "gang", v->gangs[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_gang_up", l, v->gangs[i].up);
	}
}

static void
render_process(struct buf *b, double started_wall)
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

static void
render_conns(struct buf *b, const struct admin_conn_stats *c)
{
	const struct { const char *reason; unsigned long n; } ended[] = {
		{ "head_timeout", c->head_timeouts }, { "evicted", c->evicted },
		{ "per_address", c->refused_per_address }, { "full", c->refused_full },
		{ "reserve_only", c->reserve_refused },
	};
	prom_family(b, "mooncake_sidecar_admin_connections", "Connections to the admin port open now, and of them "
	    "those waiting for a request head.", "gauge");
	prom_sample(b, "mooncake_sidecar_admin_connections", (const char *[]){ "state", "open", NULL }, (double)c->open);
	prom_sample(b, "mooncake_sidecar_admin_connections", (const char *[]){ "state", "waiting_head", NULL },
	    (double)c->waiting_head);
	prom_family(b, "mooncake_sidecar_admin_connections_refused_total", "Connections to the admin port ended or "
	    "refused by its limits: no whole request head within 10 s (head_timeout), made room for a new one at "
	    "admin.max_connections (evicted), admin.max_connections_per_ip (per_address), every connection and the "
	    "probes' reserve taken (full), a reserve connection asking for other than /livez or /readyz "
	    "(reserve_only, answered 503).", "counter");
	for (size_t i = 0; i < sizeof ended / sizeof ended[0]; i++)
		prom_sample(b, "mooncake_sidecar_admin_connections_refused_total",
		    (const char *[]){ "reason", ended[i].reason, NULL }, (double)ended[i].n);
}

void
render_metrics(const struct view *v, struct buf *b)
{
	counters_render_ops(b);
	render_children(b, v);
	render_workers(b, v);
	prom_family(b, "mooncake_sidecar_admin_long_polls", "Long-polls and event streams of /endpoints and /gangs held now "
	    "(at most admin.max_waiters).", "gauge");
	prom_sample(b, "mooncake_sidecar_admin_long_polls", NULL, (double)v->long_polls);
	render_conns(b, &v->conns);
	prom_family(b, "mooncake_sidecar_sd_reports_refused_total", "Reports of what runs on another node (sent with "
	    "its poll of /endpoints, for /sd) that did not parse: /sd keeps what that node reported before.", "counter");
	prom_sample(b, "mooncake_sidecar_sd_reports_refused_total", NULL, (double)v->sd_refused);
	prom_family(b, "mooncake_sidecar_proxy_coalesced_total",
	    "Proxied requests answered by an identical request to the master already in flight.", "counter");
	prom_sample(b, "mooncake_sidecar_proxy_coalesced_total", NULL, (double)v->coalesced);
	counters_render_http(b);
	gauge(b, "mooncake_sidecar_paused", "1 while supervision is paused (POST /control/pause): nothing is restarted.",
	    v->paused);
	audit_render(b);
	render_process(b, v->start_wall);
}
