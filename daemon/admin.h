#ifndef DAEMON_ADMIN_H
#define DAEMON_ADMIN_H
#include <stddef.h>
#include <event2/event.h>
#include "cfg.h"
#include "kvlist.h"

struct admin;
struct httpc_target;
struct tls_pem;

/*
 * The admin HTTP server, a transport: it listens (TLS when admin.tls says so), checks admin.auth,
 * keeps its limits, holds long-polls and proxies the master's admin routes, and knows nothing of the
 * daemon's state. What it answers besides the master's routes comes from the source it is given.
 */

/* One answer of the sidecar's own routes. */
struct admin_answer {
	int		 code;
	const char	*ctype;
	char		*body;		/* malloc'd; the server frees it */
	size_t		 len;
	char		 etag[40];	/* "": none; a route with one can be long-polled with ?since=<etag> */
	const char	*retry_after;	/* a Retry-After header, or NULL */
};

/* What the server needs to know of the master to proxy to it. */
struct admin_upstream {
	const char	*state;		/* its state, for error bodies: "ready", "backoff", ..., "absent" */
	int		 here;		/* a master runs on this node */
	int		 running;	/* its process runs: a proxied request may be sent */
	int		 metrics;	/* /metrics waits for its part (its admin port answered the last probe) */
};

/* One operator action (POST /control/VERB?target=T), after auth: the source carries it out at once
 * (never waiting) and answers; refused, it only records and counts what the server refused. */
struct admin_control {
	const char	*verb;		/* what follows /control/ */
	const char	*target;	/* ?target=, or NULL */
	const char	*who;		/* "token", "basic:USER", "uid:N" (the local socket's peer), "anonymous" */
	int		 refused;	/* 0, or the HTTP status the server answered with (400, 401, 403, 405, 413) */
	const char	*why;		/* refused: the answer's message */
};

struct admin_source {
	/* The sidecar's own route path: ans filled, 0; -1 when path is none of its routes. */
	int	(*answer)(void *, const char *, struct admin_answer *);
	/* The ETag path's answer would carry, without making the answer (a long-poll that would be
	 * held costs no rendering): 0, or -1 when path has none. */
	int	(*tag)(void *, const char *, char *, size_t);
	/* What a request to one of its routes said in its query (decoded), before it is answered: a
	 * gang's member node reports its failures in its poll of /gangs. again: told again of a stream
	 * still open (its client is there; what it said is not news, and a newer request of the same
	 * client may have said more). NULL: nothing to hear. */
	void	(*heard)(void *, const char *, const struct kvlist *, int again);
	void	(*upstream)(void *, struct admin_upstream *);
	/* An operator action: ans filled (JSON) */
	void	(*control)(void *, const struct admin_control *, struct admin_answer *);
	void	*arg;
};

struct admin_params {
	struct event_base		*base;
	const struct cfg		*cfg;
	const char			*token;		/* admin.auth's bearer token, or "" */
	struct tls_pem			*tls;		/* admin.tls (cert NULL: plain HTTP); SIGHUP refills it */
	const struct httpc_target	*master;	/* the master's admin port, or NULL when none runs here */
	struct admin_source		 source;
	double				*busy_until;	/* admin.busy_poll_us: the loop polls until then */
};

/* Start the admin HTTP server on admin.listen, driven by the loop. NULL with err filled when it
 * cannot listen. */
struct admin	*admin_new(const struct admin_params *, char *, size_t);
/* Answer every held request and stop listening. */
void		 admin_free(struct admin *);
/* SIGHUP: serve admin.tls's certificate and key as the files now say (when they are good). */
void		 admin_reload_tls(struct admin *);
/* Something a long-poll may wait on changed: ask the source again and answer those it concerns
 * (one answer per route, shared by every request that waits on it). */
void		 admin_changed(struct admin *);
/* The port it listens on (admin.listen may ask for any free one, port 0). */
int		 admin_port(const struct admin *);
/* The admin port's connections: open now, waiting for a request head now, and how many were ended
 * or refused for each of its limits since the start (daemon/adminconn.c). */
struct admin_conn_stats {
	long		open, waiting_head;
	unsigned long	head_timeouts;		/* no whole request head in time */
	unsigned long	evicted;		/* made room at admin.max_connections */
	unsigned long	refused_per_address;	/* admin.max_connections_per_ip */
	unsigned long	refused_full;		/* admin.max_connections and the probes' reserve all taken */
	unsigned long	reserve_refused;	/* a reserve connection asked for other than /livez, /readyz */
};
void		 admin_conn_stats(const struct admin *, struct admin_conn_stats *);
/* Is path free for admin.control_socket (nothing there, or a socket)? -1 with err when it is not. */
int		 admin_control_socket_check(const char *path, char *err, size_t errlen);
/* Requests answered by an identical upstream GET already in flight (coalesced). */
unsigned long	 admin_coalesced(const struct admin *);
/* Long-polls held now. */
long		 admin_long_polls(const struct admin *);
#endif
