/*
 * The daemon's HTTP/1.1 client: a pool of kept-alive connections to one upstream, each with one
 * persistent read event; requests are written with send() and answers fed to the incremental parser
 * in common/httpresp.c as they arrive. Nothing is re-armed per request on a kept-alive connection,
 * so a proxied request costs a send, a receive and no epoll_ctl. Requests beyond the pool wait in a
 * queue; each has its own deadline. Every failure is delivered from the loop through the request's
 * own timer event, so no callback ever runs inside httpc_get(). Over 600 lines: one connection
 * state machine (connect, TLS handshake, send, receive, reuse, one retry) whose steps all read
 * struct conn; where it connects is daemon/httptarget.c's.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include "buf.h"
#include "clock.h"
#include "httpc.h"
#include "sse.h"
#include "httpresp.h"
#include "xalloc.h"

#define HEADER_MAX	(64 * 1024)

enum { C_CLOSED, C_CONNECTING, C_HANDSHAKE, C_IDLE, C_BUSY };

struct conn {
	struct httpc		*p;
	int			 fd;
	int			 state;
	int			 reused;	/* served a request before: may have been closed by the peer */
	int			 ai;		/* which of the target's addresses */
	size_t			 got;		/* bytes received for the current request */
	struct event		*rev;
	struct event		*wev;
	size_t			 sent;
	struct httpc_req	*cur;
	struct httpresp		 resp;
	gnutls_session_t	 tls;		/* https: the session, NULL before the handshake */
};

struct httpc_req {
	struct httpc		*p;
	struct conn		*c;
	char			*req;
	size_t			 reqlen;
	struct event		*ev;		/* the deadline, and the deferred completion */
	httpc_cb		 cb;
	httpc_data_cb		 data;		/* a streamed answer's reader, or NULL */
	void			*arg;
	double			 started;
	long			 timeout_ms;
	int			 retried;
	int			 connect_only;
	int			 deferred;	/* ev fires to deliver outcome, not a timeout */
	int			 outcome;
	int			 err;		/* the errno the kernel gave, or 0 */
	char			 detail[HTTPC_NAME_MAX + 200];
	struct httpc_req	*next;		/* in the queue */
	struct httpc_req	*all_next, *all_prev;
};

struct httpc {
	struct event_base	*base;
	struct httpc_target	 t;
	long			 timeout_ms;
	size_t			 max_body;
	int			 pool_max;
	int			 pref;		/* the address that last connected */
	struct conn		*pool;
	struct httpc_req	*queue, **qtail;
	struct httpc_req	*all;
	char			*auth;		/* an Authorization header line, or NULL */
	void			*cred;		/* https: gnutls credentials (the caller's), or NULL */
	char			*tls_name;	/* the name the certificate must carry */
	int			 keepalive;	/* httpc_set_keepalive */
};

static void dispatch(struct httpc *);
static void conn_send(struct conn *);
static int conn_open(struct conn *, int);

