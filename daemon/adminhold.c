/*
 * The admin server's held requests: a long-poll (?since=<etag>) held until its route says something
 * new, a stream (?stream=1) sent an event per change; each route that changed asked once and its
 * answer rendered once for every request it concerns; a client that leaves frees its slot at once.
 */
#include "config.h"
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "admin_int.h"
#include "clock.h"
#include "query.h"
#include "sse.h"
#include "xalloc.h"

static void expire(struct request *);

void
adm_unwatch(struct request *r)
{
	if (r->eof_ev != NULL)
		event_free(r->eof_ev);
	r->eof_ev = NULL;
}

/* A suspended connection is not read by MHD: watch a long-poll ourselves, so that a client that
 * leaves frees its slot at once, not when its timeout expires. */
static void
eof_cb(evutil_socket_t fd, short what, void *arg)
{
	struct request *r = arg;
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0) {		/* a pipelined request: MHD reads it after the answer */
		adm_unwatch(r);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	adm_unwatch(r);
	expire(r);	/* only long-polls and streams are watched */
}

static void
watch(struct request *r)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL)
		return;
	r->eof_ev = event_new(r->a->p.base, ci->connect_fd, EV_READ | EV_PERSIST, eof_cb, r);
	event_add(r->eof_ev, NULL);
	if (r->stream)	/* held for minutes: a client whose machine vanished ends it within 25 s */
		httpc_keepalive_fd(ci->connect_fd);
}

static struct shared *
shared_new(const struct admin_answer *ans)
{
	struct shared *sh = xcalloc(1, sizeof *sh);
	sh->resp = adm_answer_response(ans);
	sh->code = ans->code;
	sh->users = 1;
	return sh;
}

void
adm_shared_drop(struct shared *sh)
{
	if (sh != NULL && --sh->users == 0) {
		MHD_destroy_response(sh->resp);
		free(sh);
	}
}

/* Held long-polls and streams are in lists of their own, counted together (admin.max_waiters). */
static void
held_add(struct request **head, struct request *r)
{
	r->next = *head;
	if (*head != NULL)
		(*head)->pprev = &r->next;
	r->pprev = head;
	*head = r;
	r->a->nwaiters++;
}

static void
held_del(struct request *r)
{
	if (r->pprev == NULL)
		return;
	*r->pprev = r->next;
	if (r->next != NULL)
		r->next->pprev = r->pprev;
	r->pprev = NULL;
	r->next = NULL;
	r->a->nwaiters--;
}

/* A held request is held no longer: out of its list, its deadline and its watch gone. */
void
adm_unhold(struct request *r)
{
	held_del(r);
	adm_unwatch(r);
	if (r->wait_ev != NULL)
		event_free(r->wait_ev);
	r->wait_ev = NULL;
}

static struct sse_shared *
sse_shared_new(const struct admin_answer *ans)
{
	struct sse_shared *e = xcalloc(1, sizeof *e);
	sse_event(&e->b, ans->etag, ans->body, ans->len);
	e->users = 1;
	return e;
}

void
adm_sse_drop(struct sse_shared *e)
{
	if (e != NULL && --e->users == 0) {
		buf_free(&e->b);
		free(e);
	}
}

static void
stream_wake(struct request *r)
{
	if (!r->parked)
		return;
	r->parked = 0;
	adm_mhd_resume(r);
}

/* A stream's time is up, its client left, or its route no longer answers 200: it ends once what it
 * holds is sent, and its slot is free at once. */
void
adm_stream_end(struct request *r)
{
	adm_unhold(r);
	r->ending = 1;
	stream_wake(r);
}

/* e is the newest event for r: sent after the one it is sending, if any (one it has not started is
 * dropped: a slow reader skips to the newest). */
static void
stream_push(struct request *r, struct sse_shared *e, const char *tag)
{
	adm_sse_drop(r->pending);
	r->pending = e;
	e->users++;
	snprintf(r->since, sizeof r->since, "%s", tag);
	stream_wake(r);
}

