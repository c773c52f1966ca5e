/*
 * A lean HTTP/1.1 client for one upstream (the master's admin port): a pool of kept-alive
 * connections, each with one persistent read event, requests written with send() and answers parsed
 * in place. Nothing is re-armed per request, so a proxied request costs a send, a receive and no
 * epoll_ctl. Requests beyond the pool wait in a queue; each has its own deadline.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "buf.h"
#include "clock.h"
#include "proxy.h"
#include "xalloc.h"

#define POOL_MAX	64

enum { C_CLOSED, C_CONNECTING, C_IDLE, C_BUSY };

struct conn {
	struct proxy		*p;
	int			 fd;
	int			 state;
	int			 reused;	/* served a request before: may have been closed by the peer */
	struct event		*rev;
	struct event		*wev;
	struct buf		 in;
	size_t			 sent;
	struct proxy_req	*cur;
};

struct proxy_req {
	struct proxy		*p;
	struct conn		*c;
	char			*req;
	size_t			 reqlen;
	struct event		*deadline;
	proxy_cb		 cb;
	void			*arg;
	double			 started;
	int			 retried;
	struct proxy_req	*next;		/* in the queue */
};

struct proxy {
	struct event_base	*base;
	char			 upstream[96];
	struct sockaddr_storage	 ss;
	int			 sslen;
	long			 timeout_ms;
	struct conn		 pool[POOL_MAX];
	struct proxy_req	*queue, **qtail;
};

static void dispatch(struct proxy *);
static void conn_send(struct conn *);

const char *
proxy_upstream(const struct proxy *p)
{
	return p->upstream;
}

struct proxy *
proxy_new(struct event_base *base, const char *host, int port, long timeout_ms)
{
	struct proxy *p = xcalloc(1, sizeof *p);
	p->base = base;
	snprintf(p->upstream, sizeof p->upstream, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
	p->sslen = sizeof p->ss;
	evutil_parse_sockaddr_port(p->upstream, (struct sockaddr *)&p->ss, &p->sslen);
	p->timeout_ms = timeout_ms;
	p->qtail = &p->queue;
	for (int i = 0; i < POOL_MAX; i++) {
		p->pool[i].p = p;
		p->pool[i].fd = -1;
	}
	return p;
}

static void
conn_close(struct conn *c)
{
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
	buf_free(&c->in);
}

void
proxy_free(struct proxy *p)
{
	for (int i = 0; i < POOL_MAX; i++)
		conn_close(&p->pool[i]);
	while (p->queue != NULL)
		proxy_cancel(p->queue);
	free(p);
}

static void
req_free(struct proxy_req *r)
{
	event_free(r->deadline);
	free(r->req);
	free(r);
}

static void
unqueue(struct proxy_req *r)
{
	struct proxy *p = r->p;
	struct proxy_req **pp;
	for (pp = &p->queue; *pp != NULL && *pp != r; pp = &(*pp)->next)
		;
	if (*pp == NULL)
		return;
	*pp = r->next;
	if (p->qtail == &r->next)
		p->qtail = pp;
}

static void
finish(struct proxy_req *r, struct proxy_response *resp)
{
	resp->seconds = mono_now() - r->started;
	r->cb(resp, r->arg);
	req_free(r);
}

/* The conn failed or ended its request: hand the request back or answer it. */
static void
conn_fail(struct conn *c, int outcome)
{
	struct proxy_req *r = c->cur;
	struct proxy *p = c->p;
	int retry = r != NULL && c->reused && c->in.len == 0 && !r->retried && outcome == PROXY_FAILED;
	conn_close(c);
	if (r != NULL) {
		r->c = NULL;
		if (retry) {
			/* A kept-alive connection the master had closed: try once on a fresh one. */
			r->retried = 1;
			r->next = p->queue;
			p->queue = r;
			if (p->qtail == &p->queue)
				p->qtail = &r->next;
		} else {
			struct proxy_response resp = { .outcome = outcome };
			finish(r, &resp);
		}
	}
	dispatch(p);
}

static const char *
header(const char *h, const char *end, const char *name, size_t *len)
{
	size_t n = strlen(name);
	for (const char *l = h; l < end; ) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		if (nl == NULL)
			nl = end;
		if ((size_t)(nl - l) > n && strncasecmp(l, name, n) == 0 && l[n] == ':') {
			const char *v = l + n + 1, *e = nl;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && isspace((unsigned char)e[-1]))
				e--;
			*len = (size_t)(e - v);
			return v;
		}
		l = nl + 1;
	}
	return NULL;
}

