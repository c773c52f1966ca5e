/* The sidecar's own admin routes, rendered from the read-only view. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "metrics.h"
#include "render.h"
#include "routes.h"
#include "xalloc.h"

static void
text(struct admin_answer *ans, int code, const char *ctype, char *body)
{
	ans->code = code;
	ans->ctype = ctype;
	ans->body = body;
	ans->len = strlen(body);
}

static char *
error_json(const struct view *v, const char *msg)
{
	json_t *o = json_pack("{s:s, s:s}", "error", msg, "state", v->has_master ? v->master_state : "absent");
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

int
routes_tag(const char *path, int has_files, unsigned gen, int ready, const char *gangs_etag, char *buf, size_t len)
{
	if (strcmp(path, "/endpoints") == 0) {
		if (has_files)
			snprintf(buf, len, "%u-%s", gen, ready ? "ready" : "not-ready");
		else
			snprintf(buf, len, "none");
	} else if (strcmp(path, "/gangs") == 0)
		snprintf(buf, len, "%s", gangs_etag);
	else
		return -1;
	return 0;
}

int
routes_answer(const struct view *v, const char *path, struct admin_answer *ans)
{
	static const char json[] = "application/json", plain[] = "text/plain; charset=utf-8";
	if (strcmp(path, "/livez") == 0)
		text(ans, 200, plain, xstrdup("ok"));
	else if (strcmp(path, "/readyz") == 0)
		text(ans, v->ready ? 200 : 503, plain, xstrdup(v->ready_reason));
	else if (strcmp(path, "/status") == 0)
		text(ans, 200, json, render_status(v));
	else if (strcmp(path, "/sd") == 0)
		text(ans, 200, json, render_sd(v));
	else if (strcmp(path, "/gangs") == 0) {
		text(ans, 200, json, render_gangs(v));
		routes_tag(path, 0, 0, 0, v->gangs_etag, ans->etag, sizeof ans->etag);
	} else if (strcmp(path, "/endpoints") == 0) {
		if (v->has_files)
			text(ans, 200, json, xstrdup(v->files_json));
		else
			text(ans, 503, json, error_json(v, "no endpoint files written yet"));
		routes_tag(path, v->has_files, v->files_gen, v->files_ready, NULL, ans->etag, sizeof ans->etag);
	} else if (strcmp(path, "/metrics") == 0) {
		struct buf b = { 0 };
		render_metrics(v, &b);
		ans->code = 200;
		ans->ctype = "text/plain; version=0.0.4; charset=utf-8";
		ans->body = buf_take(&b, &ans->len);
	} else
		return -1;
	return 0;
}