/* libmicrohttpd asks for more of a stream: the rest of its event, else the next one; with nothing
 * to send it is suspended until a push or its end resumes it. */
static ssize_t
stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct request *r = cls;
	size_t n;
	(void)pos;
	if (r->cur == NULL) {
		r->cur = r->pending;
		r->pending = NULL;
		r->off = 0;
	}
	if (r->cur == NULL) {
		if (r->ending)
			return MHD_CONTENT_READER_END_OF_STREAM;
		r->parked = 1;
		MHD_suspend_connection(r->conn);
		return 0;
	}
	n = r->cur->b.len - r->off < max ? r->cur->b.len - r->off : max;
	memcpy(buf, r->cur->b.p + r->off, n);
	r->off += n;
	if (r->off == r->cur->b.len) {
		adm_sse_drop(r->cur);
		r->cur = NULL;
	}
	return (ssize_t)n;
}

/* A held request is answered with sh, from the loop. */
static void
wake(struct request *r, struct shared *sh)
{
	adm_unhold(r);
	r->code = sh->code;
	r->shared = sh;
	sh->users++;
	adm_mhd_resume(r);
}

/* A held request whose time is up, or whose client left: answered with what its route says now. */
void
adm_wake_now(struct request *r)
{
	struct admin_answer ans;
	struct shared *sh;
	adm_ask(r->a, r->path, &ans);
	sh = shared_new(&ans);
	free(ans.body);
	wake(r, sh);
	adm_shared_drop(sh);
}

/* A held long-poll or a stream whose time is up, or whose client left. */
static void
expire(struct request *r)
{
	if (r->stream)
		adm_stream_end(r);
	else
		adm_wake_now(r);
}

static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	expire(arg);
}

/* A route that changed, looked at once in a pass of admin_changed: its tag, and its answer when one
 * of those waiting on it needs it, rendered once (as a response, as an event). */
struct changed {
	const char		*path;
	char			 tag[40];
	int			 asked;
	struct admin_answer	 ans;
	struct shared		*sh;
	struct sse_shared	*ev;
};

#define CHANGED_MAX	4

/* path's entry in k[0..*n), made when it is not there yet; NULL when k is full. */
static struct changed *
changed_of(struct admin *a, struct changed *k, size_t *n, const char *path)
{
	size_t i;
	for (i = 0; i < *n && strcmp(k[i].path, path) != 0; i++)
		;
	if (i < *n)
		return &k[i];
	if (*n == CHANGED_MAX)
		return NULL;
	memset(&k[i], 0, sizeof k[i]);
	k[i].path = path;
	if (a->p.source.tag(a->p.source.arg, path, k[i].tag, sizeof k[i].tag) != 0)
		k[i].tag[0] = '\0';
	(*n)++;
	return &k[i];
}

/* Does the route say something new to one that has since? Asked at most once per pass. */
static int
changed_for(struct admin *a, struct changed *c, const char *since)
{
	if (c->tag[0] != '\0' && strcmp(since, c->tag) == 0)
		return 0;	/* nothing new for it: no answer made */
	if (!c->asked) {
		adm_ask(a, c->path, &c->ans);
		c->asked = 1;
	}
	return strcmp(since, c->ans.etag) != 0;
}

/* The held requests of one list whose route changed: a long-poll is answered, a stream sent an
 * event (or ended, when its route no longer answers 200: its reader asks again, and hears it). */
static void
changed_list(struct admin *a, struct request *list, struct changed *k, size_t *n)
{
	struct changed *c;
	struct request *r, *next;
	for (r = list; r != NULL; r = next) {
		next = r->next;
		if ((c = changed_of(a, k, n, r->path)) == NULL) {
			expire(r);
			continue;
		}
		if (!changed_for(a, c, r->since))
			continue;
		if (!r->stream) {
			if (c->sh == NULL)
				c->sh = shared_new(&c->ans);
			wake(r, c->sh);
		} else if (c->ans.code != MHD_HTTP_OK)
			adm_stream_end(r);
		else {
			if (c->ev == NULL)
				c->ev = sse_shared_new(&c->ans);
			stream_push(r, c->ev, c->ans.etag);
		}
	}
}

