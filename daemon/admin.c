/*
 * The admin HTTP server: libmicrohttpd in external epoll mode, its epoll fd and timeout driven by the
 * sidecar's libevent loop (no MHD threads). Proxied routes suspend the MHD connection while the
 * upstream request runs on the same loop, so a slow master never delays the other routes.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sysexits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include <jansson.h>
#include "admin.h"
#include "prom.h"
#include "auth.h"
#include "basic.h"
#include "buf.h"
#include "clock.h"
#include "counters.h"
#include "httpc.h"
#include "httpresp.h"
#include "log.h"
#include "query.h"
#include "sse.h"
#include "tls.h"
#include "xalloc.h"

#define ADMIN_MEMORY_LIMIT	8192	/* request line and headers */
#define ADMIN_IDLE_TIMEOUT_S	10
#define ADMIN_STREAM_MAX_MS	3600000	/* ?timeout_ms= of a stream, at most (a long-poll: 60000) */
#define ADMIN_STREAM_HEARD_MS	10000	/* each open stream's query told to the source again this often */
#define ADMIN_STREAM_BLOCK	4096	/* a stream's buffer, per held stream: an endpoints.json event is under 1 KB; a larger one goes out in pieces */
/* admin.busy_poll_us polls only while at most this many admin connections are open: with more
 * (clients in parallel) the loop seldom sleeps anyway, and polling would take the CPU from them and
 * from the master. */
#define ADMIN_BUSY_POLL_CONNECTIONS	2
#define PROXY_POOL		64		/* connections to the master's admin port */
#define PROXY_MAX_BODY		(16 * 1024 * 1024)

/* Every GET route of the master's admin API but /metrics (which the sidecar's own /metrics
 * carries), forwarded with the query as the client sent it. Those after the first NULL list keys,
 * segments, tenants or jobs of the whole store: debug routes, 404 unless admin.debug_routes. */
static const char *const proxied[] = {
	"/health", "/role", "/leader", "/ha_status", "/metrics/summary", "/kv_events/status", NULL,
	"/query_key", "/batch_query_keys", "/get_all_keys", "/get_all_segments", "/get_segments_detail",
	"/query_segment", "/api/v1/drain_jobs/query", "/api/v1/segments/status", "/api/v1/tenant_quotas",
	NULL
};

/* The master's mutating routes: proxied with their body only when admin.write_routes is on (and
 * admin.auth is configured, which -n checks); never public. */
struct write_route {
	const char	*method, *path;
};
static const struct write_route write_routes[] = {
	{ "POST", "/api/v1/drain_jobs" },
	{ "POST", "/api/v1/drain_jobs/cancel" },
	{ "PUT", "/api/v1/tenant_quotas" },
	{ "DELETE", "/api/v1/tenant_quotas" },
	{ "POST", "/api/v1/remove_all" },
};
#define WRITE_MAX_BODY	(1024 * 1024)

static const struct write_route *
write_route_of(const char *method, const char *url)
{
	size_t n = strcspn(url, "?");
	for (size_t i = 0; i < sizeof write_routes / sizeof write_routes[0]; i++)
		if (strcmp(method, write_routes[i].method) == 0 && strlen(write_routes[i].path) == n &&
		    strncmp(url, write_routes[i].path, n) == 0)
			return &write_routes[i];
	return NULL;
}

struct request;

struct admin {
	struct admin_params	 p;
	struct MHD_Daemon	*mhd;
	struct event		*io;
	struct event		*timer;
	double			timer_at;	/* when it fires, on mono_now(), while pending */
	struct event		*kick;		/* one MHD_run after all resumes of a loop pass */
	struct event		*heard_ev;	/* heard_cb, while streams are open */
	int			 closing;	/* admin_free: nothing is suspended any more */
	struct basic		*basic;		/* admin.auth.basic_auth_users, or NULL */
	int			 lfd;		/* the listening socket: accepted here, handed to MHD */
	struct event		*accept_ev;
	struct event		*accept_pause;	/* re-arms accept after the fd limit was hit */
	int			 paused;
	struct httpc		*proxy;		/* the master's admin port */
	struct request		*suspended;	/* list of requests waiting for the upstream */
	struct request		*waiters;	/* /endpoints long-polls */
	struct request		*streams;	/* and its streams (?stream=1) */
	long			 nwaiters;	/* both: admin.max_waiters bounds them together */
	struct flight		*flights;	/* upstream GETs in flight, shared by identical requests */
	unsigned long		 coalesced;	/* requests answered by another's upstream GET */
	double			 answered_at;	/* admin.busy_poll_us: when the last answer went out */
	int			 hot;		/* the last request came within busy_poll_us of it */
};

/* admin.busy_poll_us, in seconds as mono_now() counts */
static double
busy_poll_s(const struct admin *a)
{
	return (double)a->p.cfg->admin.busy_poll_us / 1e6;
}

/* One upstream GET and every request waiting for its answer: a request for the same path (and
 * query) that arrives while it is in flight joins it instead of sending its own, so that a
 * scrape storm costs the master one request, and no answer is older than one round trip. */
struct flight {
	struct admin		*a;
	char			*path;
	httpc_cb		 cb;		/* what each waiter does with the answer */
	struct httpc_req	*up;
	struct request		*waiters;
	struct flight		*next;
};

/* One answer to many held requests (a publish wakes every follower's long-poll): rendered and copied
 * once, queued on each connection; freed when the last of them is done with it. */
