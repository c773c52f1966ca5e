/* /status and /gangs, rendered from the read-only view (daemon/view.h). */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "clock.h"
#include "render.h"


/* The master's snapshots as its log tells them (an HA leader's, or master.snapshot's). */
static json_t *
snapshots_json(const struct view *v)
{
	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o}", "persisted", (json_int_t)v->ha_snap_ok, "failed",
	    (json_int_t)v->ha_snap_failed, "failing_for", (json_int_t)v->ha_snap_failing, "last_persisted",
	    v->ha_snap_last_ok > 0 ? json_real(v->ha_snap_last_ok) : json_null(), "age_s", v->ha_snap_last_ok > 0 ?
	    json_real(wall_now() - v->ha_snap_last_ok) : json_null(), "last_error", v->ha_snap_error ?
	    json_string(v->ha_snap_error) : json_null());
}

static json_t *
master_json(const struct view *v)
{
	static const char *const names[VIEW_NPROBES] = { "rpc", "metadata", "admin" };
	json_t *m, *probes;
	if (!v->has_master && v->follow_state != NULL)
		return json_pack("{s:s, s:s, s:s, s:s}", "state", "remote", "node", v->master_node, "url",
		    v->follow_url, "reason", v->follow_state);
	if (!v->has_master)
		return json_pack("{s:s, s:s}", "state", "absent", "node", v->master_node);
	m = json_object();
	probes = json_object();
	json_object_set_new(m, "state", json_string(v->master_state));
	json_object_set_new(m, "reason", json_string(v->master_reason));
	json_object_set_new(m, "pid", v->master_pid > 0 ? json_integer(v->master_pid) : json_null());
	json_object_set_new(m, "restarts", json_integer(v->master_restarts));
	json_object_set_new(m, "generation", json_integer(v->files_gen));
	if (v->last_code >= 0)
		json_object_set_new(m, "last_exit", json_pack("{s:i}", "code", v->last_code));
	else if (v->last_signal >= 0)
		json_object_set_new(m, "last_exit", json_pack("{s:i}", "signal", v->last_signal));
	else
		json_object_set_new(m, "last_exit", json_null());
	if (v->master_ready) {
		char ts[64];
		wall_iso8601(v->ready_wall, ts, sizeof ts);
		json_object_set_new(m, "ready_since", json_string(ts));
	} else
		json_object_set_new(m, "ready_since", json_null());
	if (v->ha_on) {
		json_t *ha = json_pack("{s:s, s:s, s:f, s:f, s:o, s:b, s:s, s:b, s:o, s:o}", "phase", v->ha_phase,
		    "ha_state", v->ha_state, "for_s", v->ha_phase_s, "since", v->ha_since, "leader", v->ha_leader[0] ?
		    json_string(v->ha_leader) : json_null(), "leader_serving", v->ha_leader_serving, "leader_detail",
		    v->ha_leader_detail, "serving_leader", v->ha_serving_leader, "problem", v->ha_problem ?
		    json_string(v->ha_problem) : json_null(), "snapshots", snapshots_json(v));
		if (v->ha_lease_on) {
			json_object_set_new(ha, "lease_releases", json_pack("{s:I, s:I, s:I, s:o, s:o}", "released",
			    (json_int_t)v->ha_lease_released, "none_left", (json_int_t)v->ha_lease_gone, "failed",
			    (json_int_t)v->ha_lease_failed, "last_ms", v->ha_lease_released + v->ha_lease_gone +
			    v->ha_lease_failed ? json_real(v->ha_lease_last_ms) : json_null(), "last_error",
			    v->ha_lease_error ? json_string(v->ha_lease_error) : json_null()));
			json_object_set_new(ha, "switchover", v->ha_sw_state == NULL ? json_null() :
			    json_pack("{s:s, s:s, s:o, s:f, s:o}", "state", v->ha_sw_state, "from", v->ha_sw_from, "to",
			    v->ha_sw_to ? json_string(v->ha_sw_to) : json_null(), "for_ms", v->ha_sw_took_ms, "message",
			    v->ha_sw_msg ? json_string(v->ha_sw_msg) : json_null()));
		}
		json_object_set_new(m, "ha", ha);
	} else
		json_object_set_new(m, "ha", json_null());
	if (v->warm_on) {
		/* the same counts as an HA leader's snapshots, with what the restore and the checks add */
		json_t *w = snapshots_json(v);
		json_object_update_new(w, json_pack("{s:s, s:I, s:o, s:o, s:o, s:I, s:o}", "dir", v->warm_dir, "interval_s",
		    (json_int_t)v->warm_interval_s, "last_start", v->warm_restore ? json_string(v->warm_restore) :
		    json_null(), "restored_from", v->warm_restore && strcmp(v->warm_restore, "restored") == 0 ?
		    json_string(v->warm_restore_what) : json_null(), "keys_restored", v->warm_keys >= 0 ?
		    json_integer((json_int_t)v->warm_keys) : json_null(), "unusable", (json_int_t)v->warm_unusable,
		    "last_good", !v->warm_good[0] ? json_null() : json_pack("{s:s, s:I}", "id", v->warm_good, "bytes",
		    (json_int_t)v->warm_good_bytes)));
		json_object_set_new(m, "snapshot", w);
	} else
		json_object_set_new(m, "snapshot", json_null());
	json_object_set_new(m, "stall", v->stall_why ? json_pack("{s:f, s:s}", "for_s", v->stall_s, "reason",
	    v->stall_why) : json_null());
	json_object_set_new(m, "ports", json_pack("{s:i, s:i, s:i}", "rpc", (int)v->ports[VIEW_RPC],
	    "metadata", (int)v->ports[VIEW_METADATA], "admin", (int)v->ports[VIEW_ADMIN]));
	for (int i = 0; i < VIEW_NPROBES; i++) {
		const struct view_probe *p = &v->probes[i];
		if (!p->present)
			continue;
		json_object_set_new(probes, names[i], json_pack("{s:b, s:f, s:s, s:o}", "ok", p->ok,
		    "last_ms", p->last_ms, "detail", p->detail, "age_ms",
		    p->age_ms >= 0 ? json_real(p->age_ms) : json_null()));
	}
	json_object_set_new(m, "probes", probes);
	return m;
}

