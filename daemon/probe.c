#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include "clock.h"
#include "probe.h"
#include "xalloc.h"

#define PROBE_MAX_RESPONSE	(1024 * 1024)

struct probe {
	struct bufferevent	*bev;
	struct event		*timer;
	int			 kind;
	double			 started;
	probe_cb		 cb;
	void			*arg;
	struct probe_result	 res;
};

static void
probe_free(struct probe *p)
{
	if (p->bev != NULL)
		bufferevent_free(p->bev);
	if (p->timer != NULL)
		event_free(p->timer);
	free(p->res.body);
	free(p);
}

void
probe_cancel(struct probe *p)
{
	if (p != NULL)
		probe_free(p);
}

const struct probe_result *
probe_result(const struct probe *p)
{
	return &p->res;
}

static void
finish(struct probe *p, int ok, const char *detail)
{
	p->res.ok = ok;
	p->res.seconds = mono_now() - p->started;
	if (detail != NULL)
		snprintf(p->res.detail, sizeof p->res.detail, "%s", detail);
	p->cb(p, p->arg);
	probe_free(p);
}

/* Returns 1 when a complete response is parsed, 0 when more is needed, -1 on garbage. */
static int
parse_response(struct probe *p, int eof)
{
	struct evbuffer *in = bufferevent_get_input(p->bev);
	size_t len = evbuffer_get_length(in);
	const char *data = (const char *)evbuffer_pullup(in, -1), *hdr_end, *cl;
	long clen = -1;
	size_t hlen;

	if (len > PROBE_MAX_RESPONSE)
		return -1;
	if (data == NULL)
		return eof ? -1 : 0;
	hdr_end = memmem(data, len, "\r\n\r\n", 4);
	if (hdr_end == NULL)
		return eof ? -1 : 0;
	hlen = (size_t)(hdr_end - data) + 4;
	if (len < 12 || strncmp(data, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)data[9]))
		return -1;
	p->res.status = atoi(data + 9);
	for (cl = data; cl != NULL && cl < hdr_end; cl = memchr(cl, '\n', (size_t)(hdr_end - cl))) {
		cl++;
		if ((size_t)(hdr_end - cl) > 15 && strncasecmp(cl, "content-length:", 15) == 0) {
			clen = strtol(cl + 15, NULL, 10);
			break;
		}
	}
	if (clen >= 0 && len - hlen < (size_t)clen)
		return eof ? -1 : 0;
	if (clen < 0 && !eof)
		return 0;
	p->res.body_len = clen >= 0 ? (size_t)clen : len - hlen;
	p->res.body = xmalloc(p->res.body_len + 1);
	memcpy(p->res.body, data + hlen, p->res.body_len);
	p->res.body[p->res.body_len] = '\0';
	return 1;
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct probe *p = arg;
	int r = parse_response(p, 0);
	if (r != 0)
		finish(p, r > 0, r < 0 ? "malformed HTTP response" : NULL);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct probe *p = arg;
	if (what & BEV_EVENT_CONNECTED) {
		if (p->kind == PROBE_TCP)
			finish(p, 1, NULL);
		return;
	}
	if (what & BEV_EVENT_EOF) {
		int r = parse_response(p, 1);
		finish(p, r > 0, r > 0 ? NULL : "connection closed before a whole response");
		return;
	}
	if (what & BEV_EVENT_ERROR) {
		int e = EVUTIL_SOCKET_ERROR();
		finish(p, 0, e ? evutil_socket_error_to_string(e) : "connection error");
	}
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct probe *p = arg;
	p->res.timeout = 1;
	finish(p, 0, "timed out");
}

static void
fail_now_cb(evutil_socket_t fd, short what, void *arg)
{
	finish(arg, 0, NULL);
}

struct probe *
probe_start(struct event_base *base, int kind, const char *host, int port, const char *path,
    long timeout_ms, probe_cb cb, void *arg)
{
	struct probe *p = xcalloc(1, sizeof *p);
	struct sockaddr_storage ss;
	int sslen = sizeof ss;
	char addr[128];
	struct timeval tv = ms_tv(timeout_ms);

	if (strchr(host, ':') != NULL)
		snprintf(addr, sizeof addr, "[%s]:%d", host, port);
	else
		snprintf(addr, sizeof addr, "%s:%d", host, port);
	if (evutil_parse_sockaddr_port(addr, (struct sockaddr *)&ss, &sslen) != 0) {
		free(p);
		return NULL;
	}
	p->kind = kind;
	p->cb = cb;
	p->arg = arg;
	p->started = mono_now();
	p->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	p->timer = evtimer_new(base, timeout_cb, p);
	evtimer_add(p->timer, &tv);
	bufferevent_setcb(p->bev, read_cb, NULL, event_cb, p);
	if (kind == PROBE_HTTP) {
		bufferevent_enable(p->bev, EV_READ);
		evbuffer_add_printf(bufferevent_get_output(p->bev),
		    "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: mooncake-sidecar\r\n"
		    "Connection: close\r\n\r\n", path, addr);
	}
	if (bufferevent_socket_connect(p->bev, (struct sockaddr *)&ss, sslen) != 0) {
		/* Failed synchronously: report it from the loop so callers see one code path. */
		struct timeval zero = { 0, 0 };
		snprintf(p->res.detail, sizeof p->res.detail, "connect: %s", strerror(errno));
		event_free(p->timer);
		p->timer = evtimer_new(base, fail_now_cb, p);
		evtimer_add(p->timer, &zero);
	}
	return p;
}