int
httpc_local_errno(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

const char *
httpc_upstream(const struct httpc *p)
{
	return p->t.name;
}

struct httpc *
httpc_new(struct event_base *base, const struct httpc_target *t, int pool_max, size_t max_body,
    long timeout_ms)
{
	struct httpc *p = xcalloc(1, sizeof *p);
	p->base = base;
	p->t = *t;
	p->pool_max = pool_max > 0 ? pool_max : 1;
	p->max_body = max_body;
	p->timeout_ms = timeout_ms;
	p->qtail = &p->queue;
	p->pool = xcalloc((size_t)p->pool_max, sizeof *p->pool);
	for (int i = 0; i < p->pool_max; i++) {
		p->pool[i].p = p;
		p->pool[i].fd = -1;
		httpresp_init(&p->pool[i].resp, HEADER_MAX, max_body, 0);
	}
	return p;
}

static void
conn_close(struct conn *c)
{
	if (c->tls != NULL)
		gnutls_deinit(c->tls);
	c->tls = NULL;
	if (c->rev != NULL)
		event_free(c->rev);
	if (c->wev != NULL)
		event_free(c->wev);
	c->rev = c->wev = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = C_CLOSED;
	c->reused = 0;
	c->cur = NULL;
}

static void
req_free(struct httpc_req *r)
{
	struct httpc *p = r->p;
	if (r->all_prev != NULL)
		r->all_prev->all_next = r->all_next;
	else
		p->all = r->all_next;
	if (r->all_next != NULL)
		r->all_next->all_prev = r->all_prev;
	event_free(r->ev);
	free(r->req);
	free(r);
}

static void
unqueue(struct httpc_req *r)
{
	struct httpc *p = r->p;
	struct httpc_req **pp;
	for (pp = &p->queue; *pp != NULL && *pp != r; pp = &(*pp)->next)
		;
	if (*pp == NULL)
		return;
	*pp = r->next;
	if (p->qtail == &r->next)
		p->qtail = pp;
}

/* Take a request off its connection (which is dropped: an answer may still be on its way, or the
 * upstream is stuck behind it) or out of the queue. */
static void
detach(struct httpc_req *r)
{
	if (r->c != NULL) {
		r->c->cur = NULL;
		conn_close(r->c);
		r->c = NULL;
	} else
		unqueue(r);
}

void
httpc_set_bearer(struct httpc *p, const char *token)
{
	free(p->auth);
	p->auth = token != NULL && *token ? xasprintf("Authorization: Bearer %s\r\n", token) : NULL;
}

void
httpc_set_tls(struct httpc *p, void *cred, const char *name)
{
	free(p->tls_name);
	p->cred = cred;
	p->tls_name = cred != NULL ? xstrdup(name) : NULL;
}

void
httpc_free(struct httpc *p)
{
	if (p == NULL)
		return;
	free(p->auth);
	free(p->tls_name);
	while (p->all != NULL) {
		detach(p->all);
		req_free(p->all);
	}
	for (int i = 0; i < p->pool_max; i++) {
		conn_close(&p->pool[i]);
		httpresp_free(&p->pool[i].resp);
	}
	free(p->pool);
	free(p);
}

static void
deliver(struct httpc_req *r, struct httpc_response *resp)
{
	resp->seconds = mono_now() - r->started;
	if (resp->detail == NULL)
		resp->detail = r->detail;
	r->cb(resp, r->arg);
	req_free(r);
}

/* Answer the request from the loop, never from the call that is running now. */
static void
defer(struct httpc_req *r, int outcome, const char *what, int err)
{
	r->deferred = 1;
	r->outcome = outcome;
	r->err = err;
	snprintf(r->detail, sizeof r->detail, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
	evtimer_del(r->ev);
	event_active(r->ev, EV_TIMEOUT, 1);
}

static int
errno_outcome(int e)
{
	/* ETIMEDOUT: the kernel gave up on a silent peer (unanswered SYNs, keepalive probes or data) */
	return httpc_local_errno(e) ? HTTPC_LOCAL : e == ETIMEDOUT ? HTTPC_TIMEOUT : HTTPC_FAILED;
}

/* The conn failed while serving its request: hand the request back to the queue or answer it. */
static void
conn_fail(struct conn *c, int outcome, const char *what, int err)
{
	struct httpc_req *r = c->cur;
	struct httpc *p = c->p;
	int retry = r != NULL && c->reused && c->got == 0 && !r->retried && outcome == HTTPC_FAILED;
	conn_close(c);
	if (r == NULL)
		return;
	r->c = NULL;
	if (retry) {
		/* A kept-alive connection the upstream had closed: try once on a fresh one. */
		r->retried = 1;
		r->next = p->queue;
		p->queue = r;
		if (p->qtail == &p->queue)
			p->qtail = &r->next;
	} else
		defer(r, outcome, what, err);
}

static void
ev_cb(evutil_socket_t fd, short what, void *arg)
{
	struct httpc_req *r = arg;
	struct httpc *p = r->p;
	struct httpc_response resp = { .outcome = r->outcome, .err = r->err };
	if (!r->deferred) {
		detach(r);
		resp.outcome = HTTPC_TIMEOUT;
		snprintf(r->detail, sizeof r->detail, "no answer from %s within %ld ms", p->t.name,
		    r->timeout_ms);
	}
	deliver(r, &resp);
	dispatch(p);
}

/* A whole response arrived on c. */
static void
complete(struct conn *c, int leftover)
{
	struct httpc_req *r = c->cur;
	struct httpc *p = c->p;
	struct httpresp *hr = &c->resp;
	struct httpc_response resp = {
		.outcome = HTTPC_OK, .status = hr->status,
		.content_type = hr->content_type.len > 0 ? hr->content_type.p : NULL,
		.busy = hr->busy,
		.body = hr->body.p, .len = hr->body.len, .detail = "ok"
	};
	int keep = hr->keep_alive && !leftover;
	c->cur = NULL;
	r->c = NULL;
	/* c stays busy (with no request) while the callback reads the parser's buffers */
	deliver(r, &resp);
	if (keep) {
		c->state = C_IDLE;
		c->reused = 1;
	} else
		conn_close(c);
	dispatch(p);
}

static void tls_step(struct conn *);

/* A streamed answer: what has come of its body so far, to its reader, which keeps what it did not use. */
static void
stream_data(struct conn *c)
{
	struct httpc_req *r = c->cur;
	struct httpresp *hr = &c->resp;
	struct httpc_response resp = {
		.outcome = HTTPC_OK, .status = hr->status,
		.content_type = hr->content_type.len > 0 ? hr->content_type.p : NULL,
		.busy = hr->busy, .body = hr->body.p ? hr->body.p : "", .len = hr->body.len,
		.seconds = mono_now() - r->started, .detail = "ok"
	};
	httpresp_consume(hr, r->data(&resp, r->arg));
}

/* recv, or gnutls_record_recv on https (its errors mapped to errno: EAGAIN, EINTR, EPROTO; a
 * peer that closes without close_notify is an end of file, as over plain TCP). */
static ssize_t
conn_recv(struct conn *c, char *buf, size_t len)
{
	ssize_t n;
	if (c->tls == NULL)
		return recv(c->fd, buf, len, 0);
	n = gnutls_record_recv(c->tls, buf, len);
	if (n >= 0)
		return n;
	if (n == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;
	errno = n == GNUTLS_E_AGAIN ? EAGAIN : n == GNUTLS_E_INTERRUPTED ? EINTR : EPROTO;
	return -1;
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct httpc *p = c->p;
	if (c->state == C_HANDSHAKE) {
		tls_step(c);
		return;
	}
	for (;;) {
		char tmp[65536];
		size_t used;
		int rc;
		ssize_t n = conn_recv(c, tmp, sizeof tmp);
		if (n > 0) {
			if (c->state != C_BUSY || c->cur == NULL) {	/* unsolicited bytes */
				conn_close(c);
				return;
			}
			c->got += (size_t)n;
			rc = httpresp_feed(&c->resp, tmp, (size_t)n, &used);
			if (rc == HR_DONE) {
				complete(c, used < (size_t)n);
				return;
			}
			if (rc == HR_ERROR) {
				conn_fail(c, c->resp.err == HR_E_BODY_SIZE ? HTTPC_TOO_LARGE :
				    HTTPC_BAD_RESPONSE, httpresp_strerror(c->resp.err), 0);
				dispatch(p);
				return;
			}
			if (c->cur->data != NULL && httpresp_in_body(&c->resp))
				stream_data(c);
			/* TLS may hold a decrypted record the socket no longer signals */
			if ((size_t)n < sizeof tmp && (c->tls == NULL || gnutls_record_check_pending(c->tls) == 0))
				return;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		int err = n < 0 ? errno : 0;
		if (c->state == C_BUSY && c->cur != NULL && n == 0 && c->got > 0 &&
		    httpresp_eof(&c->resp) == HR_DONE) {
			complete(c, 0);
			return;
		}
		if (c->state == C_BUSY || c->state == C_CONNECTING) {
			if (err != 0)
				conn_fail(c, errno_outcome(err), "recv", err);
			else
				conn_fail(c, c->got > 0 ? HTTPC_BAD_RESPONSE : HTTPC_FAILED,
				    httpresp_strerror(HR_E_TRUNCATED), 0);
			dispatch(p);
		} else
			conn_close(c);
		return;
	}
}

/* https: the handshake, driven by the connection's events; the certificate must chain to the
 * credentials' trust and carry the target's name (or IP address). */
static void
tls_step(struct conn *c)
{
	struct httpc *p = c->p;
	int rc = gnutls_handshake(c->tls);
	if (rc == GNUTLS_E_SUCCESS) {
		c->state = C_BUSY;
		if (c->cur != NULL)
			conn_send(c);
		if (c->state == C_CLOSED)
			dispatch(p);
		return;
	}
	if (rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED) {
		if (gnutls_record_get_direction(c->tls) == 1)
			event_add(c->wev, NULL);
		return;		/* readable: the persistent read event calls again */
	}
	{
		char what[HTTPC_NAME_MAX + 400];
		if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
			gnutls_datum_t out;
			unsigned status = gnutls_session_get_verify_cert_status(c->tls);
			if (gnutls_certificate_verification_status_print(status, gnutls_certificate_type_get(c->tls),
			    &out, 0) == 0) {
				snprintf(what, sizeof what, "TLS with %s: %s", p->t.name, (const char *)out.data);
				gnutls_free(out.data);
			} else
				snprintf(what, sizeof what, "TLS with %s: certificate not trusted", p->t.name);
		} else
			snprintf(what, sizeof what, "TLS with %s: %s", p->t.name, gnutls_strerror(rc));
		conn_fail(c, HTTPC_FAILED, what, 0);
		dispatch(p);
	}
}

static void
tls_begin(struct conn *c)
{
	struct httpc *p = c->p;
	if (gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK) != GNUTLS_E_SUCCESS ||
	    gnutls_set_default_priority(c->tls) != GNUTLS_E_SUCCESS ||
	    gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, p->cred) != GNUTLS_E_SUCCESS) {
		char what[HTTPC_NAME_MAX + 40];
		snprintf(what, sizeof what, "TLS with %s: cannot set up a session", p->t.name);
		conn_fail(c, HTTPC_LOCAL, what, 0);
		dispatch(p);
		return;
	}
	/* SNI for a name; an IP address is only checked against the certificate */
	if (strspn(p->tls_name, "0123456789.") != strlen(p->tls_name) && strchr(p->tls_name, ':') == NULL)
		gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, p->tls_name, strlen(p->tls_name));
	gnutls_session_set_verify_cert(c->tls, p->tls_name, 0);
	gnutls_transport_set_int(c->tls, c->fd);
	c->state = C_HANDSHAKE;
	tls_step(c);
}

