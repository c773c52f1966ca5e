#ifndef DAEMON_HTTPC_H
#define DAEMON_HTTPC_H
#include <stddef.h>
#include <sys/socket.h>
#include <event2/event.h>
#include "httptarget.h"

/*
 * The one HTTP/1.1 client of the daemon: the admin proxy, the master's probes, the follower and
 * --status all use it. A pool of kept-alive connections to one upstream, its addresses tried in
 * order; responses parsed by common/httpresp.c. A callback never runs inside the call that
 * registered it: a failure found at once (EMFILE, EADDRNOTAVAIL, a family mismatch...) is reported
 * from the loop.
 */

enum httpc_outcome {
	HTTPC_OK,		/* a whole response arrived (any status) */
	HTTPC_FAILED,		/* the peer: refused, reset, closed early */
	HTTPC_TIMEOUT,		/* the request's own, or the kernel's for a silent peer (ETIMEDOUT) */
	HTTPC_TOO_LARGE,	/* the body is over the pool's cap */
	HTTPC_BAD_RESPONSE,	/* not HTTP/1.x, a status outside 100..599, broken framing */
	HTTPC_LOCAL		/* the sidecar's own trouble: EMFILE, ENFILE, ENOBUFS, ENOMEM */
};

struct httpc_response {
	int		 outcome;
	int		 status;
	const char	*content_type;	/* NULL when the upstream sent none */
	int		 busy;		/* another sidecar said it is busy (HTTPRESP_BUSY) */
	const char	*body;		/* NUL-terminated */
	size_t		 len;
	double		 seconds;
	const char	*detail;	/* why it failed ("connect: Connection refused") */
	int		 err;		/* and the errno the kernel gave for it, or 0 */
};

struct httpc;
struct httpc_req;
typedef void (*httpc_cb)(const struct httpc_response *, void *);


struct httpc	*httpc_new(struct event_base *, const struct httpc_target *, int pool_max,
		    size_t max_body, long timeout_ms);
void		 httpc_free(struct httpc *);
const char	*httpc_upstream(const struct httpc *);
/* Send "Authorization: Bearer token" with every request (NULL or "": none): another sidecar's
 * admin API with admin.auth. */
void		 httpc_set_bearer(struct httpc *, const char *);
/* https: speak TLS with these gnutls certificate credentials (the caller keeps them alive longer),
 * the certificate checked against name (NULL credentials: plain HTTP again). */
void		 httpc_set_tls(struct httpc *, void *, const char *);
/* GET path (with its query) within timeout_ms (0: the pool's). cb is called exactly once, from the
 * loop, unless the request is cancelled first. A callback must not cancel its own request. */
struct httpc_req *httpc_get(struct httpc *, const char *, long, httpc_cb, void *);
/* A streamed answer (text/event-stream): as httpc_get, and also, once its headers are read and
 * each time more of its body has come, data is called with the body so far (outcome HTTPC_OK, its
 * status and content type); it returns how many of those bytes it used, which are dropped (the
 * pool's cap counts the rest). cb then gets whatever was left when the answer ends. data must not
 * cancel the request. */
/* TCP keepalive on a socket: a peer that vanished (its machine gone, no FIN) is noticed after
 * HTTPC_KEEPALIVE_IDLE_S of silence and HTTPC_KEEPALIVE_CNT unanswered probes HTTPC_KEEPALIVE_INTVL_S
 * apart (25 s), as is data it never acknowledges; the kernel sends and answers the probes, so an idle
 * connection costs the loop nothing. httpc_set_keepalive: on every connection of the pool. */
#define HTTPC_KEEPALIVE_IDLE_S	10
#define HTTPC_KEEPALIVE_INTVL_S	5
#define HTTPC_KEEPALIVE_CNT	3
void	httpc_keepalive_fd(int);
void	httpc_set_keepalive(struct httpc *);
typedef size_t (*httpc_data_cb)(const struct httpc_response *, void *);
struct httpc_req *httpc_watch(struct httpc *, const char *, long, httpc_data_cb, httpc_cb, void *);
/* 1 when r is a 200 whose body is an event stream (text/event-stream). */
int		 httpc_is_stream(const struct httpc_response *);
/* method path with a body of len bytes (Content-Type ctype, or none when NULL): the master's
 * mutating admin routes. As httpc_get, except that it is never sent twice. */
struct httpc_req *httpc_request(struct httpc *, const char *, const char *, const char *, const char *,
		    size_t, long, httpc_cb, void *);
/* Only open a fresh connection (a TCP probe): HTTPC_OK once connected. */
struct httpc_req *httpc_connect(struct httpc *, long, httpc_cb, void *);
void		 httpc_cancel(struct httpc_req *);
/* Is an errno the sidecar's own resource trouble rather than the peer's? */
int		 httpc_local_errno(int);
#endif
