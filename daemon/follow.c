#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <jansson.h>
#include "clock.h"
#include "endpoints.h"
#include "follow.h"
#include "log.h"
#include "httpc.h"
#include "url.h"
#include "sidecar.h"
#include "xalloc.h"

#define FOLLOW_HOLD_MS		25000	/* how long the head may hold a long-poll */
#define FOLLOW_BACKOFF_MIN_MS	100
#define FOLLOW_BACKOFF_MAX_MS	5000
#define FOLLOW_FAILURES_NOT_READY 3	/* unreachable this many times: stop claiming ready */

struct follow {
	struct sidecar		*sc;
	struct httpc		*head;
	struct httpc_req	*req;
	struct event		*retry;
	char			 url[URL_HOST_MAX + 300];
	char			 etag[32];
	char			 state[sizeof(((struct url *)0)->host) + 1200];
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
failed(struct follow *f, const char *why)
{
	struct endpoints *e = f->sc->endpoints;
	struct timeval tv;
	f->failures++;
	snprintf(f->state, sizeof f->state, "waiting for the head sidecar at %s: %s", f->url, why);
	if (f->failures == 1 || f->failures == FOLLOW_FAILURES_NOT_READY)
		log_warn("follow: %s", f->state);
	/* Unreachable for a while: the master it named may be gone too; never claim it is ready. */
	if (f->failures >= FOLLOW_FAILURES_NOT_READY && endpoints_ready(e)) {
		json_t *j = json_loads(endpoints_json(e), 0, NULL);
		char *s;
		json_object_set_new(j, "ready", json_false());
		s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		endpoints_mirror(e, s);
		free(s);
		json_decref(j);
		snprintf(f->etag, sizeof f->etag, "unknown");
	}
	f->backoff_ms = f->backoff_ms ? f->backoff_ms * 2 : FOLLOW_BACKOFF_MIN_MS;
	if (f->backoff_ms > FOLLOW_BACKOFF_MAX_MS)
		f->backoff_ms = FOLLOW_BACKOFF_MAX_MS;
	tv = ms_tv(f->backoff_ms);
	evtimer_add(f->retry, &tv);
	sidecar_update(f->sc);
}

static void
answered(const struct httpc_response *pr, void *arg)
{
	struct follow *f = arg;
	json_t *j;
	char etag[32], why[400];

	f->req = NULL;
	if (pr->outcome != HTTPC_OK) {
		failed(f, pr->detail);
		return;
	}
	if (pr->status == 503) {		/* the head has no files yet (or held us to its limit) */
		f->failures = 0;
		f->backoff_ms = 0;
		snprintf(f->state, sizeof f->state, "waiting for the master at %s to become ready", f->url);
		poll_head(f);
		return;
	}
	if (pr->status != 200 || (j = json_loadb(pr->body, pr->len, 0, NULL)) == NULL) {
		snprintf(why, sizeof why, "/endpoints answered HTTP %d", pr->status);
		failed(f, why);
		return;
	}
	snprintf(etag, sizeof etag, "%" JSON_INTEGER_FORMAT "-%s",
	    json_integer_value(json_object_get(j, "generation")),
	    json_is_true(json_object_get(j, "ready")) ? "ready" : "not-ready");
	json_decref(j);
	f->failures = 0;
	f->backoff_ms = 0;
	if (strcmp(etag, f->etag) != 0 && endpoints_mirror(f->sc->endpoints, pr->body) == 0)
		snprintf(f->etag, sizeof f->etag, "%s", etag);
	snprintf(f->state, sizeof f->state, "following the master through %s (generation %u, %s)", f->url,
	    endpoints_generation(f->sc->endpoints), endpoints_ready(f->sc->endpoints) ? "ready" : "not ready");
	sidecar_update(f->sc);
	poll_head(f);
}

static void
poll_head(struct follow *f)
{
	char path[128];
	snprintf(path, sizeof path, "/endpoints?since=%s&timeout_ms=%d", f->etag, FOLLOW_HOLD_MS);
	f->req = httpc_get(f->head, path, FOLLOW_HOLD_MS + 5000, answered, f);
}

struct follow *
follow_new(struct sidecar *sc, char *err, size_t errlen)
{
	struct follow *f = xcalloc(1, sizeof *f);
	const struct cfg *c = &sc->cfg;
	struct httpc_target t;
	struct url u;
	char why[400];

	if (c->master.url[0] != '\0') {
		if (url_parse(c->master.url, &u, why, sizeof why) != 0) {
			snprintf(err, errlen, "master.url: %s", why);
			free(f);
			return NULL;
		}
		snprintf(f->url, sizeof f->url, "%s", c->master.url);
	} else {
		snprintf(u.host, sizeof u.host, "%s", c->master.node);
		u.port = (int)c->admin.port;
		snprintf(f->url, sizeof f->url, strchr(u.host, ':') ? "http://[%s]:%d" : "http://%s:%d",
		    u.host, u.port);
	}
	/* Before the loop runs, so a blocking lookup is allowed here. */
	if (httpc_resolve(u.host, u.port, &t, why, sizeof why) != 0) {
		snprintf(err, errlen, "the head sidecar %s: %s", f->url, why);
		free(f);
		return NULL;
	}
	f->sc = sc;
	f->head = httpc_new(sc->base, &t, 1, 4 * 1024 * 1024, FOLLOW_HOLD_MS + 5000);
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