static void
write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct httpc *p = c->p;
	if (c->state == C_HANDSHAKE) {
		tls_step(c);
		return;
	}
	if (c->state == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof err;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0) {
			int next = c->ai + 1;
			if (next < p->t.naddr && conn_open(c, next) == 0)
				return;		/* the next address, tried in order */
			char msg[HTTPC_NAME_MAX + 16];
			snprintf(msg, sizeof msg, "connect to %s", p->t.name);
			conn_fail(c, errno_outcome(err), msg, err);
			dispatch(p);
			return;
		}
		p->pref = c->ai;
		if (c->cur != NULL && c->cur->connect_only) {
			struct httpc_req *r = c->cur;
			struct httpc_response resp = { .outcome = HTTPC_OK, .body = "", .detail = "ok" };
			r->c = NULL;
			c->cur = NULL;
			conn_close(c);
			deliver(r, &resp);
			dispatch(p);
			return;
		}
		if (p->cred != NULL) {
			tls_begin(c);
			return;
		}
		c->state = C_BUSY;
	}
	conn_send(c);
	if (c->state == C_CLOSED)
		dispatch(p);
}

static void
conn_send(struct conn *c)
{
	struct httpc_req *r = c->cur;
	while (c->sent < r->reqlen) {
		ssize_t n;
		if (c->tls != NULL) {	/* after GNUTLS_E_AGAIN the same data is offered again */
			n = gnutls_record_send(c->tls, r->req + c->sent, r->reqlen - c->sent);
			if (n < 0)
				errno = n == GNUTLS_E_AGAIN ? EAGAIN : n == GNUTLS_E_INTERRUPTED ? EINTR : EPROTO;
			if (n < 0)
				n = -1;
		} else
			n = send(c->fd, r->req + c->sent, r->reqlen - c->sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_add(c->wev, NULL);
			return;
		}
		if (n < 0) {
			char what[HTTPC_NAME_MAX + 16];
			int err = errno;
			snprintf(what, sizeof what, "send to %s", c->p->t.name);
			conn_fail(c, errno_outcome(err), what, err);
			return;
		}
		c->sent += (size_t)n;
	}
}