static json_t *
workers_json(const struct view *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->nworkers; i++) {
		const struct view_worker *w = &v->workers[i];
		const int *p = w->ports;
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(w->name));
		json_object_set_new(o, "role", json_string(w->role));
		json_object_set_new(o, "worker_index", json_integer(w->worker_index));
		json_object_set_new(o, "state", json_string(w->state));
		if (v->workers_waiting != NULL)
			json_object_set_new(o, "waiting_for", json_string(v->workers_waiting));
		json_object_set_new(o, "pid", w->pid > 0 ? json_integer(w->pid) : json_null());
		json_object_set_new(o, "restarts", json_integer(w->restarts));
		json_object_set_new(o, "cuda_visible_devices", w->cvd ? json_string(w->cvd) : json_null());
		json_object_set_new(o, "health", json_pack("{s:s, s:o, s:s, s:o, s:i}", "check", w->check,
		    "ok", w->ok < 0 ? json_null() : json_boolean(w->ok), "last", w->last,
		    "age_ms", w->age_ms >= 0 ? json_integer((json_int_t)w->age_ms) : json_null(),
		    "failures", (int)w->failures));
		json_object_set_new(o, "ready_s", w->ready_s > 0 ? json_real(w->ready_s) : json_null());
		json_object_set_new(o, "ports", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}",
		    "http", p[VIEW_PORT_HTTP], "bootstrap", p[VIEW_PORT_BOOTSTRAP], "kv_events", p[VIEW_PORT_KV_EVENTS],
		    "nixl", p[VIEW_PORT_NIXL], "sys", p[VIEW_PORT_SYS], "dp_rpc", p[VIEW_PORT_DP_RPC]));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
strings_json(const char *const *s, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

static json_t *
gangs_json(const struct view *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->ngangs; i++) {
		const struct view_gang *g = &v->gangs[i];
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:s, s:o, s:b, s:s, s:I, s:I, s:o, s:s}", "name",
		    g->name, "generation", (json_int_t)g->generation, "failures", (json_int_t)g->failures, "leader",
		    g->leader, "nodes", strings_json(g->nodes, g->nnodes), "waiting", g->waiting, "state", g->state,
		    "restarts", (json_int_t)g->restarts, "starts_in_ms", (json_int_t)g->starts_in_ms,
		    "members", strings_json(g->members, g->nmembers), "last_cause", g->last_cause));
	}
	return a;
}

static char *
dump(json_t *o)
{
	char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	json_decref(o);
	return s;
}