/* Decode a chunked body in place; returns its length, or -1 when incomplete, -2 when malformed. */
static long
dechunk(char *body, size_t len, size_t *consumed)
{
	size_t r = 0, w = 0;
	for (;;) {
		char *end;
		const char *nl = memchr(body + r, '\n', len - r);
		if (nl == NULL)
			return -1;
		unsigned long n = strtoul(body + r, &end, 16);
		if (end == body + r)
			return -2;
		r = (size_t)(nl - body) + 1;
		if (n == 0) {
			const char *fin = memchr(body + r, '\n', len - r);
			if (fin == NULL)
				return -1;
			*consumed = (size_t)(fin - body) + 1;
			return (long)w;
		}
		if (n > PROXY_MAX_BODY || len - r < n + 2)
			return n > PROXY_MAX_BODY ? -3 : -1;
		memmove(body + w, body + r, n);
		w += n;
		r += n + 2;
	}
}

/* Parse what arrived; 1 when an answer is complete (delivered), 0 when more is needed. */
static int
conn_parse(struct conn *c, int eof)
{
	char *d = c->in.p, *hend;
	size_t hlen, blen, ctlen = 0, cllen = 0, tlen = 0, klen = 0;
	const char *ct, *cl, *te, *conn_hdr;
	struct proxy_req *r = c->cur;
	struct proxy_response resp = { .outcome = PROXY_OK };
	long clen = -1;
	int keep;

	if (d == NULL || (hend = strstr(d, "\r\n\r\n")) == NULL) {
		if (c->in.len > 65536 || eof)
			conn_fail(c, PROXY_FAILED);
		return 0;
	}
	hlen = (size_t)(hend - d) + 4;
	if (c->in.len < 12 || strncmp(d, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)d[9])) {
		conn_fail(c, PROXY_FAILED);
		return 0;
	}
	resp.status = atoi(d + 9);
	ct = header(d, hend, "Content-Type", &ctlen);
	cl = header(d, hend, "Content-Length", &cllen);
	te = header(d, hend, "Transfer-Encoding", &tlen);
	conn_hdr = header(d, hend, "Connection", &klen);
	keep = d[7] == '1' && !(conn_hdr != NULL && klen == 5 && strncasecmp(conn_hdr, "close", 5) == 0);
	blen = c->in.len - hlen;
	if (te != NULL && tlen >= 7 && strncasecmp(te, "chunked", 7) == 0) {
		size_t used = 0;
		long n = dechunk(d + hlen, blen, &used);
		if (n == -2 || n == -3) {
			conn_fail(c, n == -3 ? PROXY_TOO_LARGE : PROXY_FAILED);
			return 0;
		}
		if (n < 0) {
			if (eof)
				conn_fail(c, PROXY_FAILED);
			return 0;
		}
		clen = n;
	} else if (cl != NULL) {
		clen = strtol(cl, NULL, 10);
		if (clen > PROXY_MAX_BODY) {
			conn_fail(c, PROXY_TOO_LARGE);
			return 0;
		}
		if (blen < (size_t)clen) {
			if (eof)
				conn_fail(c, PROXY_FAILED);
			return 0;
		}
	} else if (!eof) {
		if (blen > PROXY_MAX_BODY)
			conn_fail(c, PROXY_TOO_LARGE);
		return 0;		/* the body runs to the end of the connection */
	} else {
		clen = (long)blen;
		keep = 0;
	}
	char *ctype = ct ? xstrndup(ct, ctlen) : NULL;
	char saved = d[hlen + (size_t)clen];
	d[hlen + (size_t)clen] = '\0';
	resp.content_type = ctype;
	resp.body = d + hlen;
	resp.len = (size_t)clen;
	c->cur = NULL;
	r->c = NULL;
	finish(r, &resp);
	free(ctype);
	d[hlen + (size_t)clen] = saved;
	if (keep && c->in.len == hlen + (size_t)clen) {
		c->state = C_IDLE;
		c->reused = 1;
		c->in.len = 0;
	} else
		conn_close(c);
	dispatch(c->p);
	return 1;
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	for (;;) {
		char tmp[65536];
		ssize_t n = recv(fd, tmp, sizeof tmp, 0);
		if (n > 0) {
			if (c->state != C_BUSY) {	/* unsolicited bytes on an idle connection */
				conn_close(c);
				return;
			}
			buf_add(&c->in, tmp, (size_t)n);
			if (c->in.len > PROXY_MAX_BODY + 65536) {
				conn_fail(c, PROXY_TOO_LARGE);
				return;
			}
			if ((size_t)n < sizeof tmp) {
				conn_parse(c, 0);
				return;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* EOF or error */
		if (c->state == C_BUSY && n == 0 && c->in.len > 0)
			conn_parse(c, 1);
		else if (c->state == C_BUSY || c->state == C_CONNECTING)
			conn_fail(c, PROXY_FAILED);
		else
			conn_close(c);
		return;
	}
}

static void
write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	if (c->state == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof err;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0) {
			conn_fail(c, PROXY_FAILED);
			return;
		}
		c->state = C_BUSY;
	}
	conn_send(c);
}