void
httpc_keepalive_fd(int fd)
{
	int on = 1, idle = HTTPC_KEEPALIVE_IDLE_S, intvl = HTTPC_KEEPALIVE_INTVL_S, cnt = HTTPC_KEEPALIVE_CNT;
	unsigned user = (unsigned)(idle + intvl * cnt) * 1000;
	/* best effort: a socket without them only notices a vanished peer later */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof user);
}

int
httpc_is_stream(const struct httpc_response *r)
{
	return r->status == 200 && r->content_type != NULL &&
	    strncmp(r->content_type, SSE_CTYPE, strlen(SSE_CTYPE)) == 0;
}

void
httpc_set_keepalive(struct httpc *p)
{
	p->keepalive = 1;
}

/* Open c to the target's address ai, or the ones after it when a connect fails at once. Returns 0
 * (connecting or connected), or -1 with errno set. */
static int
conn_open(struct conn *c, int ai)
{
	struct httpc *p = c->p;
	struct httpc_req *cur = c->cur;
	int err = 0;
	conn_close(c);
	c->cur = cur;
	for (; ai < p->t.naddr; ai++) {
		const struct sockaddr *sa = (const struct sockaddr *)&p->t.addr[ai];
		c->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->fd < 0) {
			err = errno;
			if (httpc_local_errno(err))
				break;		/* no other address fixes our own fd limit */
			continue;
		}
		c->ai = ai;
		if (p->keepalive)
			httpc_keepalive_fd(c->fd);
		if (connect(c->fd, sa, p->t.addrlen[ai]) == 0 || errno == EINPROGRESS) {
			/* connected or not, write_cb learns the result from SO_ERROR */
			c->state = C_CONNECTING;
			c->rev = event_new(p->base, c->fd, EV_READ | EV_PERSIST, read_cb, c);
			c->wev = event_new(p->base, c->fd, EV_WRITE, write_cb, c);
			event_add(c->rev, NULL);
			event_add(c->wev, NULL);
			return 0;
		}
		err = errno;
		close(c->fd);
		c->fd = -1;
	}
	c->state = C_CLOSED;
	errno = err ? err : EADDRNOTAVAIL;
	return -1;
}

