/* /status and STATUS=, rendered from the read-only view (daemon/view.h) and the workers' own. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "clock.h"
#include "sidecar.h"
#include "view.h"
#include "workers.h"

char *
view_status_json(const struct view *v)
{
	json_t *o = json_object(), *m, *e;
	char *s;
	json_object_set_new(o, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(o, "node", json_string(v->node));
	json_object_set_new(o, "node_address", json_pack("{s:s, s:s}", "address", v->address, "source",
	    v->address_source));
	json_object_set_new(o, "job_id", json_string(v->job_id));
	json_object_set_new(o, "uptime_s", json_real(v->uptime_s));
	json_object_set_new(o, "ready", json_boolean(v->ready));
	if (v->has_master) {
		json_t *probes = json_object();
		static const char *const names[VIEW_NPROBES] = { "rpc", "metadata", "admin" };
		m = json_object();
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
	} else if (v->follow_state != NULL)
		m = json_pack("{s:s, s:s, s:s, s:s}", "state", "remote", "node", v->master_node, "url",
		    v->follow_url, "reason", v->follow_state);
	else
		m = json_pack("{s:s, s:s}", "state", "absent", "node", v->master_node);
	json_object_set_new(o, "master", m);
	json_object_set_new(o, "workers", workers_status(v->sc->workers));
	json_object_set_new(o, "gangs", workers_gangs(v->sc->workers));
	e = json_pack("{s:i, s:s, s:o}", "generation", (int)v->files_gen, "dir", v->run_dir, "written_at",
	    v->written_at > 0 ? json_real(v->written_at) : json_null());
	json_object_set_new(e, "ready", json_boolean(v->files_ready));
	json_object_set_new(e, "error", v->files_error ? json_string(v->files_error) : json_null());
	json_object_set_new(o, "endpoints", e);
	s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	json_decref(o);
	return s;
}

void
view_status_text(const struct view *v, char *status, size_t len)
{
	size_t n;
	if (!v->has_master && v->follow_state != NULL)
		snprintf(status, len, "%s", v->follow_state);
	else if (!v->has_master)
		snprintf(status, len, "no master on this node (master runs on %s)", v->master_node);
	else if (v->master_ready)
		snprintf(status, len, "master ready (gen %u, pid %ld, %u restart%s)", v->files_gen,
		    (long)v->master_pid, v->master_restarts, v->master_restarts == 1 ? "" : "s");
	else if (strcmp(v->master_state, "starting") == 0)
		snprintf(status, len, "master starting (pid %ld, %u restart%s)", (long)v->master_pid,
		    v->master_restarts, v->master_restarts == 1 ? "" : "s");
	else
		snprintf(status, len, "master %s: %s", v->master_state, v->master_reason);
	if (v->files_error != NULL) {
		n = strlen(status);
		snprintf(status + n, len - n, "; endpoint files not written: %s", v->files_error);
	}
	if (workers_count(v->sc->workers) > 0) {
		n = strlen(status);
		snprintf(status + n, len - n, "; ");
		n = strlen(status);
		workers_describe(v->sc->workers, status + n, len - n);
	}
}
