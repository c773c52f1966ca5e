/* The one place that reads the master, the children, the endpoint files and the follower for the
 * renderings (daemon/render.c, daemon/metrics.c). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "admin.h"
#include "child.h"
#include "clock.h"
#include "endpoints.h"
#include "follow.h"
#include "master.h"
#include "sidecar.h"
#include "view.h"
#include "xalloc.h"

const char *const view_state_names[] = { "stopped", "starting", "ready", "backoff", "stopping", "fatal" };
const int view_nstates = CHILD_NSTATES;

void
view_build(const struct sidecar *sc, struct view *v)
{
	const struct child *c = sc->master ? master_child(sc->master) : NULL;
	const struct endpoints *e = sc->endpoints;
	struct child **list;
	size_t n = child_list(&list);
	double now = mono_now();

	memset(v, 0, sizeof *v);
	v->sc = sc;
	v->node = sc->cfg.job.node;
	v->job_id = sc->cfg.job.id;
	v->address = sc->node_addr.addr;
	v->address_source = sc->node_addr.source;
	v->run_dir = sc->cfg.job.run_dir;
	v->uptime_s = now - sc->started;
	v->master_node = sc->cfg.master.node;
	v->last_code = v->last_signal = -1;
	if (e != NULL) {
		v->files_gen = endpoints_generation(e);
		v->files_ready = endpoints_ready(e);
		v->files_error = endpoints_error(e);
		v->written_at = endpoints_written_at(e);
	}
	if (c != NULL) {
		v->has_master = 1;
		v->master_state = child_state_name(c->state);
		v->master_reason = c->reason;
		v->master_ready = c->state == CHILD_READY;
		v->master_pid = c->pid > 0 ? c->pid : 0;
		v->master_restarts = c->restarts;
		v->last_code = c->last_code;
		v->last_signal = c->last_signal;
		v->ready_wall = c->ready_wall;
		v->ports[VIEW_RPC] = sc->cfg.master.rpc_port;
		v->ports[VIEW_METADATA] = sc->cfg.master.http_metadata_port;
		v->ports[VIEW_ADMIN] = sc->cfg.master.metrics_port;
		for (int i = 0; i < VIEW_NPROBES; i++) {
			const struct probe_stat *s = master_probe_stat(sc->master, i);
			v->probes[i] = (struct view_probe){ i != VIEW_METADATA || v->ports[i] != 0, s->ok,
			    s->seconds * 1000.0, s->detail, s->at > 0 ? (now - s->at) * 1000.0 : -1 };
		}
	} else if (sc->follow != NULL) {
		v->follow_url = follow_url(sc->follow);
		v->follow_state = follow_state(sc->follow);
	}
	v->ready = (c != NULL ? v->master_ready : v->files_ready) && v->files_error == NULL;
	v->children = xcalloc(n + 1, sizeof *v->children);
	for (size_t i = 0; i < n; i++)
		v->children[v->nchildren++] = (struct view_child){ list[i]->name, list[i]->state,
		    list[i]->pid > 0 ? list[i]->pid : 0, list[i]->restarts, list[i]->ready_seconds };
	v->long_polls = admin_long_polls(sc->admin);
	v->coalesced = admin_coalesced(sc->admin);
}

void
view_free(struct view *v)
{
	free(v->children);
	v->children = NULL;
}
