#ifndef DAEMON_ADMIN_INT_H
#define DAEMON_ADMIN_INT_H
/*
 * The admin server's insides, shared by its four files and included by nothing else:
 *   adminhttp.c   the transport: libmicrohttpd in the loop, the listening socket, limits, TLS,
 *                 answers queued, connections suspended and resumed
 *   adminroute.c  routing and auth: a request from its first byte to the route that answers it,
 *                 the sidecar's own routes (answered now or held)
 *   adminproxy.c  the proxy to the master: its routes, identical GETs coalesced, the 16 MiB and
 *                 504 rules, the mutating routes with their bodies
 *   adminhold.c   held requests: long-polls and event streams, woken once per change
 *   adminctl.c    the operator's routes (POST /control/...): who asks, and the local socket
 * The public face is daemon/admin.h.
 */
#include <stddef.h>
#include <microhttpd.h>
#include <event2/event.h>
#include "addrkey.h"
#include "admin.h"
#include "basic.h"
#include "buf.h"
#include "httpc.h"

/* Each connection's memory (libmicrohttpd's pool, all of it touched): request line and headers up to
 * about 3.5 KiB, and what a held stream costs beside the buffer below (8 KiB was 14 KiB per stream). */
#define ADMIN_MEMORY_LIMIT	4096
#define ADMIN_HEAD_MAX		3584	/* a longer request head is answered 431 (adm_head_too_large) */
#define ADMIN_IDLE_TIMEOUT_S	10	/* libmicrohttpd's: no byte for this long ends a connection */
#define ADMIN_HEAD_TIMEOUT_S	10	/* a whole request head, however slowly it comes (adminconn.c) */
#define ADMIN_PROBE_RESERVE	16	/* connections past admin.max_connections, for /livez and /readyz */
#define ADMIN_EVICT_AFTER_S	0.1	/* at the limit, a connection waiting this long for its head makes room */
#define ADMIN_ACCEPT_BATCH	64	/* connections accepted per wake of the listening socket */
#define ADMIN_STREAM_MAX_MS	3600000	/* ?timeout_ms= of a stream, at most (a long-poll: 60000) */
#define ADMIN_STREAM_HEARD_MS	10000	/* each open stream's query told to the source again this often */
#define ADMIN_STREAM_BLOCK	1024	/* a stream's buffer, per held stream: an endpoints.json event is under 1 KB; a larger one goes out in pieces */
/* admin.busy_poll_us polls only while at most this many admin connections are open: with more
 * (clients in parallel) the loop seldom sleeps anyway, and polling would take the CPU from them and
 * from the master. */
#define ADMIN_BUSY_POLL_CONNECTIONS	2
#define ADMIN_CONTROL_CONNECTIONS	64	/* open on the control socket at once */
#define PROXY_POOL		64		/* connections to the master's admin port */
#define PROXY_MAX_BODY		(16 * 1024 * 1024)
#define WRITE_MAX_BODY		(1024 * 1024)	/* a body of one of the master's mutating routes */

struct request;
struct flight;
struct aconn;
struct keycount;

/* The master's mutating routes: proxied with their body only when admin.write_routes is on (and
 * admin.auth is configured, which -n checks); never public. */
struct write_route {
	const char	*method, *path;
};

struct admin {
	struct admin_params	 p;
	struct MHD_Daemon	*mhd;
	struct event		*io;
	struct event		*timer;
	double			timer_at;	/* when it fires, on mono_now(), while pending */
	struct event		*kick;		/* one MHD_run after all resumes of a loop pass */
	struct event		*heard_ev;	/* adm_heard_cb, while streams are open */
	int			 closing;	/* admin_free: nothing is suspended any more */
	struct basic		*basic;		/* admin.auth.basic_auth_users, or NULL */
	int			 lfd;		/* the listening socket: accepted here, handed to MHD */
	struct event		*accept_ev;
	struct event		*accept_pause;	/* re-arms accept after the fd limit was hit */
	int			 paused;
	/* admin.control_socket: a second libmicrohttpd (never TLS) for its connections */
	struct MHD_Daemon	*cmhd;
	struct event		*cio;
	int			 cfd;		/* its listening socket, or -1 */
	dev_t			 csock_dev;	/* the socket file made for it */
	ino_t			 csock_ino;
	struct event		*caccept_ev;
	struct httpc		*proxy;		/* the master's admin port */
	struct request		*suspended;	/* list of requests waiting for the upstream */
	struct request		*waiters;	/* /endpoints long-polls */
	struct request		*streams;	/* and its streams (?stream=1) */
	long			 nwaiters;	/* both: admin.max_waiters bounds them together */
	struct flight		*flights;	/* upstream GETs in flight, shared by identical requests */
	unsigned long		 coalesced;	/* requests answered by another's upstream GET */
	double			 answered_at;	/* admin.busy_poll_us: when the last answer went out */
	int			 hot;		/* the last request came within busy_poll_us of it */
	/* the admin port's connections (adminconn.c) */
	struct aconn		**byfd;		/* by socket */
	size_t			 nbyfd;
	struct aconn		*heads, *heads_last;	/* waiting for a request head, oldest first */
	long			 nheads;
	long			 nconns, nreserve;	/* open (not shut down); of them past admin.max_connections */
	struct keycount		**keys;		/* connections per client (addrkey) */
	struct event		*sweep;		/* ends those whose head is late */
	struct admin_conn_stats	 conn_stats;
};