/* Each route waited on is asked once, and its answer, rendered once (as a response, as an event),
 * goes to every request whose tag it changes, in this loop pass. */
void
admin_changed(struct admin *a)
{
	struct changed k[CHANGED_MAX];
	size_t n = 0, i;
	if (a == NULL)
		return;
	changed_list(a, a->waiters, k, &n);
	changed_list(a, a->streams, k, &n);
	for (i = 0; i < n; i++) {
		if (k[i].asked)
			free(k[i].ans.body);
		adm_shared_drop(k[i].sh);
		adm_sse_drop(k[i].ev);
	}
}

/* r held on list until ?timeout_ms= (25 s unless given, at most max_ms), a change, or its client
 * leaving (watched). */
void
adm_hold(struct request *r, struct request **list, long max_ms)
{
	char tbuf[24];
	struct timeval tv = ms_tv(query_ms(adm_own_arg(r, "timeout_ms", tbuf, sizeof tbuf), 25000, max_ms));
	r->wait_ev = evtimer_new(r->a->p.base, wait_cb, r);
	evtimer_add(r->wait_ev, &tv);
	held_add(list, r);
	watch(r);
}

/* An open stream is a client still there: its query is told again every ADMIN_STREAM_HEARD_MS, as
 * if it had asked again (a stream lasts minutes; what the source keeps of a client may expire
 * sooner). One timer for all of them, running while any is open. */
void
adm_heard_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	struct timeval tv = ms_tv(ADMIN_STREAM_HEARD_MS);
	if (a->streams == NULL)
		return;
	for (struct request *r = a->streams; r != NULL; r = r->next)
		adm_tell(r, r->path, 1);
	evtimer_add(a->heard_ev, &tv);
}

/* ?stream=1 on a route with an ETag: answered 200 with an event stream, an event for the answer now
 * unless it is what ?since= names, then one per change until ?timeout_ms= (or the client leaves,
 * or the route stops answering 200). 1 when r is not such a request, for the caller to answer. */
int
adm_stream_start(struct request *r, const char *url, const char *since, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	struct admin_answer ans;
	struct MHD_Response *m;
	struct sse_shared *first = NULL;
	char tag[40], sbuf[8];
	const char *v = adm_own_arg(r, "stream", sbuf, sizeof sbuf);
	if (v == NULL || strcmp(v, "1") != 0 || a->p.source.tag(a->p.source.arg, url, tag, sizeof tag) != 0)
		return 1;
	if (a->nwaiters >= a->p.cfg->admin.max_waiters) {
		*ret = adm_busy_answer(r);
		return 0;
	}
	if (since == NULL || strcmp(since, tag) != 0) {
		if (adm_ask(a, url, &ans) != 0)
			return 1;
		if (ans.code != MHD_HTTP_OK) {	/* nothing to stream yet: answered as it is */
			r->route = r->path;
			*ret = adm_answer_now(r, &ans);
			return 0;
		}
		first = sse_shared_new(&ans);
		snprintf(r->since, sizeof r->since, "%s", ans.etag);
		free(ans.body);
	} else
		snprintf(r->since, sizeof r->since, "%s", since);
	r->route = r->path;
	r->code = MHD_HTTP_OK;
	r->stream = 1;
	r->pending = first;
	adm_hold(r, &a->streams, ADMIN_STREAM_MAX_MS);
	if (!evtimer_pending(a->heard_ev, NULL)) {
		struct timeval hv = ms_tv(ADMIN_STREAM_HEARD_MS);
		evtimer_add(a->heard_ev, &hv);
	}
	m = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, ADMIN_STREAM_BLOCK, stream_read, r, NULL);
	MHD_add_response_header(m, MHD_HTTP_HEADER_CONTENT_TYPE, SSE_CTYPE);
	MHD_add_response_header(m, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	*ret = MHD_queue_response(r->conn, MHD_HTTP_OK, m);
	MHD_destroy_response(m);
	return 0;
}
