#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include "clock.h"
#include "proxy.h"
#include "xalloc.h"

#define POOL_MAX	64

struct conn {
	struct evhttp_connection	*evcon;
	int				 inflight;
};

struct proxy {
	struct event_base	*base;
	char			 host[64];
	int			 port;
	char			 upstream[96];
	long			 timeout_ms;
	struct conn		 pool[POOL_MAX];
	int			 npool;
};

struct proxy_req {
	struct proxy		*p;
	struct conn		*c;
	struct evhttp_request	*req;
	struct event		*deadline;
	proxy_cb		 cb;
	void			*arg;
	double			 started;
	int			 error;
};

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
	snprintf(p->host, sizeof p->host, "%s", host);
	p->port = port;
	snprintf(p->upstream, sizeof p->upstream, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
	p->timeout_ms = timeout_ms;
	return p;
}

void
proxy_free(struct proxy *p)
{
	for (int i = 0; i < p->npool; i++)
		evhttp_connection_free(p->pool[i].evcon);
	free(p);
}

/* An idle kept-alive connection, a new one, or the least loaded (evhttp queues behind it). */
static struct conn *
pick(struct proxy *p)
{
	struct conn *best = NULL;
	for (int i = 0; i < p->npool; i++) {
		if (p->pool[i].inflight == 0)
			return &p->pool[i];
		if (best == NULL || p->pool[i].inflight < best->inflight)
			best = &p->pool[i];
	}
	if (p->npool < POOL_MAX) {
		struct conn *c = &p->pool[p->npool++];
		/* The request's own deadline timer bounds the wait; this only stops stale reads. */
		c->evcon = evhttp_connection_base_new(p->base, NULL, p->host, (ev_uint16_t)p->port);
		evhttp_connection_set_timeout(c->evcon, (int)((p->timeout_ms + 999) / 1000) + 1);
		evhttp_connection_set_max_body_size(c->evcon, PROXY_MAX_BODY);
		c->inflight = 0;
		return c;
	}
	return best;
}

static void
finish(struct proxy_req *r, const struct proxy_response *resp)
{
	r->c->inflight--;
	event_free(r->deadline);
	r->cb(resp, r->arg);
	free(r);
}

static void
done_cb(struct evhttp_request *req, void *arg)
{
	struct proxy_req *r = arg;
	struct proxy_response resp = { .seconds = mono_now() - r->started };
	char *body = NULL;

	if (req == NULL || evhttp_request_get_response_code(req) == 0) {
		/* libevent reports a refused connect as EVREQ_HTTP_TIMEOUT; only the request's own
		 * deadline (deadline_cb) means a timeout. */
		resp.outcome = r->error == EVREQ_HTTP_DATA_TOO_LONG ? PROXY_TOO_LARGE : PROXY_FAILED;
		finish(r, &resp);
		return;
	}
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	resp.outcome = PROXY_OK;
	resp.status = evhttp_request_get_response_code(req);
	resp.content_type = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
	resp.len = evbuffer_get_length(in);
	body = xmalloc(resp.len + 1);
	evbuffer_remove(in, body, resp.len);
	body[resp.len] = '\0';
	resp.body = body;
	finish(r, &resp);
	free(body);
}

static void
error_cb(enum evhttp_request_error e, void *arg)
{
	struct proxy_req *r = arg;
	r->error = (int)e;
}

static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_req *r = arg;
	struct proxy_response resp = { .outcome = r->req ? PROXY_TIMEOUT : PROXY_FAILED,
	    .seconds = mono_now() - r->started };
	/* Cancelling resets the connection: a hung master does not keep a pooled socket busy. */
	if (r->req != NULL)
		evhttp_cancel_request(r->req);
	finish(r, &resp);
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
	r->c = pick(p);
	r->req = evhttp_request_new(done_cb, r);
	evhttp_request_set_error_cb(r->req, error_cb);
	evhttp_add_header(evhttp_request_get_output_headers(r->req), "Host", p->upstream);
	r->deadline = evtimer_new(p->base, deadline_cb, r);
	evtimer_add(r->deadline, &tv);
	r->c->inflight++;
	if (evhttp_make_request(r->c->evcon, r->req, EVHTTP_REQ_GET, path) != 0) {
		/* evhttp freed the request; report from the loop so callers see one code path. */
		struct timeval zero = { 0, 0 };
		r->req = NULL;
		event_free(r->deadline);
		r->deadline = evtimer_new(p->base, deadline_cb, r);
		evtimer_add(r->deadline, &zero);
	}
	return r;
}

void
proxy_cancel(struct proxy_req *r)
{
	if (r == NULL)
		return;
	if (r->req != NULL)
		evhttp_cancel_request(r->req);
	r->c->inflight--;
	event_free(r->deadline);
	free(r);
}