/* admin.busy_poll_us, in seconds as mono_now() counts */
static inline double
busy_poll_s(const struct admin *a)
{
	return (double)a->p.cfg->admin.busy_poll_us / 1e6;
}

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
	int			 control;	/* one of the operator's routes (POST /control/...) */
	char			 who[96];	/* who asks: "token", "basic:USER", "uid:N" */
	int			 local;		/* over the control socket: trusted (its mode is 0600) */
	long			 uid;		/* its peer's, there */
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

/* adminhttp.c */
void		 adm_run(struct admin *);	/* libmicrohttpd's work now, and its timer armed */
struct admin_upstream adm_upstream(const struct admin *);
struct MHD_Response *adm_response(const char *ctype, const void *, size_t);
void		 adm_challenge(const struct admin *, struct MHD_Response *);	/* 401: the schemes admin.auth accepts */
enum MHD_Result	 adm_respond(struct request *, int code, const char *ctype, const char *, size_t);
char		*adm_error_json(const struct admin *, const char *);	/* {"error": msg, "state": <master state>} */
enum MHD_Result	 adm_respond_error(struct request *, int code, const char *);
/* 503 with Retry-After: 1; busy: the limit is admin.max_waiters (HTTPRESP_BUSY) */
enum MHD_Result	 adm_retry_later(struct request *, const char *, int busy);
void		 adm_suspend(struct request *);		/* waiting for the upstream */
/* 431 for a request head of len bytes, written on the connection itself, which then closes */
enum MHD_Result	 adm_head_too_large(struct request *, size_t len);
void		 adm_mhd_resume(struct request *);	/* goes on in one MHD_run after this loop pass */
void		 adm_resume(struct request *, int code, struct MHD_Response *);	/* answered with resp */
/* adminconn.c */
void		 adm_conns_init(struct admin *);
void		 adm_conns_free(struct admin *);
/* A connection accepted on the admin port: 0 let in (hand it to libmicrohttpd), -1 refused (close it). */
int		 adm_conn_admit(struct admin *, int fd, const struct sockaddr *, socklen_t);
void		 adm_conn_unadmit(struct admin *, int fd);	/* libmicrohttpd refused it */
void		 adm_conn_notify(void *, struct MHD_Connection *, void **, enum MHD_ConnectionNotificationCode);
int		 adm_conn_request(struct MHD_Connection *);	/* its head is whole: 1 probes only */
void		 adm_conn_answered(struct MHD_Connection *);
void		 adm_conn_stats(const struct admin *, struct admin_conn_stats *);
/* adminroute.c */
enum MHD_Result	 adm_handler(void *, struct MHD_Connection *, const char *, const char *, const char *,
		    const char *, size_t *, void **);
const char	*adm_own_arg(struct request *, const char *key, char *, size_t);
struct MHD_Response *adm_answer_response(const struct admin_answer *);
int		 adm_ask(const struct admin *, const char *path, struct admin_answer *);
enum MHD_Result	 adm_answer_now(struct request *, struct admin_answer *);
void		 adm_tell(struct request *, const char *url, int again);
enum MHD_Result	 adm_busy_answer(struct request *);
/* adminproxy.c */
const struct write_route *adm_write_route_of(const char *method, const char *url);
/* One of the master's routes (or /metrics): *ret, 0; 1 when url is none of them. */
int		 adm_proxy_route(struct request *, const char *url, enum MHD_Result *ret);
void		 adm_flight_leave(struct request *);
/* adminctl.c */
int		 adm_control_path(const char *);	/* /control/... */
int		 adm_local(const struct request *);	/* it came over the control socket */
long		 adm_peer_uid(struct MHD_Connection *);	/* the uid at its other end, or -1 */
/* the source hears of a control request refused with code (400, 401, 403, 405, 413) and why */
void		 adm_control_refused(struct request *, int code, const char *why);
/* The first call of a request to /control/...: method and who checked (0: go on to auth, or
 * answered in *ret: 1). */
int		 adm_control_begin(struct request *, const char *method, enum MHD_Result *ret);
enum MHD_Result	 adm_control_answer(struct request *);
int		 adm_control_listen(struct admin *, char *, size_t);
void		 adm_control_close(struct admin *);
/* adminhold.c */
void		 adm_unwatch(struct request *);
void		 adm_unhold(struct request *);
void		 adm_shared_drop(struct shared *);
void		 adm_sse_drop(struct sse_shared *);
void		 adm_wake_now(struct request *);
void		 adm_stream_end(struct request *);
void		 adm_hold(struct request *, struct request **list, long max_ms);
int		 adm_stream_start(struct request *, const char *url, const char *since, enum MHD_Result *);
void		 adm_heard_cb(evutil_socket_t, short, void *);
#endif