struct shared {
	struct MHD_Response	*resp;
	int			 code;
	int			 users;		/* the requests holding it, and its maker until it is handed out */
};

/* One event of a streamed route, framed once and written to every stream it concerns; freed when
 * the last of them has sent it. */
struct sse_shared {
	struct buf		 b;
	int			 users;
};

struct request {
	struct admin		*a;
	struct MHD_Connection	*conn;
	const char		*route;
	char			*path;		/* the request's path, decoded */
	int			 code;
	struct MHD_Response	*resp;		/* ready to queue after a resume */
	struct shared		*shared;	/* or this one, shared with others */
	struct httpc_req	*up;
	struct buf		 own;		/* /metrics: the sidecar's part */
	const struct write_route *write;	/* one of the master's mutating routes */
	struct buf		 body;		/* its body, as it arrives */
	int			 too_large;	/* more than WRITE_MAX_BODY of it */
	struct event		*wait_ev;	/* /endpoints long-poll deadline */
	struct event		*eof_ev;	/* while suspended: has the client gone? */
	struct basic_req	*auth_req;	/* a basic-auth password being checked */
	char			 since[40];	/* held: the tag it has; a stream: the last one it was sent */
	int			 stream;	/* ?stream=1: an event per change until its deadline */
	int			 parked;	/* a stream with nothing to send: suspended in its reader */
	int			 ending;	/* a stream that ends once what it holds is sent */
	struct sse_shared	*cur, *pending;	/* the event being sent, and the newest one after it */
	size_t			 off;		/* of cur, sent */
	struct request		*next;
	struct request		**pprev;	/* where the waiters list points at it (O(1) removal) */
	struct flight		*flight;	/* the upstream GET it waits for */
	struct request		*fnext;		/* in its flight's waiters */
};


static struct admin_upstream
upstream(const struct admin *a)
{
	struct admin_upstream u = { "absent", 0, 0, 0 };
	a->p.source.upstream(a->p.source.arg, &u);
	return u;
}

static struct MHD_Response *
make_response(const char *ctype, const void *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	return r;
}

/* 401: the schemes admin.auth accepts. */
static void
challenge(const struct admin *a, struct MHD_Response *resp)
{
	if (a->p.token[0] != '\0')
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"mooncake-sidecar\"");
	if (a->basic != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"mooncake-sidecar\"");
}

static enum MHD_Result
respond(struct request *r, int code, const char *ctype, const char *body, size_t len)
{
	struct MHD_Response *resp = make_response(ctype, body, len);
	enum MHD_Result ret;
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_UNAUTHORIZED)
		challenge(r->a, resp);
	r->code = code;
	ret = MHD_queue_response(r->conn, (unsigned)code, resp);
	MHD_destroy_response(resp);
	return ret;
}