/* The operator's: paused or not (since when), the last actions, oldest first. */
static json_t *
control_json(const struct view *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->nactions; i++) {
		const struct view_action *x = &v->actions[i];
		json_array_append_new(a, json_pack("{s:f, s:s, s:s, s:s, s:s, s:i, s:s}", "at", x->at, "who", x->who,
		    "action", x->action, "target", x->target, "outcome", x->outcome, "code", x->code, "message",
		    x->message));
	}
	return json_pack("{s:b, s:o, s:o}", "paused", v->paused, "paused_since",
	    v->paused ? json_real(v->paused_since) : json_null(), "actions", a);
}

char *
render_status(const struct view *v)
{
	json_t *o = json_object(), *e;
	json_object_set_new(o, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(o, "node", json_string(v->node));
	json_object_set_new(o, "node_address", json_pack("{s:s, s:s}", "address", v->address, "source",
	    v->address_source));
	json_object_set_new(o, "job_id", json_string(v->job_id));
	json_object_set_new(o, "uptime_s", json_real(v->uptime_s));
	json_object_set_new(o, "ready", json_boolean(v->ready));
	json_object_set_new(o, "ready_reason", json_string(v->ready_reason));
	json_object_set_new(o, "master", master_json(v));
	json_object_set_new(o, "workers", workers_json(v));
	json_object_set_new(o, "gangs", gangs_json(v));
	json_object_set_new(o, "drain", !v->has_drain ? json_null() : json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, "
	    "s:I, s:I, s:I, s:I, s:I, s:f}", "state", v->drain_state, "via", v->drain_via, "host", v->drain_host,
	    "detail", v->drain_why, "segments", (int)v->drain_segments, "job_id", v->drain_job, "job_status",
	    v->drain_job_status, "moved_units", (json_int_t)v->drain_moved, "moving_units", (json_int_t)v->drain_moving,
	    "blocked_units", (json_int_t)v->drain_blocked, "failed_units", (json_int_t)v->drain_failed,
	    "migrated_bytes", (json_int_t)v->drain_bytes, "seconds", v->drain_s));
	e = json_pack("{s:i, s:s, s:o}", "generation", (int)v->files_gen, "dir", v->run_dir, "written_at",
	    v->written_at > 0 ? json_real(v->written_at) : json_null());
	json_object_set_new(e, "ready", json_boolean(v->files_ready));
	json_object_set_new(e, "error", v->files_error ? json_string(v->files_error) : json_null());
	json_object_set_new(o, "endpoints", e);
	json_object_set_new(o, "control", control_json(v));
	return dump(o);
}

char *
render_gangs(const struct view *v)
{
	return dump(json_pack("{s:s, s:s, s:o}", "node", v->node, "etag", v->gangs_etag, "gangs", gangs_json(v)));
}

/* Prometheus's HTTP service discovery: one target group a process, its labels as strings. */
char *
render_sd(const struct view *v)
{
	json_t *a = json_array();
	char *s;
	for (size_t i = 0; i < v->nsd; i++) {
		const struct sd_target *t = &v->sd[i].t;
		json_t *l = json_pack("{s:s, s:s, s:s}", "job_id", v->job_id, "node", v->sd[i].node, "role", t->role);
		char b[32];
		if (strcmp(t->role, "sidecar") == 0 && v->sd_tls)
			json_object_set_new(l, "__scheme__", json_string("https"));
		if (t->worker[0] != '\0')
			json_object_set_new(l, "worker", json_string(t->worker));
		if (t->group_index >= 0) {	/* as worker_ready_seconds{group,group_index} */
			snprintf(b, sizeof b, "%d", t->group_index);
			json_object_set_new(l, "group", json_string(t->role));
			json_object_set_new(l, "group_index", json_string(b));
		}
		if (t->worker_index >= 0) {
			snprintf(b, sizeof b, "%d", t->worker_index);
			json_object_set_new(l, "worker_index", json_string(b));
		}
		if (t->dp_rank >= 0) {
			snprintf(b, sizeof b, "%d", t->dp_rank);
			json_object_set_new(l, "dp_rank", json_string(b));
		}
		if (t->generation > 0) {
			snprintf(b, sizeof b, "%u", t->generation);
			json_object_set_new(l, "generation", json_string(b));
		}
		if (t->gang[0] != '\0')
			json_object_set_new(l, "gang", json_string(t->gang));
		json_array_append_new(a, json_pack("{s:[s], s:o}", "targets", t->target, "labels", l));
	}
	s = json_dumps(a, JSON_INDENT(2));
	json_decref(a);
	return s;
}