/* Hand queued requests to idle connections, opening new ones up to the pool size. */
static void
dispatch(struct httpc *p)
{
	while (p->queue != NULL) {
		struct conn *c = NULL, *closed = NULL;
		struct httpc_req *r = p->queue;
		for (int i = 0; i < p->pool_max && c == NULL; i++) {
			if (p->pool[i].state == C_IDLE && !r->connect_only)
				c = &p->pool[i];
			else if (p->pool[i].state == C_CLOSED && closed == NULL)
				closed = &p->pool[i];
		}
		if (c == NULL && closed == NULL)
			return;
		p->queue = r->next;
		if (p->queue == NULL)
			p->qtail = &p->queue;
		if (c == NULL) {
			c = closed;
			c->cur = r;
			r->c = c;
			if (conn_open(c, p->pref < p->t.naddr ? p->pref : 0) != 0 &&
			    (p->pref == 0 || conn_open(c, 0) != 0)) {
				int err = errno;
				char what[HTTPC_NAME_MAX + 16];
				snprintf(what, sizeof what, "%s %s", httpc_local_errno(err) ? "socket for" :
				    "connect to", p->t.name);
				c->cur = r;
				conn_fail(c, errno_outcome(err), what, err);
				continue;
			}
		}
		c->cur = r;
		r->c = c;
		c->sent = 0;
		c->got = 0;
		httpresp_reset(&c->resp, 0);
		if (c->state == C_IDLE)
			c->state = C_BUSY;
		if (c->state == C_BUSY && !r->connect_only)
			conn_send(c);
	}
}

