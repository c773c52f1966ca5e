/*
 * The admin HTTP server's transport: libmicrohttpd in external epoll mode, its epoll fd and timeout
 * driven by the sidecar's libevent loop (no MHD threads); the listening socket accepted here;
 * answers made and queued; connections suspended while an answer is made elsewhere on the loop
 * (the proxy, a held long-poll), so a slow master never delays the other routes.
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
#include <gnutls/gnutls.h>
#include <jansson.h>
#include "admin_int.h"
#include "clock.h"
#include "counters.h"
#include "httpresp.h"
#include "log.h"
#include "tls.h"
#include "xalloc.h"

struct admin_upstream
adm_upstream(const struct admin *a)
{
	struct admin_upstream u = { "absent", 0, 0, 0 };
	a->p.source.upstream(a->p.source.arg, &u);
	return u;
}

struct MHD_Response *
adm_response(const char *ctype, const void *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	return r;
}

/* 401: the schemes admin.auth accepts. */
void
adm_challenge(const struct admin *a, struct MHD_Response *resp)
{
	if (a->p.token[0] != '\0')
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"mooncake-sidecar\"");
	if (a->basic != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"mooncake-sidecar\"");
}

enum MHD_Result
adm_respond(struct request *r, int code, const char *ctype, const char *body, size_t len)
{
	struct MHD_Response *resp = adm_response(ctype, body, len);
	enum MHD_Result ret;
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_UNAUTHORIZED)
		adm_challenge(r->a, resp);
	r->code = code;
	ret = MHD_queue_response(r->conn, (unsigned)code, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A JSON error body: {"error": msg, "state": <master state>}. */
char *
adm_error_json(const struct admin *a, const char *msg)
{
	json_t *o = json_pack("{s:s, s:s}", "error", msg, "state", adm_upstream(a).state);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

enum MHD_Result
adm_respond_error(struct request *r, int code, const char *msg)
{
	char *s = adm_error_json(r->a, msg);
	enum MHD_Result ret = adm_respond(r, code, "application/json", s, strlen(s));
	free(s);
	return ret;
}

/* 503 with Retry-After: 1, for a limit that frees up soon; busy: the limit is admin.max_waiters,
 * which another sidecar polling this one is told (HTTPRESP_BUSY) so that it comes back within
 * milliseconds instead of taking it for a master that is down. */
enum MHD_Result
adm_retry_later(struct request *r, const char *msg, int busy)
{
	char *e = adm_error_json(r->a, msg);
	struct MHD_Response *m = adm_response("application/json", e, strlen(e));
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

/* A head that filled the connection's memory (libmicrohttpd's pool): no answer could be built in
 * what is left of it, so the 431 is written on the socket (or the TLS session) here, in one write
 * of a few dozen bytes to an idle connection, and the connection is closed. */
enum MHD_Result
adm_head_too_large(struct request *r, size_t len)
{
	char body[128], resp[512];
	int b = snprintf(body, sizeof body, "{\"error\":\"the request line and headers take more than the admin "
	    "port's limit of %d bytes\"}\n", ADMIN_HEAD_MAX);
	int n = snprintf(resp, sizeof resp, "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
	    "Content-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: %d\r\n\r\n%s", b, body);
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *tls = r->a->p.tls->cert != NULL && !r->local ?
	    MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_GNUTLS_SESSION) : NULL;
	log_debug("admin: a request head of %zu bytes: 431", len);
	r->code = MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
	if (tls != NULL && tls->tls_session != NULL)
		(void)gnutls_record_send(tls->tls_session, resp, (size_t)n);
	else if (fd != NULL)
		(void)send(fd->connect_fd, resp, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	return MHD_NO;
}

void
adm_suspend(struct request *r)
{
	MHD_suspend_connection(r->conn);
	r->next = r->a->suspended;
	r->a->suspended = r;
	/* not watched: a proxied request ends within admin.upstream_timeout_ms anyway, and a watch
	 * would cost two epoll_ctl calls per request */
}

/* A suspended connection goes on, in one MHD_run after every resume of this loop pass. */
void
adm_mhd_resume(struct request *r)
{
	MHD_resume_connection(r->conn);
	event_active(r->a->kick, EV_TIMEOUT, 0);
}

void
adm_resume(struct request *r, int code, struct MHD_Response *resp)
{
	struct request **pp;
	for (pp = &r->a->suspended; *pp != NULL && *pp != r; pp = &(*pp)->next)
		;
	if (*pp == r)
		*pp = r->next;
	adm_unwatch(r);
	r->up = NULL;
	r->code = code;
	r->resp = resp;
	adm_mhd_resume(r);
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

void
admin_conn_stats(const struct admin *a, struct admin_conn_stats *st)
{
	if (a == NULL)
		memset(st, 0, sizeof *st);
	else
		adm_conn_stats(a, st);
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

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode tc)
{
	struct request *r = *con_cls;
	adm_conn_answered(conn);
	if (r == NULL)
		return;
	if (r->a->p.cfg->admin.busy_poll_us > 0)
		r->a->answered_at = mono_now();
	counters_http(r->route, r->code);
	basic_cancel(r->auth_req);
	httpc_cancel(r->up);
	adm_flight_leave(r);
	adm_unhold(r);
	adm_sse_drop(r->cur);
	adm_sse_drop(r->pending);
	if (r->resp != NULL)
		MHD_destroy_response(r->resp);
	adm_shared_drop(r->shared);
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
void
adm_run(struct admin *a)
{
	MHD_UNSIGNED_LONG_LONG ms, cms;
	int more = 0, turns = 0;
	do
		MHD_run(a->mhd);
	while ((more = MHD_get_timeout(a->mhd, &ms) == MHD_YES) && ms == 0 && ++turns < 4);
	if (a->cmhd != NULL) {
		turns = 0;
		do
			MHD_run(a->cmhd);
		while (MHD_get_timeout(a->cmhd, &cms) == MHD_YES && cms == 0 && ++turns < 4);
		if (MHD_get_timeout(a->cmhd, &cms) == MHD_YES && (!more || cms < ms)) {
			more = 1;
			ms = cms;
		}
	}
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
	adm_run(arg);
}

/* Accept here rather than in MHD: at the fd limit MHD would busy-wait on a readable listening
 * socket. Out of descriptors, accepting pauses for a moment (the sidecar's own trouble, logged once
 * per episode) and the loop carries on. */
static void
accept_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	for (int i = 0; i < ADMIN_ACCEPT_BATCH; i++) {
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
		/* over a limit (per client, in all) it is closed at once */
		if (adm_conn_admit(a, c, (struct sockaddr *)&ss, len) != 0)
			close(c);
		else if (MHD_add_connection(a->mhd, c, (struct sockaddr *)&ss, len) != MHD_YES)
			adm_conn_unadmit(a, c);	/* and closed by libmicrohttpd */
	}
	adm_run(a);
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

/* One libmicrohttpd, driven from the loop: the admin port's (over TLS when admin.tls gives a
 * certificate), or the control socket's (control: plain, no limit per address). */
static struct MHD_Daemon *
mhd_daemon(struct admin *a, const struct tls_pem *tls, int control)
{
	const struct cfg *c = a->p.cfg;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_TURBO |
	    MHD_USE_NO_LISTEN_SOCKET;
	struct MHD_OptionItem tls_opts[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, tls->cert },
		{ tls->ca != NULL ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, tls->ca },
		{ MHD_OPTION_END, 0, NULL }
	};
	int tls_on = tls->cert != NULL && !control;
	if (c->admin.family == AF_INET6 && !control)
		flags |= MHD_USE_IPv6;
	if (tls_on)
		flags |= MHD_USE_TLS;
	/* the admin port's limits are adminconn.c's; libmicrohttpd's are above them, for the
	 * connections shut down there that it has not closed yet */
	return MHD_start_daemon(flags, 0, NULL, NULL, adm_handler, a,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, a,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)(control ? ADMIN_CONTROL_CONNECTIONS :
	    c->admin.max_connections + ADMIN_PROBE_RESERVE + ADMIN_ACCEPT_BATCH),
	    MHD_OPTION_NOTIFY_CONNECTION, control ? NULL : adm_conn_notify, a,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)ADMIN_IDLE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)ADMIN_MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, a,
	    MHD_OPTION_UNESCAPE_CALLBACK, unescape, a,
	    MHD_OPTION_ARRAY, tls_on ? tls_opts : &tls_opts[3],
	    MHD_OPTION_END);
}

static struct event *
mhd_event(struct admin *a, struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
	struct event *ev = event_new(a->p.base, info->epoll_fd, EV_READ | EV_PERSIST, io_cb, a);
	event_add(ev, NULL);
	return ev;
}

static int
mhd_start(struct admin *a, const struct tls_pem *tls)
{
	if ((a->mhd = mhd_daemon(a, tls, 0)) == NULL)
		return -1;
	a->io = mhd_event(a, a->mhd);
	if (a->cfd >= 0) {
		if ((a->cmhd = mhd_daemon(a, tls, 1)) == NULL) {
			MHD_stop_daemon(a->mhd);
			a->mhd = NULL;
			event_free(a->io);
			a->io = NULL;
			return -1;
		}
		a->cio = mhd_event(a, a->cmhd);
	}
	return 0;
}

/* Answer everything held (long-polls with what they wait on, proxied requests with 503 and why),
 * and stop libmicrohttpd; the listening socket stays. */
static void
mhd_stop(struct admin *a, const char *why)
{
	a->closing = 1;
	while (a->waiters != NULL)
		adm_wake_now(a->waiters);
	while (a->streams != NULL)
		adm_stream_end(a->streams);
	while (a->suspended != NULL) {
		struct request *r = a->suspended;
		char *s = adm_error_json(a, why);
		basic_cancel(r->auth_req);
		r->auth_req = NULL;
		httpc_cancel(r->up);
		adm_flight_leave(r);
		adm_resume(r, MHD_HTTP_SERVICE_UNAVAILABLE, adm_response("application/json", s, strlen(s)));
		free(s);
	}
	MHD_run(a->mhd);
	MHD_stop_daemon(a->mhd);
	a->mhd = NULL;
	event_free(a->io);
	a->io = NULL;
	if (a->cmhd != NULL) {
		MHD_run(a->cmhd);
		MHD_stop_daemon(a->cmhd);
		a->cmhd = NULL;
		event_free(a->cio);
		a->cio = NULL;
	}
}

struct admin *
admin_new(const struct admin_params *p, char *err, size_t errlen)
{
	struct admin *a = xcalloc(1, sizeof *a);

	a->p = *p;
	a->cfd = -1;
	if ((a->lfd = listen_on(p->cfg, err, errlen)) < 0) {
		free(a);
		return NULL;
	}
	if (adm_control_listen(a, err, errlen) != 0) {
		close(a->lfd);
		free(a);
		return NULL;
	}
	a->timer = evtimer_new(p->base, io_cb, a);
	a->kick = event_new(p->base, -1, 0, io_cb, a);
	a->heard_ev = evtimer_new(p->base, adm_heard_cb, a);
	adm_conns_init(a);
	a->basic = basic_new(p->base, &p->cfg->admin.basic_users);
	if (mhd_start(a, p->tls) != 0) {
		snprintf(err, errlen, "cannot start the admin server on %s (admin.listen)", p->cfg->admin.listen);
		basic_free(a->basic);
		event_free(a->timer);
		event_free(a->kick);
		event_free(a->heard_ev);
		adm_conns_free(a);
		close(a->lfd);
		adm_control_close(a);
		free(a);
		return NULL;
	}
	a->accept_ev = event_new(p->base, a->lfd, EV_READ | EV_PERSIST, accept_cb, a);
	a->accept_pause = evtimer_new(p->base, accept_resume_cb, a);
	event_add(a->accept_ev, NULL);
	if (p->master != NULL)
		a->proxy = httpc_new(p->base, p->master, PROXY_POOL, PROXY_MAX_BODY, p->cfg->admin.upstream_timeout_ms);
	adm_run(a);
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
	adm_run(a);
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
	adm_conns_free(a);
	close(a->lfd);
	adm_control_close(a);
	httpc_free(a->proxy);
	free(a);
}
