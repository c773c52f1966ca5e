#ifndef DAEMON_PROXY_H
#define DAEMON_PROXY_H
#include <stddef.h>
#include <event2/event.h>

#define PROXY_MAX_BODY	(16 * 1024 * 1024)

enum proxy_outcome { PROXY_OK, PROXY_FAILED, PROXY_TIMEOUT, PROXY_TOO_LARGE };

struct proxy_response {
	int		 outcome;
	int		 status;
	const char	*content_type;	/* NULL when the upstream sent none */
	const char	*body;
	size_t		 len;
	double		 seconds;
};

struct proxy;
struct proxy_req;
typedef void (*proxy_cb)(const struct proxy_response *, void *);

/* A pool of kept-alive HTTP/1.1 connections to one upstream (the master's admin port). */
struct proxy	*proxy_new(struct event_base *, const char *, int, long);
void		 proxy_free(struct proxy *);
const char	*proxy_upstream(const struct proxy *);
/* GET path (with its query) upstream within timeout_ms (0: the pool's); cb is called exactly once
 * unless the request is cancelled. */
struct proxy_req *proxy_get(struct proxy *, const char *, long, proxy_cb, void *);
void		 proxy_cancel(struct proxy_req *);
#endif
