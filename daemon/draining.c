/* workers.drain_on_stop: this node's segments moved elsewhere before its workers stop. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "log.h"
#include "xalloc.h"
#include "draining.h"

#define DRAIN_POLL_MS		250
#define DRAIN_REQUEST_MS	5000
#define DRAIN_MAX_BODY		(4u << 20)	/* /get_all_segments: one name a line, per client */

enum { D_IDLE, D_LISTING, D_CREATING, D_RUNNING, D_SUCCEEDED, D_FAILED, D_TIMED_OUT, D_SKIPPED };
static const char *const state_names[] = { "idle", "listing", "creating", "running", "succeeded", "failed",
	"timed out", "skipped" };

struct drain {
	struct event_base	*base;
	const struct cfg	*cfg;
	struct httpc		*h;
	struct httpc_req	*req;
	struct event		*poll, *deadline;
	char			 via[400], host[256], why[600];
	int			 state;
	struct strv		 segments;
	struct drain_job	 job;
	double			 began, ended;
	drain_changed_fn	 changed;
	void			*arg;
};

static void ask_job(struct drain *);

static int
over(const struct drain *d)
{
	return d->state >= D_SUCCEEDED;
}

/* The end, whichever it is: logged, told once. */
static void
finish(struct drain *d, int state, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
finish(struct drain *d, int state, const char *fmt, ...)
{
	va_list ap;
	if (over(d))
		return;
	httpc_cancel(d->req);
	d->req = NULL;
	evtimer_del(d->poll);
	evtimer_del(d->deadline);
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof d->why, fmt, ap);
	va_end(ap);
	d->state = state;
	d->ended = mono_now();
	if (state == D_SUCCEEDED)
		log_notice("drain: %s", d->why);
	else
		log_warn("drain: %s; stopping the workers anyway", d->why);
	d->changed(d->arg);
}

/* An answer that is a whole HTTP 200, else why not into why. */
static int
answered(const struct httpc_response *r, const char *what, char *why, size_t len)
{
	if (r->outcome != HTTPC_OK)
		snprintf(why, len, "%s: %s", what, r->detail ? r->detail : "no answer");
	else if (r->status != 200)
		snprintf(why, len, "%s: HTTP %d: %.200s", what, r->status, r->body);
	else
		return 0;
	return -1;
}

static void
cancel_sent(const struct httpc_response *r, void *arg)
{
	(void)r;
	(void)arg;
}

static void
job_answered(const struct httpc_response *r, void *arg)
{
	struct drain *d = arg;
	struct drain_job j;
	char why[400];
	struct timeval tv = { 0, DRAIN_POLL_MS * 1000 };
	d->req = NULL;
	if (answered(r, "GET /api/v1/drain_jobs/query", why, sizeof why) == 0 &&
	    drain_job_parse(r->body, r->len, &j, why, sizeof why) == 0) {
		if (strcmp(j.status, d->job.status) != 0 || j.succeeded != d->job.succeeded || j.active != d->job.active)
			log_info("drain: job %s %s: %lld units moved, %lld moving, %lld blocked, %lld failed, %lld bytes",
			    j.id, j.status, j.succeeded, j.active, j.blocked, j.failed, j.bytes);
		d->job = j;
		if (strcmp(j.status, "SUCCEEDED") == 0) {
			finish(d, D_SUCCEEDED, "%zu segment%s of %s drained in %.3f s: %lld units, %lld bytes moved (job %s)",
			    d->segments.n, d->segments.n == 1 ? "" : "s", d->host, mono_now() - d->began, j.succeeded,
			    j.bytes, j.id);
			return;
		}
		if (drain_job_ended(&j)) {
			finish(d, D_FAILED, "job %s ended %s: %s (%lld units moved, %lld failed)", j.id, j.status,
			    j.message, j.succeeded, j.failed);
			return;
		}
	} else
		log_warn("drain: %s (asking again)", why);
	evtimer_add(d->poll, &tv);
}

static void
poll_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ask_job(arg);
}

static void
ask_job(struct drain *d)
{
	char path[300];
	snprintf(path, sizeof path, "/api/v1/drain_jobs/query?job_id=%s", d->job.id);
	d->req = httpc_get(d->h, path, DRAIN_REQUEST_MS, job_answered, d);
}

/* The master's id, used in a query: its own digits and dashes only. */
static int
id_ok(const char *id)
{
	return id[0] != '\0' && strspn(id, "0123456789abcdefABCDEF-") == strlen(id);
}

static void
created(const struct httpc_response *r, void *arg)
{
	struct drain *d = arg;
	char why[400];
	d->req = NULL;
	if (answered(r, "POST /api/v1/drain_jobs", why, sizeof why) != 0 ||
	    drain_job_parse(r->body, r->len, &d->job, why, sizeof why) != 0) {
		finish(d, D_FAILED, "%s", why);
		return;
	}
	if (!id_ok(d->job.id)) {
		finish(d, D_FAILED, "the master's job_id \"%.100s\" is not its usual form", d->job.id);
		return;
	}
	d->state = D_RUNNING;
	log_notice("drain: job %s created for %zu segment%s of %s (%s)", d->job.id, d->segments.n,
	    d->segments.n == 1 ? "" : "s", d->host, d->segments.v[0]);
	d->changed(d->arg);
	ask_job(d);
}