/* A JSON error body: {"error": msg, "state": <master state>}. */
static char *
error_json(const struct admin *a, const char *msg)
{
	json_t *o = json_pack("{s:s, s:s}", "error", msg, "state", upstream(a).state);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static enum MHD_Result
respond_error(struct request *r, int code, const char *msg)
{
	char *s = error_json(r->a, msg);
	enum MHD_Result ret = respond(r, code, "application/json", s, strlen(s));
	free(s);
	return ret;
}

/* 503 with Retry-After: 1, for a limit that frees up soon; busy: the limit is admin.max_waiters,
 * which another sidecar polling this one is told (HTTPRESP_BUSY) so that it comes back within
 * milliseconds instead of taking it for a master that is down. */
static enum MHD_Result
respond_retry_later(struct request *r, const char *msg, int busy)
{
	char *e = error_json(r->a, msg);
	struct MHD_Response *m = make_response("application/json", e, strlen(e));
	enum MHD_Result ret;
	free(e);
	MHD_add_response_header(m, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (busy)
		MHD_add_response_header(m, HTTPRESP_BUSY, "admin.max_waiters");
	r->code = MHD_HTTP_SERVICE_UNAVAILABLE;
	ret = MHD_queue_response(r->conn, MHD_HTTP_SERVICE_UNAVAILABLE, m);
	MHD_destroy_response(m);
	return ret;
}

static void expire(struct request *);

static void
unwatch(struct request *r)
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
		unwatch(r);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	unwatch(r);
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

static void
suspend(struct request *r)
{
	MHD_suspend_connection(r->conn);
	r->next = r->a->suspended;
	r->a->suspended = r;
	/* not watched: a proxied request ends within admin.upstream_timeout_ms anyway, and a watch
	 * would cost two epoll_ctl calls per request */
}

/* A suspended connection goes on, in one MHD_run after every resume of this loop pass. */
static void
mhd_resume(struct request *r)
{
	MHD_resume_connection(r->conn);
	event_active(r->a->kick, EV_TIMEOUT, 0);
}

static void
resume(struct request *r, int code, struct MHD_Response *resp)
{
	struct request **pp;
	for (pp = &r->a->suspended; *pp != NULL && *pp != r; pp = &(*pp)->next)
		;
	if (*pp == r)
		*pp = r->next;
	unwatch(r);
	r->up = NULL;
	r->code = code;
	r->resp = resp;
	mhd_resume(r);
}

static void
proxy_done(const struct httpc_response *pr, void *arg)
{
	struct request *r = arg;
	struct admin *a = r->a;
	struct MHD_Response *resp;
	int code;
	char msg[512];

	counters_observe(OP_PROXY, pr->outcome == HTTPC_OK ? ST_OK :
	    pr->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR, pr->seconds);
	if (pr->outcome == HTTPC_OK) {
		code = pr->status;
		resp = make_response(pr->content_type ? pr->content_type : "text/plain", pr->body,
		    pr->len);
		MHD_add_response_header(resp, "X-Mooncake-Sidecar-Upstream", httpc_upstream(a->proxy));
	} else {
		char *s;
		code = pr->outcome == HTTPC_TIMEOUT ? MHD_HTTP_GATEWAY_TIMEOUT : MHD_HTTP_BAD_GATEWAY;
		if (pr->outcome == HTTPC_TIMEOUT)
			snprintf(msg, sizeof msg, "the master did not answer within %ld ms",
			    a->p.cfg->admin.upstream_timeout_ms);
		else if (pr->outcome == HTTPC_TOO_LARGE)
			snprintf(msg, sizeof msg, "the master's answer is larger than %d bytes",
			    PROXY_MAX_BODY);
		else if (pr->outcome == HTTPC_BAD_RESPONSE)
			snprintf(msg, sizeof msg, "the master's admin port %s sent a bad answer: %s",
			    httpc_upstream(a->proxy), pr->detail);
		else if (pr->outcome == HTTPC_LOCAL)
			snprintf(msg, sizeof msg, "the sidecar cannot open a connection: %s", pr->detail);
		else
			snprintf(msg, sizeof msg, "cannot reach the master's admin port %s: %s",
			    httpc_upstream(a->proxy), pr->detail);
		s = error_json(a, msg);
		resp = make_response("application/json", s, strlen(s));
		free(s);
	}
	resume(r, code, resp);
}

static const char *const master_label[] = { "target", "master", NULL };

static void
metrics_done(const struct httpc_response *pr, void *arg)
{
	struct request *r = arg;
	counters_observe(OP_PROXY, pr->outcome == HTTPC_OK ? ST_OK :
	    pr->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR, pr->seconds);
	/* This scrape of the master, as exporters report theirs; then the master's families, unchanged,
	 * when it answers; the sidecar's own always. */
	prom_family(&r->own, "mooncake_sidecar_upstream_scrape_duration_seconds",
	    "How long this scrape waited for the master's /metrics (admin.metrics_timeout_ms at most).", "gauge");
	prom_sample(&r->own, "mooncake_sidecar_upstream_scrape_duration_seconds", master_label, pr->seconds);
	prom_family(&r->own, "mooncake_sidecar_upstream_scrape_up",
	    "1 when this scrape got the master's /metrics (its families follow), 0 when not.", "gauge");
	prom_sample(&r->own, "mooncake_sidecar_upstream_scrape_up", master_label,
	    pr->outcome == HTTPC_OK && pr->status == 200);
	if (pr->outcome == HTTPC_OK && pr->status == 200) {
		buf_add(&r->own, pr->body, pr->len);
		if (pr->len > 0 && pr->body[pr->len - 1] != '\n')
			buf_puts(&r->own, "\n");
	}
	resume(r, 200, make_response("text/plain; version=0.0.4; charset=utf-8", r->own.p, r->own.len));
}

static void
flight_free(struct flight *f)
{
	struct flight **pp;
	for (pp = &f->a->flights; *pp != NULL && *pp != f; pp = &(*pp)->next)
		;
	if (*pp == f)
		*pp = f->next;
	free(f->path);
	free(f);
}

static void
flight_done(const struct httpc_response *pr, void *arg)
{
	struct flight *f = arg;
	struct request *r = f->waiters, *next;
	f->up = NULL;
	f->waiters = NULL;
	for (; r != NULL; r = next) {
		next = r->fnext;
		r->flight = NULL;
		r->fnext = NULL;
		f->cb(pr, r);
	}
	flight_free(f);
}

/* Send GET path upstream for r, or join the identical one in flight. */
static void
upstream_get(struct request *r, const char *path, long timeout_ms, httpc_cb cb)
{
	struct admin *a = r->a;
	struct flight *f;
	for (f = a->flights; f != NULL; f = f->next)
		if (f->cb == cb && strcmp(f->path, path) == 0)
			break;
	if (f != NULL)
		a->coalesced++;
	else {
		f = xcalloc(1, sizeof *f);
		f->a = a;
		f->path = xstrdup(path);
		f->cb = cb;
		f->next = a->flights;
		a->flights = f;
		f->up = httpc_get(a->proxy, path, timeout_ms, flight_done, f);
	}
	r->flight = f;
	r->fnext = f->waiters;
	f->waiters = r;
}

/* A waiting request whose client left: out of its flight; the last one out cancels the GET. */
static void
flight_leave(struct request *r)
{
	struct flight *f = r->flight;
	struct request **pp;
	if (f == NULL)
		return;
	for (pp = &f->waiters; *pp != NULL && *pp != r; pp = &(*pp)->fnext)
		;
	if (*pp == r)
		*pp = r->fnext;
	r->flight = NULL;
	if (f->waiters == NULL) {
		httpc_cancel(f->up);
		flight_free(f);
	}
}

int
admin_port(const struct admin *a)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(a->lfd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);
}

unsigned long
admin_coalesced(const struct admin *a)
{
	return a ? a->coalesced : 0;
}

long
admin_long_polls(const struct admin *a)
{
	return a ? a->nwaiters : 0;
}


struct query {
	struct buf	b;
	int		bad;
};

/* Forward every query argument as it came, in its order; a control character, decoded or not,
 * or a malformed escape makes the request a 400. */
static enum MHD_Result
query_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct query *q = cls;
	buf_puts(&q->b, q->b.len ? "&" : "?");
	if (query_forward(&q->b, key, klen) != 0 ||
	    (val != NULL && (buf_puts(&q->b, "="), query_forward(&q->b, val, vlen)) != 0)) {
		q->bad = 1;
		return MHD_NO;
	}
	return MHD_YES;
}

