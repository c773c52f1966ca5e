#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <jansson.h>
#include "clock.h"
#include "endpoints.h"
#include "epcheck.h"
#include "follow.h"
#include "kvlist.h"
#include "log.h"
#include "httpc.h"
#include "url.h"
#include "sidecar.h"
#include "xalloc.h"

#define FOLLOW_HOLD_MS		25000	/* how long the head may hold a long-poll */
#define FOLLOW_BACKOFF_MIN_MS	100
#define FOLLOW_BACKOFF_MAX_MS	5000
#define FOLLOW_FAILURES_NOT_READY 3	/* unreachable this many times: stop claiming ready */
#define FOLLOW_FLOOR_MS		25	/* between two polls, whatever they answered */

struct follow {
	struct sidecar		*sc;
	struct httpc		*head;
	struct httpc_req	*req;
	struct event		*retry;
	char			 url[URL_HOST_MAX + 300];
	char			 etag[32];
	char			 state[sizeof(((struct url *)0)->host) + 1200];
	char			 logged[600];	/* the problem last logged */
	int			 failures;
	long			 backoff_ms;
};

static void poll_head(struct follow *);

const char *
follow_url(const struct follow *f)
{
	return f->url;
}

const char *
follow_state(const struct follow *f)
{
	return f->state;
}

static void
retry_cb(evutil_socket_t fd, short what, void *arg)
{
	poll_head(arg);
}

static void
schedule(struct follow *f, long ms)
{
	struct timeval tv = ms_tv(ms);
	evtimer_add(f->retry, &tv);
}

/* Anything but a fresh, valid, written answer: back off (capped, doubling), and log a problem once
 * when it appears and once more when the backoff reaches its cap. unreachable: the head did not
 * answer, so the master it named may be gone too; after a few such, never claim it is ready. */
static void
problem(struct follow *f, const char *why, int unreachable)
{
	struct endpoints *e = f->sc->endpoints;
	int at_cap = f->backoff_ms == FOLLOW_BACKOFF_MAX_MS;
	f->backoff_ms = f->backoff_ms ? f->backoff_ms * 2 : FOLLOW_BACKOFF_MIN_MS;
	if (f->backoff_ms > FOLLOW_BACKOFF_MAX_MS)
		f->backoff_ms = FOLLOW_BACKOFF_MAX_MS;
	snprintf(f->state, sizeof f->state, "waiting for the head sidecar at %s: %s", f->url, why);
	if (strcmp(f->logged, why) != 0 || (!at_cap && f->backoff_ms == FOLLOW_BACKOFF_MAX_MS)) {
		log_warn("follow: %s%s", f->state, strcmp(f->logged, why) == 0 ?
		    " (still; retrying every 5 s)" : "");
		snprintf(f->logged, sizeof f->logged, "%s", why);
	}
	if (unreachable && ++f->failures >= FOLLOW_FAILURES_NOT_READY && endpoints_ready(e)) {
		json_t *j = json_loads(endpoints_json(e), 0, NULL);
		char *s, err[256];
		json_object_set_new(j, "ready", json_false());
		s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (endpoints_mirror(e, s, err, sizeof err) != 0)
			log_err("follow: cannot mark the files not ready: %s", err);
		free(s);
		json_decref(j);
		snprintf(f->etag, sizeof f->etag, "unknown");
	}
	schedule(f, f->backoff_ms);
	sidecar_changed(f->sc);
}

