#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "clock.h"
#include "endpoints.h"
#include "epcheck.h"
#include "query.h"
#include "buf.h"
#include "follow.h"
#include "log.h"
#include "httpc.h"
#include "url.h"
#include "peers.h"
#include "sse.h"
#include "xalloc.h"


#define FOLLOW_BACKOFF_MIN_MS	100
#define FOLLOW_BACKOFF_MAX_MS	5000
#define FOLLOW_FAILURES_NOT_READY 3	/* unreachable this many times: stop claiming ready */
#define FOLLOW_FLOOR_MS		25	/* between two polls, whatever they answered */

struct follow {
	struct endpoints	*files;		/* this node's, where what the head says is mirrored */
	void			(*changed)(void *);	/* after every answer (or its absence) */
	void			*arg;
	struct httpc		*head;
	struct httpc_req	*req;		/* the poll or stream open to the head */
	int			 news;		/* a document streamed on it changed the files */
	int			 reopen;	/* the stream is to be asked again with a new report */
	struct sse_event	 ev;
	struct event		*retry;
	char			 url[URL_HOST_MAX + 300];
	char			 etag[32];
	char			 state[sizeof(((struct url *)0)->host) + 1200];
	char			 logged[600];	/* the problem last logged */
	int			 failures;	/* the head unreachable this many times in a row */
	int			 busy_logged;	/* the head's being busy was logged (once per episode) */
	const char		*job_id;	/* this node's: the head must serve the same job */
	const char		*node;		/* this node's name, and what runs here (sdreport), told */
	char			*sd;		/* to the head in each poll: its /sd covers the job */
	unsigned		 sd_seq;	/* one more at each change of sd */
	unsigned		 req_seq;	/* the sd_seq the open request carries */
	unsigned		 heard_seq;	/* the sd_seq the head last answered */
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

int
follow_lost(const struct follow *f)
{
	return f != NULL && f->failures >= FOLLOW_FAILURES_NOT_READY;
}

/* Anything but a fresh, valid, written answer: back off (capped, doubling), and log a problem once
 * when it appears and once more when the backoff reaches its cap. unreachable: the head did not
 * answer, so the master it named may be gone too; after a few such in a row the follower counts as
 * lost (follow_lost: the reconcile step marks the files not ready) and its next poll asks for the
 * head's files whatever they say. */
static void
problem(struct follow *f, const char *why, int unreachable)
{
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
	if (unreachable && ++f->failures == FOLLOW_FAILURES_NOT_READY)
		snprintf(f->etag, sizeof f->etag, "unknown");
	schedule(f, f->backoff_ms);
	f->changed(f->arg);
}

/* The head holds as many long-polls as admin.max_waiters lets it: not the master's trouble, and
 * not worth a backoff. Again in 10 to 50 ms (jittered: a thousand followers turned away together
 * do not come back together), logged once per episode. */
static void
head_busy(struct follow *f)
{
	long ms = 10 + random() % 41;
	if (!f->busy_logged)
		log_notice("follow: the head sidecar at %s is busy (it holds admin.max_waiters long-polls); asking "
		    "again in tens of milliseconds", f->url);
	f->busy_logged = 1;
	snprintf(f->state, sizeof f->state, "waiting for the head sidecar at %s: it is busy (admin.max_waiters)",
	    f->url);
	schedule(f, ms);
	f->changed(f->arg);
}

/* A document from the head, answered to a poll (seconds after it was sent) or streamed (seconds < 0):
 * checked, then mirrored into this node's files when it says something new. */
static void
take(struct follow *f, const char *body, size_t len, double seconds)
{
	struct endpoints *e = f->files;
	struct ep_view v;
	char etag[32], why[600], err[400];
	int fresh_ready;

	f->failures = 0;
	if (epcheck(body, len, &v, err, sizeof err) != 0) {
		snprintf(why, sizeof why, "unusable answer, not written: %s", err);
		problem(f, why, 0);
		return;
	}
	if (strcmp(v.job_id, f->job_id) != 0) {
		snprintf(why, sizeof why, "it serves job \"%.200s\" and this node is of job \"%.200s\" (job.id): not "
		    "written", v.job_id, f->job_id);
		problem(f, why, 0);
		return;
	}
	snprintf(etag, sizeof etag, "%lld-%s", v.generation, v.ready ? "ready" : "not-ready");
	if (seconds < 0 && strcmp(etag, f->etag) == 0)
		return;		/* streamed again, nothing new: neither a change nor a sign of health */
	if (strcmp(etag, f->etag) == 0 && seconds >= 0 && seconds * 1000.0 < FOLLOW_HOLD_MS / 2) {
		problem(f, "the head answered at once without a change (it ignores ?since=)", 0);
		return;
	}
	fresh_ready = strcmp(etag, f->etag) != 0 && v.ready;
	if (strcmp(etag, f->etag) != 0) {
		if (endpoints_mirror_checked(e, body, &v, err, sizeof err) != 0) {
			snprintf(why, sizeof why, "unusable answer, not written: %s", err);
			problem(f, why, 0);
			return;
		}
		snprintf(f->etag, sizeof f->etag, "%s", etag);
		f->news = 1;
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
	f->changed(f->arg);
	if (seconds < 0) {	/* the stream stays open: the next change comes on it */
		if (!f->reopen)
			evtimer_del(f->retry);	/* a backoff after a bad event: over */
		return;
	}
	/* Files that just turned ready must hear the next change (a death) at once: asked again now.
	 * After anything else, the next poll is spread out (a thousand followers, one head). */
	schedule(f, fresh_ready ? 0 : FOLLOW_FLOOR_MS + random() % 200);
}

/* The whole events of a stream's body so far, each taken: the bytes they used. */
static size_t
events(struct follow *f, const char *body, size_t len)
{
	size_t n, off = 0;
	while ((n = sse_next(body + off, len - off, &f->ev)) > 0) {
		off += n;
		if (f->ev.has_data)
			take(f, f->ev.data.p, f->ev.data.len, -1);
	}
	return off;
}

/* The head answered the request: it heard the report the request carried (it reads a poll's query
 * before it answers anything). */
static void
heard(struct follow *f)
{
	if (f->heard_seq == f->req_seq)
		return;
	f->heard_seq = f->req_seq;
	if (f->heard_seq == f->sd_seq)
		f->changed(f->arg);
}

static size_t
streamed(const struct httpc_response *pr, void *arg)
{
	struct follow *f = arg;
	heard(f);
	if (!httpc_is_stream(pr))
		return 0;	/* any other answer is read whole */
	f->busy_logged = 0;	/* a head that streams is not busy */
	return events(f, pr->body, pr->len);
}

static void
answered(const struct httpc_response *pr, void *arg)
{
	struct follow *f = arg;
	char why[600];

	f->req = NULL;
	if (pr->outcome != HTTPC_OK) {
		/* Silent past TCP's bound (keepalive on a held stream, a connect's SYNs) or the poll's
		 * own, or its host unreachable (no ARP answer, a router's word): the head's machine may
		 * be gone with its master, and each more try would take seconds again; lost now. A
		 * refused or reset connection is a sidecar restarting: three in a row. */
		if ((pr->outcome == HTTPC_TIMEOUT || pr->err == EHOSTUNREACH || pr->err == ENETUNREACH ||
		    pr->err == EHOSTDOWN) && f->failures < FOLLOW_FAILURES_NOT_READY - 1)
			f->failures = FOLLOW_FAILURES_NOT_READY - 1;
		problem(f, pr->detail, 1);
		return;
	}
	heard(f);
	if (pr->status == 503 && pr->busy) {
		head_busy(f);
		return;
	}
	f->busy_logged = 0;
	if (pr->status == 503) {	/* the head has no files yet (an older one: or it is busy) */
		f->failures = 0;
		problem(f, "its master is not ready yet (HTTP 503)", 0);
		return;
	}
	if (pr->status != 200) {
		snprintf(why, sizeof why, "/endpoints answered HTTP %d", pr->status);
		problem(f, why, 1);
		return;
	}
	if (!httpc_is_stream(pr)) {
		take(f, pr->body, pr->len, pr->seconds);
		return;
	}
	/* A stream that ended (its timeout_ms): the events that came with its end, then another. */
	f->failures = 0;
	events(f, pr->body, pr->len);
	if (!f->news && pr->seconds * 1000.0 < FOLLOW_HOLD_MS / 2) {
		problem(f, "the head ended its event stream at once without a change", 0);
		return;
	}
	if (!evtimer_pending(f->retry, NULL))
		schedule(f, FOLLOW_FLOOR_MS + random() % 200);
}

static void
poll_head(struct follow *f)
{
	struct buf path = { 0 };
	httpc_cancel(f->req);	/* a stream (or poll) replaced by one with news */
	f->news = f->reopen = 0;
	f->req_seq = f->sd_seq;
	buf_printf(&path, "/endpoints?stream=1&since=%s&timeout_ms=%d&node=", f->etag, FOLLOW_STREAM_MS);
	query_escape(&path, f->node);
	if (f->sd != NULL) {
		buf_puts(&path, "&sd=");
		query_escape(&path, f->sd);
	}
	f->req = httpc_watch(f->head, path.p, FOLLOW_STREAM_MS + 5000, streamed, answered, f);
	buf_free(&path);
}

int
follow_told(const struct follow *f)
{
	return f->heard_seq == f->sd_seq;
}

void
follow_report(struct follow *f, const char *sd)
{
	if (f->sd != NULL && strcmp(f->sd, sd) == 0)
		return;
	free(f->sd);
	f->sd = xstrdup(sd);
	f->sd_seq++;
	if (f->req != NULL) {	/* a poll or stream held at the head: asked again with the news, from the loop */
		f->reopen = 1;
		schedule(f, 0);
	}
}

struct follow *
follow_new(const struct peers *p, struct endpoints *files, void (*changed)(void *), void *arg, char *err,
    size_t errlen)
{
	struct follow *f = xcalloc(1, sizeof *f);
	const struct cfg *c = p->cfg;

	if ((f->head = peers_client(p, c->master.node, f->url, sizeof f->url, 4 * 1024 * 1024,
	    FOLLOW_HOLD_MS + 5000, err, errlen)) == NULL) {
		free(f);
		return NULL;
	}
	httpc_set_keepalive(f->head);
	f->files = files;
	f->job_id = c->job.id;
	f->node = c->job.node;
	f->changed = changed;
	f->arg = arg;
	f->retry = evtimer_new(p->base, retry_cb, f);
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
	sse_event_free(&f->ev);
	free(f->sd);
	free(f);
}