static void
conn_send(struct conn *c)
{
	struct proxy_req *r = c->cur;
	while (c->sent < r->reqlen) {
		ssize_t n = send(c->fd, r->req + c->sent, r->reqlen - c->sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_add(c->wev, NULL);
			return;
		}
		if (n < 0) {
			conn_fail(c, PROXY_FAILED);
			return;
		}
		c->sent += (size_t)n;
	}
}

static int
conn_open(struct conn *c)
{
	struct proxy *p = c->p;
	c->fd = socket(p->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	c->rev = event_new(p->base, c->fd, EV_READ | EV_PERSIST, read_cb, c);
	c->wev = event_new(p->base, c->fd, EV_WRITE, write_cb, c);
	event_add(c->rev, NULL);
	c->reused = 0;
	if (connect(c->fd, (struct sockaddr *)&p->ss, (socklen_t)p->sslen) == 0) {
		c->state = C_BUSY;
		return 0;
	}
	if (errno != EINPROGRESS)
		return -1;
	c->state = C_CONNECTING;
	event_add(c->wev, NULL);
	return 0;
}

/* Hand queued requests to idle connections, opening new ones up to the pool size. */
static void
dispatch(struct proxy *p)
{
	while (p->queue != NULL) {
		struct conn *c = NULL, *closed = NULL;
		for (int i = 0; i < POOL_MAX && c == NULL; i++) {
			if (p->pool[i].state == C_IDLE)
				c = &p->pool[i];
			else if (p->pool[i].state == C_CLOSED && closed == NULL)
				closed = &p->pool[i];
		}
		if (c == NULL && closed == NULL)
			return;
		struct proxy_req *r = p->queue;
		p->queue = r->next;
		if (p->queue == NULL)
			p->qtail = &p->queue;
		if (c != NULL)
			c->state = C_BUSY;
		else {
			c = closed;
			c->cur = r;
			r->c = c;
			c->sent = 0;
			if (conn_open(c) != 0) {
				conn_fail(c, PROXY_FAILED);
				return;
			}
			if (c->state == C_CONNECTING)
				continue;
		}
		c->cur = r;
		r->c = c;
		c->sent = 0;
		c->in.len = 0;
		conn_send(c);
	}
}

/* Take a request off its connection (which is dropped: an answer may still be on its way, or the
 * master is stuck behind it) or out of the queue. */
static void
detach(struct proxy_req *r)
{
	if (r->c != NULL) {
		r->c->cur = NULL;
		conn_close(r->c);
		r->c = NULL;
	} else
		unqueue(r);
}

static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_req *r = arg;
	struct proxy *p = r->p;
	struct proxy_response resp = { .outcome = PROXY_TIMEOUT };
	detach(r);
	finish(r, &resp);
	dispatch(p);
}

struct proxy_req *
proxy_get(struct proxy *p, const char *path, long timeout_ms, proxy_cb cb, void *arg)
{
	struct proxy_req *r = xcalloc(1, sizeof *r);
	struct timeval tv = ms_tv(timeout_ms > 0 ? timeout_ms : p->timeout_ms);
	r->p = p;
	r->cb = cb;
	r->arg = arg;
	r->started = mono_now();
	r->req = xasprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: mooncake-sidecar\r\n\r\n", path,
	    p->upstream);
	r->reqlen = strlen(r->req);
	r->deadline = evtimer_new(p->base, deadline_cb, r);
	evtimer_add(r->deadline, &tv);
	*p->qtail = r;
	p->qtail = &r->next;
	dispatch(p);
	return r;
}

void
proxy_cancel(struct proxy_req *r)
{
	struct proxy *p;
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