/* A query argument of the sidecar's own routes, decoded into buf; NULL when absent or too long. */
static const char *
own_arg(struct request *r, const char *key, char *buf, size_t len)
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
	if (v == NULL || strlen(v) >= len)
		return NULL;
	memcpy(buf, v, strlen(v) + 1);
	query_unescape(buf);
	return buf;
}

/* A response from one of the source's answers (its body copied), with its ETag and Retry-After. */
static struct MHD_Response *
answer_response(const struct admin_answer *ans)
{
	struct MHD_Response *m = make_response(ans->ctype, ans->body, ans->len);
	if (ans->etag[0] != '\0')
		MHD_add_response_header(m, MHD_HTTP_HEADER_ETAG, ans->etag);
	if (ans->retry_after != NULL)
		MHD_add_response_header(m, MHD_HTTP_HEADER_RETRY_AFTER, ans->retry_after);
	return m;
}

/* The source's answer for path: 0, or -1 when it has no such route. */
static int
ask(const struct admin *a, const char *path, struct admin_answer *ans)
{
	memset(ans, 0, sizeof *ans);
	ans->ctype = "text/plain; charset=utf-8";
	return a->p.source.answer(a->p.source.arg, path, ans);
}

static struct shared *
shared_new(const struct admin_answer *ans)
{
	struct shared *sh = xcalloc(1, sizeof *sh);
	sh->resp = answer_response(ans);
	sh->code = ans->code;
	sh->users = 1;
	return sh;
}

static void
shared_drop(struct shared *sh)
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
static void
unhold(struct request *r)
{
	held_del(r);
	unwatch(r);
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

static void
sse_shared_drop(struct sse_shared *e)
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
	mhd_resume(r);
}

/* A stream's time is up, its client left, or its route no longer answers 200: it ends once what it
 * holds is sent, and its slot is free at once. */
static void
stream_end(struct request *r)
{
	unhold(r);
	r->ending = 1;
	stream_wake(r);
}

/* e is the newest event for r: sent after the one it is sending, if any (one it has not started is
 * dropped: a slow reader skips to the newest). */
static void
stream_push(struct request *r, struct sse_shared *e, const char *tag)
{
	sse_shared_drop(r->pending);
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
		sse_shared_drop(r->cur);
		r->cur = NULL;
	}
	return (ssize_t)n;
}

/* A held request is answered with sh, from the loop. */
static void
wake(struct request *r, struct shared *sh)
{
	unhold(r);
	r->code = sh->code;
	r->shared = sh;
	sh->users++;
	mhd_resume(r);
}

/* A held request whose time is up, or whose client left: answered with what its route says now. */
static void
wake_now(struct request *r)
{
	struct admin_answer ans;
	struct shared *sh;
	ask(r->a, r->path, &ans);
	sh = shared_new(&ans);
	free(ans.body);
	wake(r, sh);
	shared_drop(sh);
}

/* A held long-poll or a stream whose time is up, or whose client left. */
static void
expire(struct request *r)
{
	if (r->stream)
		stream_end(r);
	else
		wake_now(r);
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
		ask(a, c->path, &c->ans);
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
			stream_end(r);
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
		shared_drop(k[i].sh);
		sse_shared_drop(k[i].ev);
	}
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *val)
{
	struct kvlist *l = cls;
	char *k = xstrdup(key), *v = xstrdup(val ? val : "");
	(void)kind;
	query_unescape(k);
	query_unescape(v);
	if (!query_has_control(k, strlen(k)) && !query_has_control(v, strlen(v)))
		kvlist_set(l, k, v);
	free(k);
	free(v);
	return MHD_YES;
}

/* The query of a request to one of the source's routes, told to it (again: of a stream still open). */
static void
tell(struct request *r, const char *url, int again)
{
	struct kvlist args = { 0 };
	if (r->a->p.source.heard == NULL || MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, NULL, NULL) == 0)
		return;
	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	r->a->p.source.heard(r->a->p.source.arg, url, &args, again);
	kvlist_clear(&args);
}

static enum MHD_Result busy_answer(struct request *);

/* ans, answered now; its body freed. */
static enum MHD_Result
answer_now(struct request *r, struct admin_answer *ans)
{
	struct MHD_Response *m = answer_response(ans);
	enum MHD_Result ret;
	r->code = ans->code;
	ret = MHD_queue_response(r->conn, (unsigned)ans->code, m);
	MHD_destroy_response(m);
	free(ans->body);
	return ret;
}

/* r held on list until ?timeout_ms= (25 s unless given, at most max_ms), a change, or its client
 * leaving (watched). */
static void
hold(struct request *r, struct request **list, long max_ms)
{
	char tbuf[24];
	struct timeval tv = ms_tv(query_ms(own_arg(r, "timeout_ms", tbuf, sizeof tbuf), 25000, max_ms));
	r->wait_ev = evtimer_new(r->a->p.base, wait_cb, r);
	evtimer_add(r->wait_ev, &tv);
	held_add(list, r);
	watch(r);
}