static struct httpc_req *
req_new(struct httpc *p, long timeout_ms, httpc_cb cb, void *arg)
{
	struct httpc_req *r = xcalloc(1, sizeof *r);
	r->p = p;
	r->cb = cb;
	r->arg = arg;
	r->started = mono_now();
	r->timeout_ms = timeout_ms > 0 ? timeout_ms : p->timeout_ms;
	struct timeval tv = ms_tv(r->timeout_ms);
	r->ev = evtimer_new(p->base, ev_cb, r);
	evtimer_add(r->ev, &tv);
	r->all_next = p->all;
	if (p->all != NULL)
		p->all->all_prev = r;
	p->all = r;
	*p->qtail = r;
	p->qtail = &r->next;
	return r;
}

struct httpc_req *
httpc_get(struct httpc *p, const char *path, long timeout_ms, httpc_cb cb, void *arg)
{
	static const char proto[] = " HTTP/1.1\r\nHost: ", ua[] = "\r\nUser-Agent: mooncake-sidecar\r\n";
	struct httpc_req *r = req_new(p, timeout_ms, cb, arg);
	size_t pl = strlen(path), nl = strlen(p->t.name), al = p->auth ? strlen(p->auth) : 0;
	struct buf b = { NULL, 0, 0 };
	/* on every proxied request: one allocation of the known size, no printf */
	buf_grow(&b, 4 + pl + sizeof proto - 1 + nl + sizeof ua - 1 + al + 2);
	buf_add(&b, "GET ", 4);
	buf_add(&b, path, pl);
	buf_add(&b, proto, sizeof proto - 1);
	buf_add(&b, p->t.name, nl);
	buf_add(&b, ua, sizeof ua - 1);
	if (al > 0)
		buf_add(&b, p->auth, al);
	buf_add(&b, "\r\n", 2);
	r->req = buf_take(&b, &r->reqlen);
	dispatch(p);
	return r;
}

struct httpc_req *
httpc_watch(struct httpc *p, const char *path, long timeout_ms, httpc_data_cb data, httpc_cb cb, void *arg)
{
	struct httpc_req *r = httpc_get(p, path, timeout_ms, cb, arg);
	r->data = data;
	return r;
}

struct httpc_req *
httpc_request(struct httpc *p, const char *method, const char *path, const char *ctype, const char *body,
    size_t len, long timeout_ms, httpc_cb cb, void *arg)
{
	struct httpc_req *r = req_new(p, timeout_ms, cb, arg);
	char *head = xasprintf("%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: mooncake-sidecar\r\n%s%s%s%s"
	    "Content-Length: %zu\r\n\r\n", method, path, p->t.name, p->auth ? p->auth : "",
	    ctype ? "Content-Type: " : "", ctype ? ctype : "", ctype ? "\r\n" : "", len);
	size_t hl = strlen(head);
	r->req = xmalloc(hl + len + 1);
	memcpy(r->req, head, hl);
	if (len > 0)
		memcpy(r->req + hl, body, len);
	r->req[hl + len] = '\0';
	r->reqlen = hl + len;
	free(head);
	/* not idempotent: never sent twice, even when a kept-alive connection turns out closed */
	r->retried = 1;
	dispatch(p);
	return r;
}

struct httpc_req *
httpc_connect(struct httpc *p, long timeout_ms, httpc_cb cb, void *arg)
{
	struct httpc_req *r = req_new(p, timeout_ms, cb, arg);
	r->connect_only = 1;
	dispatch(p);
	return r;
}

void
httpc_cancel(struct httpc_req *r)
{
	struct httpc *p;
	int had_conn;
	if (r == NULL)
		return;
	p = r->p;
	had_conn = r->c != NULL;
	detach(r);
	req_free(r);
	if (had_conn)
		dispatch(p);	/* the freed connection slot can serve the queue */
}