static void
answered(const struct httpc_response *pr, void *arg)
{
	struct follow *f = arg;
	struct endpoints *e = f->sc->endpoints;
	struct ep_view v;
	char etag[32], why[600], err[400];

	f->req = NULL;
	if (pr->outcome != HTTPC_OK) {
		problem(f, pr->detail, 1);
		return;
	}
	if (pr->status == 503) {	/* the head has no files yet, or holds as many polls as it takes */
		f->failures = 0;
		problem(f, "its master is not ready yet (HTTP 503)", 0);
		return;
	}
	if (pr->status != 200) {
		snprintf(why, sizeof why, "/endpoints answered HTTP %d", pr->status);
		problem(f, why, 1);
		return;
	}
	f->failures = 0;
	if (epcheck(pr->body, pr->len, &v, err, sizeof err) != 0) {
		snprintf(why, sizeof why, "unusable answer, not written: %s", err);
		problem(f, why, 0);
		return;
	}
	snprintf(etag, sizeof etag, "%lld-%s", v.generation, v.ready ? "ready" : "not-ready");
	if (strcmp(etag, f->etag) == 0 && pr->seconds * 1000.0 < FOLLOW_HOLD_MS / 2) {
		problem(f, "the head answered at once without a change (it ignores ?since=)", 0);
		return;
	}
	if (strcmp(etag, f->etag) != 0) {
		if (endpoints_mirror(e, pr->body, err, sizeof err) != 0) {
			snprintf(why, sizeof why, "unusable answer, not written: %s", err);
			problem(f, why, 0);
			return;
		}
		snprintf(f->etag, sizeof f->etag, "%s", etag);
		if (endpoints_error(e) != NULL) {
			snprintf(why, sizeof why, "cannot write the files here: %s", endpoints_error(e));
			problem(f, why, 0);
			return;
		}
	}
	f->backoff_ms = 0;
	f->logged[0] = '\0';
	snprintf(f->state, sizeof f->state, "following the master through %s (generation %u, %s)", f->url,
	    endpoints_generation(e), endpoints_ready(e) ? "ready" : "not ready");
	sidecar_changed(f->sc);
	schedule(f, FOLLOW_FLOOR_MS);
}

static void
poll_head(struct follow *f)
{
	char path[128];
	snprintf(path, sizeof path, "/endpoints?since=%s&timeout_ms=%d", f->etag, FOLLOW_HOLD_MS);
	f->req = httpc_get(f->head, path, FOLLOW_HOLD_MS + 5000, answered, f);
}

struct httpc *
follow_sidecar_of(const struct sidecar *sc, const char *node, char *url, size_t len, size_t max_body,
    long timeout_ms, char *err, size_t errlen)
{
	const struct cfg *c = &sc->cfg;
	struct httpc_target t;
	struct httpc *h;
	struct url u;
	char why[400];
	const char *set = kvlist_get(&c->job.sidecars, node);
	if (set == NULL && strcmp(node, c->master.node) == 0 && c->master.url[0] != '\0')
		set = c->master.url;
	if (set != NULL) {
		if (url_parse(set, &u, why, sizeof why) != 0) {
			snprintf(err, errlen, "the sidecar of %s: %s", node, why);
			return NULL;
		}
		snprintf(url, len, "%s", set);
	} else {
		snprintf(u.host, sizeof u.host, "%s", node);
		u.port = (int)c->admin.port;
		u.tls = c->admin.tls_cert_file[0] != '\0';	/* the job's sidecars are configured alike */
		snprintf(url, len, strchr(u.host, ':') ? "%s://[%s]:%d" : "%s://%s:%d", u.tls ? "https" : "http",
		    u.host, u.port);
	}
	/* Before the loop runs, so a blocking lookup is allowed here. */
	if (httpc_resolve(u.host, u.port, &t, why, sizeof why) != 0) {
		snprintf(err, errlen, "the sidecar of %s at %s: %s", node, url, why);
		return NULL;
	}
	h = httpc_new(sc->base, &t, 1, max_body, timeout_ms);
	httpc_set_bearer(h, sc->token);	/* the job's sidecars share admin.auth */
	if (u.tls && sc->peer_cred == NULL) {
		snprintf(err, errlen, "the sidecar of %s at %s: https without credentials (master.ca_file)", node, url);
		httpc_free(h);
		return NULL;
	}
	if (u.tls)
		httpc_set_tls(h, sc->peer_cred, u.host);
	return h;
}

struct follow *
follow_new(struct sidecar *sc, char *err, size_t errlen)
{
	struct follow *f = xcalloc(1, sizeof *f);
	const struct cfg *c = &sc->cfg;

	if ((f->head = follow_sidecar_of(sc, c->master.node, f->url, sizeof f->url, 4 * 1024 * 1024,
	    FOLLOW_HOLD_MS + 5000, err, errlen)) == NULL) {
		free(f);
		return NULL;
	}
	f->sc = sc;
	f->retry = evtimer_new(sc->base, retry_cb, f);
	snprintf(f->etag, sizeof f->etag, "none");
	snprintf(f->state, sizeof f->state, "waiting for the head sidecar at %s", f->url);
	log_notice("follow: the master runs on %s; following it through %s", c->master.node, f->url);
	poll_head(f);
	return f;
}

void
follow_free(struct follow *f)
{
	if (f == NULL)
		return;
	httpc_cancel(f->req);
	event_free(f->retry);
	httpc_free(f->head);
	free(f);
}