/* An open stream is a client still there: its query is told again every ADMIN_STREAM_HEARD_MS, as
 * if it had asked again (a stream lasts minutes; what the source keeps of a client may expire
 * sooner). One timer for all of them, running while any is open. */
static void
heard_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	struct timeval tv = ms_tv(ADMIN_STREAM_HEARD_MS);
	if (a->streams == NULL)
		return;
	for (struct request *r = a->streams; r != NULL; r = r->next)
		tell(r, r->path, 1);
	evtimer_add(a->heard_ev, &tv);
}

/* ?stream=1 on a route with an ETag: answered 200 with an event stream, an event for the answer now
 * unless it is what ?since= names, then one per change until ?timeout_ms= (or the client leaves,
 * or the route stops answering 200). 1 when r is not such a request, for the caller to answer. */
static int
stream_start(struct request *r, const char *url, const char *since, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	struct admin_answer ans;
	struct MHD_Response *m;
	struct sse_shared *first = NULL;
	char tag[40], sbuf[8];
	const char *v = own_arg(r, "stream", sbuf, sizeof sbuf);
	if (v == NULL || strcmp(v, "1") != 0 || a->p.source.tag(a->p.source.arg, url, tag, sizeof tag) != 0)
		return 1;
	if (a->nwaiters >= a->p.cfg->admin.max_waiters) {
		*ret = busy_answer(r);
		return 0;
	}
	if (since == NULL || strcmp(since, tag) != 0) {
		if (ask(a, url, &ans) != 0)
			return 1;
		if (ans.code != MHD_HTTP_OK) {	/* nothing to stream yet: answered as it is */
			r->route = r->path;
			*ret = answer_now(r, &ans);
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
	hold(r, &a->streams, ADMIN_STREAM_MAX_MS);
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

static enum MHD_Result
busy_answer(struct request *r)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%ld long-polls are waiting already (admin.max_waiters); retry later",
	    r->a->nwaiters);
	return respond_retry_later(r, msg, 1);
}

/* One of the source's own routes: answered now, or held until its ETag differs from ?since=. */
static enum MHD_Result
own_route(struct request *r, const char *url)
{
	struct admin *a = r->a;
	struct admin_answer ans;
	char sbuf[64], tag[40];
	const char *since = own_arg(r, "since", sbuf, sizeof sbuf);
	enum MHD_Result ret;
	tell(r, url, 0);
	if (stream_start(r, url, since, &ret) == 0)
		return ret;
	/* a long-poll for what is already known is held without an answer being made */
	if (since != NULL && a->p.source.tag(a->p.source.arg, url, tag, sizeof tag) == 0 && strcmp(since, tag) == 0) {
		r->route = r->path;
		goto held;
	}
	if (ask(a, url, &ans) != 0) {
		json_t *o = json_pack("{s:s, s:s}", "error", "not found", "path", url);
		char *s = json_dumps(o, JSON_COMPACT);
		r->route = "other";
		ret = respond(r, MHD_HTTP_NOT_FOUND, "application/json", s, strlen(s));
		json_decref(o);
		free(s);
		return ret;
	}
	r->route = r->path;
	if (since != NULL && ans.etag[0] != '\0' && strcmp(since, ans.etag) == 0) {
		free(ans.body);
held:
		if (a->nwaiters >= a->p.cfg->admin.max_waiters)
			return busy_answer(r);
		snprintf(r->since, sizeof r->since, "%s", since);
		MHD_suspend_connection(r->conn);
		hold(r, &a->waiters, 60000);
		return MHD_YES;
	}
	return answer_now(r, &ans);
}

/* A request to pass on to the master: url with the query exactly as the client sent it. NULL when
 * it has been answered instead (a bad query, no master running). The caller sends it, then
 * suspends r for the answer: the request leaves before libmicrohttpd's epoll_ctl of the suspend. */
static char *
upstream_path(struct request *r, const char *url, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	struct query q = { { NULL, 0, 0 }, 0 };
	struct buf path = { NULL, 0, 0 };
	MHD_get_connection_values_n(r->conn, MHD_GET_ARGUMENT_KIND, query_arg, &q);
	if (q.bad) {
		buf_free(&q.b);
		*ret = respond_error(r, MHD_HTTP_BAD_REQUEST, "control character or malformed percent-encoding in the query");
		return NULL;
	}
	struct admin_upstream u = upstream(a);
	if (!u.running) {
		buf_free(&q.b);
		*ret = respond_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, u.here ? "the master is not running" :
		    "no master runs on this node");
		return NULL;
	}
	buf_grow(&path, strlen(url) + q.b.len);
	buf_puts(&path, url);
	if (q.b.len > 0)
		buf_add(&path, q.b.p, q.b.len);
	buf_free(&q.b);
	*ret = MHD_YES;
	return buf_take(&path, NULL);
}

