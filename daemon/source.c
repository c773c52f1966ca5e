/* The admin server's source (daemon/admin.h): what it answers of the sidecar itself, told and
 * asked through these callbacks, each on a view of the moment or on the state it names. */
#include "config.h"
#include <string.h>
#include "child.h"
#include "control.h"
#include "endpoints.h"
#include "master.h"
#include "routes.h"
#include "sidecar.h"
#include "source.h"
#include "view.h"
#include "workers.h"

/* The admin server's source: the sidecar's own routes, answered from a view of the moment. */
static int
admin_answer(void *arg, const char *path, struct admin_answer *ans)
{
	struct view v;
	int rc;
	sidecar_view(arg, &v, strcmp(path, "/endpoints") == 0);
	rc = routes_answer(&v, path, ans);
	view_free(&v);
	return rc;
}

/* The tag of a long-polled route, from the state without a view. */
static int
admin_tag(void *arg, const char *path, char *buf, size_t len)
{
	const struct sidecar *s = arg;
	char gangs[32] = "";
	const struct endpoints *e = s->endpoints;
	if (strcmp(path, "/gangs") == 0)
		workers_gangs_etag(s->workers, gangs, sizeof gangs);
	return routes_tag(path, e != NULL && endpoints_json(e) != NULL, e ? endpoints_generation(e) : 0,
	    e ? endpoints_ready(e) : 0, gangs, buf, len);
}

/* What a request's query told: a gang member's report in its poll of /gangs, a node's /sd report in
 * its poll or stream of /endpoints (again: its stream is still open, the report as it was). A member
 * is heard when it asks, not while its stream stays open: one whose sidecar hangs with its stream
 * open (it asks no more once the stream's hold is up) is lost after peer_timeout_ms all the same. */
static void
admin_heard(void *arg, const char *path, const struct kvlist *args, int again)
{
	struct sidecar *s = arg;
	const char *node = kvlist_get(args, "node"), *failures = kvlist_get(args, "failures");
	const char *sd = kvlist_get(args, "sd");
	if (strcmp(path, "/gangs") == 0 && node != NULL && failures != NULL && !again)
		workers_gang_report(s->workers, node, failures);
	if (strcmp(path, "/endpoints") == 0 && node != NULL && sd != NULL)
		sidecar_sd_heard(s, node, again ? NULL : sd);	/* what runs there, for the head's /sd */
}

/* What the admin server's proxy needs to know of the master. */
static void
admin_upstream(void *arg, struct admin_upstream *u)
{
	const struct sidecar *s = arg;
	const struct child *c = s->master ? master_child(s->master) : NULL;
	u->state = c ? child_state_name(c->state) : "absent";
	u->here = c != NULL;
	u->running = c != NULL && c->pid > 0 && (c->state == CHILD_STARTING || c->state == CHILD_READY);
	u->metrics = u->running && master_probe_stat(s->master, PROBE_ADMIN)->ok;
}

/* An operator's action (POST /control/...). */
static void
admin_control(void *arg, const struct admin_control *req, struct admin_answer *ans)
{
	control_act(arg, req, ans);
}

struct admin_source
source_of(struct sidecar *s)
{
	return (struct admin_source){ admin_answer, admin_tag, admin_heard, admin_upstream, admin_control, s };
}