static void
listed(const struct httpc_response *r, void *arg)
{
	struct drain *d = arg;
	char why[400], *body;
	size_t total = 0;
	d->req = NULL;
	if (answered(r, "GET /get_all_segments", why, sizeof why) != 0) {
		finish(d, D_FAILED, "%s", why);
		return;
	}
	for (size_t i = 0; i < r->len; i++)
		total += r->body[i] == '\n';
	drain_segments(r->body, r->len, d->host, &d->segments);
	if (d->segments.n == 0) {
		finish(d, D_SUCCEEDED, "nothing to drain: no segment of %s among the master's %zu", d->host, total);
		return;
	}
	d->state = D_CREATING;
	body = drain_request(&d->segments);
	d->req = httpc_request(d->h, "POST", "/api/v1/drain_jobs", "application/json", body, strlen(body),
	    DRAIN_REQUEST_MS, created, d);
	free(body);
}

/* The job goes on at the master unless cancelled: cancelled (not waited for), so that its segments
 * are writable again. */
static void
cancel_job(struct drain *d)
{
	char path[300];
	if (d->job.id[0] == '\0' || !id_ok(d->job.id))
		return;
	snprintf(path, sizeof path, "/api/v1/drain_jobs/cancel?job_id=%s", d->job.id);
	httpc_cancel(d->req);
	d->req = NULL;
	httpc_request(d->h, "POST", path, NULL, "", 0, DRAIN_REQUEST_MS, cancel_sent, d);
}

static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct drain *d = arg;
	(void)fd;
	(void)what;
	cancel_job(d);
	finish(d, D_TIMED_OUT, "not done after workers.drain_timeout_ms %ld (%s, %lld units moved, %lld moving, "
	    "%lld blocked); the job is cancelled", d->cfg->workers.drain_timeout_ms,
	    d->job.status[0] ? d->job.status : state_names[d->state], d->job.succeeded, d->job.active, d->job.blocked);
}

struct drain *
drain_new(struct event_base *base, const struct cfg *cfg, struct httpc *h, const char *via, const char *host,
    drain_changed_fn changed, void *arg)
{
	struct drain *d = xcalloc(1, sizeof *d);
	d->base = base;
	d->cfg = cfg;
	d->h = h;
	d->changed = changed;
	d->arg = arg;
	snprintf(d->via, sizeof d->via, "%s", via);
	snprintf(d->host, sizeof d->host, "%s", host);
	d->poll = evtimer_new(base, poll_cb, d);
	d->deadline = evtimer_new(base, deadline_cb, d);
	return d;
}

void
drain_free(struct drain *d)
{
	if (d == NULL)
		return;
	httpc_cancel(d->req);
	event_free(d->poll);
	event_free(d->deadline);
	httpc_free(d->h);
	strv_free(&d->segments);
	free(d);
}

void
drain_start(struct drain *d)
{
	struct timeval tv = { d->cfg->workers.drain_timeout_ms / 1000, (d->cfg->workers.drain_timeout_ms % 1000) * 1000 };
	if (d->state != D_IDLE)
		return;
	d->began = mono_now();
	d->state = D_LISTING;
	log_notice("drain: moving the segments of %s elsewhere before the workers stop (through %s, at most %ld ms; "
	    "a second stop signal skips it)", d->host, d->via, d->cfg->workers.drain_timeout_ms);
	evtimer_add(d->deadline, &tv);
	d->req = httpc_get(d->h, "/get_all_segments", DRAIN_REQUEST_MS, listed, d);
}

int
drain_again(struct drain *d)
{
	if (d->state != D_IDLE && !over(d))
		return -1;
	if (over(d)) {
		strv_free(&d->segments);
		memset(&d->job, 0, sizeof d->job);
		d->why[0] = '\0';
		d->state = D_IDLE;
	}
	drain_start(d);
	return 0;
}

void
drain_skip(struct drain *d)
{
	if (d == NULL || d->state == D_IDLE || over(d))
		return;
	cancel_job(d);
	finish(d, D_SKIPPED, "skipped by a second stop signal after %.3f s (%lld units moved); the job is cancelled",
	    mono_now() - d->began, d->job.succeeded);
}

int
drain_started(const struct drain *d)
{
	return d != NULL && d->state != D_IDLE;
}

int
drain_ended(const struct drain *d)
{
	return d != NULL && over(d);
}

void
drain_info(const struct drain *d, struct drain_info *i)
{
	memset(i, 0, sizeof *i);
	i->state = state_names[d->state];
	i->via = d->via;
	i->host = d->host;
	i->why = d->why;
	i->nsegments = d->segments.n;
	i->job = d->job;
	i->seconds = d->state == D_IDLE ? 0 : (over(d) ? d->ended : mono_now()) - d->began;
}