static enum MHD_Result
route(struct request *r, const char *url)
{
	struct admin *a = r->a;
	enum MHD_Result ret;
	char *path;

	/* one of the master's mutating routes, with its body and Content-Type, sent once */
	if (r->write != NULL) {
		r->route = r->write->path;
		if (r->too_large)
			return respond_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "bodies of the master's mutating routes "
			    "are accepted up to 1 MiB");
		if ((path = upstream_path(r, url, &ret)) != NULL) {
			r->up = httpc_request(a->proxy, r->write->method, path, MHD_lookup_connection_value(r->conn,
			    MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE), r->body.p, r->body.len, 0, proxy_done, r);
			suspend(r);
		}
		free(path);
		return ret;
	}
	for (size_t i = 0; i < sizeof proxied / sizeof proxied[0]; i++) {
		if (proxied[i] == NULL && !a->p.cfg->admin.debug_routes)
			break;		/* the debug routes follow the first NULL */
		if (proxied[i] == NULL || strcmp(url, proxied[i]) != 0)
			continue;
		r->route = proxied[i];
		if ((path = upstream_path(r, url, &ret)) != NULL) {
			upstream_get(r, path, 0, proxy_done);
			suspend(r);
		}
		free(path);
		return ret;
	}
	if (strcmp(url, "/metrics") == 0) {
		struct admin_answer own;
		struct admin_upstream u = upstream(a);
		r->route = "/metrics";
		ask(a, url, &own);
		buf_add(&r->own, own.body, own.len);
		free(own.body);
		/* A master whose admin port failed its last probe is not waited for at all. */
		if (!u.running || !u.metrics)
			return respond(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", r->own.p,
			    r->own.len);
		upstream_get(r, "/metrics", a->p.cfg->admin.metrics_timeout_ms, metrics_done);
		suspend(r);
		return MHD_YES;
	}
	return own_route(r, url);
}

static const char unauthorized_msg[] = "this route needs credentials (admin.auth): \"Authorization: Bearer "
    "<token>\" or \"Basic\" with a user of basic_auth_users";

/* A basic-auth password was checked (on the bcrypt thread): route the request, or answer 401. */
static void
basic_done(int ok, void *arg)
{
	struct request *r = arg;
	struct MHD_Response *resp = NULL;
	r->auth_req = NULL;
	if (!ok) {
		char *s = error_json(r->a, unauthorized_msg);
		resp = make_response("application/json", s, strlen(s));
		free(s);
		challenge(r->a, resp);
		r->route = "unauthorized";
	}
	resume(r, ok ? 0 : MHD_HTTP_UNAUTHORIZED, resp);
}

/* admin.auth on a route that is not public: the bearer token now, a basic-auth password once the
 * bcrypt thread has checked it (or at once when it passed before). */
static enum MHD_Result
authorize(struct request *r, const char *header)
{
	char user[256], pass[512];
	int rc;
	if (r->a->p.token[0] != '\0' && auth_bearer_ok(header, r->a->p.token))
		return MHD_YES;
	if (r->a->basic == NULL || auth_basic_parse(header, user, sizeof user, pass, sizeof pass) != 0) {
		r->route = "unauthorized";
		return respond_error(r, MHD_HTTP_UNAUTHORIZED, unauthorized_msg);
	}
	rc = basic_check(r->a->basic, user, pass, basic_done, r, &r->auth_req);
	explicit_bzero(pass, sizeof pass);
	if (rc == BASIC_OK)
		return MHD_YES;
	if (rc == BASIC_BUSY)
		return respond_retry_later(r, "too many passwords are being checked (admin.auth.basic_auth_users); "
		    "retry later", 0);
	suspend(r);
	return MHD_YES;
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct request *r = *con_cls;
	const char *cl, *te;

	if (r == NULL) {
		struct admin *a = cls;
		if (a->p.cfg->admin.busy_poll_us > 0)
			a->hot = mono_now() - a->answered_at <= busy_poll_s(a);
		r = xcalloc(1, sizeof *r);
		r->a = a;
		r->conn = conn;
		r->route = "other";
		*con_cls = r;
		/* mutual TLS: a client certificate the client CA signed, on every route */
		if (r->a->p.tls->ca != NULL) {
			const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
			    MHD_CONNECTION_INFO_GNUTLS_SESSION);
			char why[300], msg[400];
			if (tls_client_verified(ci != NULL ? ci->tls_session : NULL, why, sizeof why) != 0) {
				snprintf(msg, sizeof msg, "admin.tls.client_ca_file: %s", why);
				r->route = "forbidden";
				return respond_error(r, MHD_HTTP_FORBIDDEN, msg);
			}
		}
		/* Errors answer at once (and the connection closes, as MHD does for early answers);
		 * a good request is routed on the next call, once MHD holds all of it, so that the
		 * connection stays alive. */
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
			r->write = r->a->p.cfg->admin.write_routes ? write_route_of(method, url) : NULL;
			if (r->write == NULL)
				return respond_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, r->a->p.cfg->admin.write_routes ?
				    "only GET and HEAD, and the master's mutating routes with their methods" :
				    "only GET and HEAD are allowed (admin.write_routes is off)");
		}
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
		if (r->write == NULL && ((cl != NULL && strtol(cl, NULL, 10) != 0) || te != NULL))
			return respond_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted");
		if (r->write != NULL && cl != NULL && strtoll(cl, NULL, 10) > WRITE_MAX_BODY)
			return respond_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "bodies of the master's mutating routes "
			    "are accepted up to 1 MiB");
		/* libmicrohttpd leaves the path and query as they came (see unescape()) */
		r->path = xstrdup(url);
		query_unescape(r->path);
		if (query_has_control(r->path, strlen(r->path)))
			return respond_error(r, MHD_HTTP_BAD_REQUEST,
			    "control character or malformed percent-encoding in the path");
		if ((r->a->p.token[0] != '\0' || r->a->basic != NULL) &&
		    (r->write != NULL || !auth_public(r->path, r->a->p.cfg->admin.public_routes)))
			return authorize(r, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			    MHD_HTTP_HEADER_AUTHORIZATION));
		return MHD_YES;
	}
	if (r->resp != NULL) {
		enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->code, r->resp);
		MHD_destroy_response(r->resp);
		r->resp = NULL;
		return ret;
	}
	if (r->shared != NULL) {
		enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->code, r->shared->resp);
		shared_drop(r->shared);
		r->shared = NULL;
		return ret;
	}
	if (*upload_size != 0) {
		if (r->write != NULL && !r->too_large && r->body.len + *upload_size <= WRITE_MAX_BODY)
			buf_add(&r->body, upload_data, *upload_size);
		else if (r->write != NULL)
			r->too_large = 1;
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->up != NULL || r->wait_ev != NULL || r->auth_req != NULL)
		return MHD_YES;
	/* a request that arrives (or follows on a kept-alive connection) while the server closes is
	 * answered at once: libmicrohttpd cannot be stopped with a connection suspended */
	if (r->a->closing)
		return respond_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the sidecar is stopping");
	return route(r, r->path);
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode tc)
{
	struct request *r = *con_cls;
	if (r == NULL)
		return;
	if (r->a->p.cfg->admin.busy_poll_us > 0)
		r->a->answered_at = mono_now();
	counters_http(r->route, r->code);
	basic_cancel(r->auth_req);
	httpc_cancel(r->up);
	flight_leave(r);
	unhold(r);
	sse_shared_drop(r->cur);
	sse_shared_drop(r->pending);
	if (r->resp != NULL)
		MHD_destroy_response(r->resp);
	shared_drop(r->shared);
	buf_free(&r->own);
	buf_free(&r->body);
	free(r->path);
	free(r);
	*con_cls = NULL;
}

/* Leave the path and every query argument as the client sent them: the master reads some values
 * undecoded (/query_key), so the proxy must forward the bytes it got. */
static size_t
unescape(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];
	vsnprintf(buf, sizeof buf, fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("admin: %s", buf);
}

/* Run libmicrohttpd, then arm the timer for its next deadline. After an answer it asks to run again
 * at once (a timeout of 0) until a read finds the socket empty: that is done here, a few times,
 * rather than with a turn of the loop each. The timer is only moved earlier: one that fires
 * before MHD's deadline runs it for nothing and is armed again, which costs less than re-arming
 * it on every request.
 * With admin.busy_poll_us the loop then polls for that long, if the last request came within that
 * time of the answer before it (polling would have met it: a client asking back to back) and at
 * most ADMIN_BUSY_POLL_CONNECTIONS are open. So requests further apart never cost a poll, and
 * a run of requests back to back costs one poll that meets nothing, after its last answer. */
static void
admin_run(struct admin *a)
{
	MHD_UNSIGNED_LONG_LONG ms;
	int more = 0, turns = 0;
	do
		MHD_run(a->mhd);
	while ((more = MHD_get_timeout(a->mhd, &ms) == MHD_YES) && ms == 0 && ++turns < 4);
	if (a->hot) {
		const union MHD_DaemonInfo *info = MHD_get_daemon_info(a->mhd,
		    MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (info != NULL && info->num_connections <= ADMIN_BUSY_POLL_CONNECTIONS)
			*a->p.busy_until = mono_now() + busy_poll_s(a);
	}
	if (!more) {
		evtimer_del(a->timer);
		return;
	}
	double at = mono_now() + (double)ms / 1000.0;
	if (!evtimer_pending(a->timer, NULL) || at < a->timer_at) {
		struct timeval tv = ms_tv((long)ms);
		evtimer_add(a->timer, &tv);
		a->timer_at = at;
	}
}

static void
io_cb(evutil_socket_t fd, short what, void *arg)
{
	admin_run(arg);
}

/* Accept here rather than in MHD: at the fd limit MHD would busy-wait on a readable listening
 * socket. Out of descriptors, accepting pauses for a moment (the sidecar's own trouble, logged once
 * per episode) and the loop carries on. */
static void
accept_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		int c = accept4(a->lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && httpc_local_errno(errno)) {
				struct timeval tv = { 0, 50000 };
				if (!a->paused)
					log_warn("admin: cannot accept connections: %s (the sidecar's own "
					    "limit); pausing accept for 50 ms", strerror(errno));
				a->paused = 1;
				event_del(a->accept_ev);
				evtimer_add(a->accept_pause, &tv);
			}
			break;
		}
		if (a->paused)
			log_notice("admin: accepting connections again");
		a->paused = 0;
		/* over a limit (per IP, in all) MHD closes it at once */
		(void)MHD_add_connection(a->mhd, c, (struct sockaddr *)&ss, len);
	}
	admin_run(a);
}

static void
accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	event_add(a->accept_ev, NULL);
	accept_cb(a->lfd, EV_READ, a);
}

static int
listen_on(const struct cfg *cfg, char *err, size_t errlen)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd, on = 1;
	if (cfg->admin.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)cfg->admin.port);
		inet_pton(AF_INET6, cfg->admin.host, &s6->sin6_addr);
		len = sizeof *s6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)cfg->admin.port);
		inet_pton(AF_INET, cfg->admin.host, &s4->sin_addr);
		len = sizeof *s4;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s (admin.listen): %s", cfg->admin.listen,
		    strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 4096) != 0) {
		snprintf(err, errlen, "cannot listen on %s (admin.listen): %s", cfg->admin.listen,
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* libmicrohttpd, driven from the loop: over TLS when admin.tls gives a certificate. */
static int
mhd_start(struct admin *a, const struct tls_pem *tls)
{
	const struct cfg *c = a->p.cfg;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_TURBO |
	    MHD_USE_NO_LISTEN_SOCKET;
	struct MHD_OptionItem tls_opts[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, tls->cert },
		{ tls->ca != NULL ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, tls->ca },
		{ MHD_OPTION_END, 0, NULL }
	};
	if (c->admin.family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (tls->cert != NULL)
		flags |= MHD_USE_TLS;
	a->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handler, a,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, a,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->admin.max_connections,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)c->admin.max_connections_per_ip,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)ADMIN_IDLE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)ADMIN_MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, a,
	    MHD_OPTION_UNESCAPE_CALLBACK, unescape, a,
	    MHD_OPTION_ARRAY, tls->cert != NULL ? tls_opts : &tls_opts[3],
	    MHD_OPTION_END);
	if (a->mhd == NULL)
		return -1;
	info = MHD_get_daemon_info(a->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	a->io = event_new(a->p.base, info->epoll_fd, EV_READ | EV_PERSIST, io_cb, a);
	event_add(a->io, NULL);
	return 0;
}

/* Answer everything held (long-polls with what they wait on, proxied requests with 503 and why),
 * and stop libmicrohttpd; the listening socket stays. */
static void
mhd_stop(struct admin *a, const char *why)
{
	a->closing = 1;
	while (a->waiters != NULL)
		wake_now(a->waiters);
	while (a->streams != NULL)
		stream_end(a->streams);
	while (a->suspended != NULL) {
		struct request *r = a->suspended;
		char *s = error_json(a, why);
		basic_cancel(r->auth_req);
		r->auth_req = NULL;
		httpc_cancel(r->up);
		flight_leave(r);
		resume(r, MHD_HTTP_SERVICE_UNAVAILABLE, make_response("application/json", s, strlen(s)));
		free(s);
	}
	MHD_run(a->mhd);
	MHD_stop_daemon(a->mhd);
	a->mhd = NULL;
	event_free(a->io);
	a->io = NULL;
}

struct admin *
admin_new(const struct admin_params *p, char *err, size_t errlen)
{
	struct admin *a = xcalloc(1, sizeof *a);

	a->p = *p;
	if ((a->lfd = listen_on(p->cfg, err, errlen)) < 0) {
		free(a);
		return NULL;
	}
	a->timer = evtimer_new(p->base, io_cb, a);
	a->kick = event_new(p->base, -1, 0, io_cb, a);
	a->heard_ev = evtimer_new(p->base, heard_cb, a);
	a->basic = basic_new(p->base, &p->cfg->admin.basic_users);
	if (mhd_start(a, p->tls) != 0) {
		snprintf(err, errlen, "cannot start the admin server on %s (admin.listen)", p->cfg->admin.listen);
		basic_free(a->basic);
		event_free(a->timer);
		event_free(a->kick);
		event_free(a->heard_ev);
		close(a->lfd);
		free(a);
		return NULL;
	}
	a->accept_ev = event_new(p->base, a->lfd, EV_READ | EV_PERSIST, accept_cb, a);
	a->accept_pause = evtimer_new(p->base, accept_resume_cb, a);
	event_add(a->accept_ev, NULL);
	if (p->master != NULL)
		a->proxy = httpc_new(p->base, p->master, PROXY_POOL, PROXY_MAX_BODY, p->cfg->admin.upstream_timeout_ms);
	admin_run(a);
	if (p->cfg->admin.port == 0)	/* any free port: which one is the log's to say */
		log_notice("admin: listening on %s port %d%s", p->cfg->admin.host, admin_port(a),
		    p->tls->cert != NULL ? " (HTTPS)" : "");
	else
		log_info("admin: listening on %s%s", p->cfg->admin.listen, p->tls->cert != NULL ? " (HTTPS)" : "");
	return a;
}

/* SIGHUP: read admin.tls's files again; when they are good, serve them from now on (a renewed
 * certificate without a restart). The admin server starts over: what it holds is answered first,
 * and the listening socket (the sidecar's own) keeps every connection that arrives meanwhile. */
void
admin_reload_tls(struct admin *a)
{
	struct tls_pem t;
	char err[600];
	if (a == NULL || a->p.cfg->admin.tls_cert_file[0] == '\0')
		return;
	if (tls_load(a->p.cfg, &t, err, sizeof err) != 0) {
		log_err("admin: %s; still serving the certificate read before", err);
		return;
	}
	mhd_stop(a, "the admin server is reloading its certificate");
	tls_pem_free(a->p.tls);
	*a->p.tls = t;
	if (mhd_start(a, a->p.tls) != 0)
		fatalx(EX_UNAVAILABLE, "admin: cannot start the admin server again with the new certificate");
	a->closing = 0;
	admin_run(a);
	log_notice("admin: serving %s again (admin.tls reloaded)", a->p.cfg->admin.tls_cert_file);
}

void
admin_free(struct admin *a)
{
	if (a == NULL)
		return;
	mhd_stop(a, "the sidecar is stopping");
	basic_free(a->basic);
	event_free(a->timer);
	event_free(a->kick);
	event_free(a->heard_ev);
	event_free(a->accept_ev);
	event_free(a->accept_pause);
	close(a->lfd);
	httpc_free(a->proxy);
	free(a);
}
