/*
 * The admin port's connections, admitted and bounded here (libmicrohttpd's own limits are set
 * above these and never decide):
 *   - admin.max_connections_per_ip from one client: an IPv4 address or an IPv6 /64 (addrkey.h);
 *   - a request head (request line and headers) arrives whole within ADMIN_HEAD_TIMEOUT_S of the
 *     connection's start, or within ADMIN_IDLE_TIMEOUT_S + ADMIN_HEAD_TIMEOUT_S of the previous
 *     answer on a kept-alive connection, however slowly its bytes come (libmicrohttpd's idle
 *     timeout starts again at every byte, so a byte a second would hold a connection for good);
 *   - at admin.max_connections, a new connection takes the place of the one that has waited
 *     longest for a request head (a slow or idle client: it has sent no request to answer);
 *   - when every connection is busy with a request (held streams and long-polls, proxied
 *     requests), ADMIN_PROBE_RESERVE more are let in, for /livez and /readyz only: no traffic,
 *     ordinary or hostile, can keep the probes that decide a restart from being answered.
 * A connection is ended by shutting its socket down: libmicrohttpd reads the end and closes it.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "admin_int.h"
#include "clock.h"
#include "log.h"
#include "xalloc.h"

#define KEY_BUCKETS	1024

struct aconn {
	struct admin		*a;
	int			 fd;
	struct addrkey		 key;
	int			 reserve;	/* let in beyond admin.max_connections: probes only */
	int			 cut;		/* shut down, not yet closed by libmicrohttpd */
	int			 in_head;	/* waiting for a request head */
	double			 since;		/* from when */
	double			 limit;		/* seconds it may take */
	struct aconn		*prev, *next;	/* in a->heads, oldest first */
};

struct keycount {
	struct addrkey		 key;
	long			 n;
	struct keycount		*next;
};

static struct keycount **
key_slot(struct admin *a, const struct addrkey *k)
{
	struct keycount **pp;
	if (a->keys == NULL)
		a->keys = xcalloc(KEY_BUCKETS, sizeof *a->keys);
	for (pp = &a->keys[addrkey_hash(k) % KEY_BUCKETS]; *pp != NULL; pp = &(*pp)->next)
		if (addrkey_eq(&(*pp)->key, k))
			break;
	return pp;
}

static long
key_count(struct admin *a, const struct addrkey *k)
{
	struct keycount **pp = key_slot(a, k);
	return *pp != NULL ? (*pp)->n : 0;
}

static void
key_add(struct admin *a, const struct addrkey *k, int d)
{
	struct keycount **pp = key_slot(a, k), *e = *pp;
	if (e == NULL) {
		e = *pp = xcalloc(1, sizeof *e);
		e->key = *k;
	}
	if ((e->n += d) <= 0) {
		*pp = e->next;
		free(e);
	}
}

static void
head_unlink(struct aconn *c)
{
	struct admin *a = c->a;
	if (!c->in_head)
		return;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		a->heads = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		a->heads_last = c->prev;
	c->prev = c->next = NULL;
	c->in_head = 0;
	a->nheads--;
}

static void
sweep_arm(struct admin *a)
{
	struct timeval tv = { 1, 0 };
	if (a->heads != NULL && !evtimer_pending(a->sweep, NULL))
		evtimer_add(a->sweep, &tv);
}

static void
head_wait(struct aconn *c, double limit)
{
	struct admin *a = c->a;
	head_unlink(c);
	if (c->cut)
		return;
	c->in_head = 1;
	a->nheads++;
	c->since = mono_now();
	c->limit = limit;
	c->prev = a->heads_last;
	if (a->heads_last != NULL)
		a->heads_last->next = c;
	else
		a->heads = c;
	a->heads_last = c;
	sweep_arm(a);
}

static void conn_leave(struct aconn *);

/* End it: libmicrohttpd finds the socket shut down on its next run and closes the connection. */
static void
cut(struct aconn *c, unsigned long *counter)
{
	head_unlink(c);
	if (c->cut)
		return;
	conn_leave(c);
	(*counter)++;
	shutdown(c->fd, SHUT_RDWR);
	event_active(c->a->kick, EV_TIMEOUT, 0);
}

static void
sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	double now = mono_now();
	struct aconn *c, *next;
	(void)fd;
	(void)what;
	for (c = a->heads; c != NULL; c = next) {
		next = c->next;
		if (now - c->since >= c->limit)
			cut(c, &a->conn_stats.head_timeouts);
	}
	sweep_arm(a);
}

void
adm_conns_init(struct admin *a)
{
	a->sweep = evtimer_new(a->p.base, sweep_cb, a);
}

void
adm_conns_free(struct admin *a)
{
	if (a->keys != NULL)
		for (size_t i = 0; i < KEY_BUCKETS; i++)
			while (a->keys[i] != NULL) {
				struct keycount *e = a->keys[i];
				a->keys[i] = e->next;
				free(e);
			}
	free(a->keys);
	a->keys = NULL;
	free(a->byfd);
	a->byfd = NULL;
	a->nbyfd = 0;
	if (a->sweep != NULL)
		event_free(a->sweep);
	a->sweep = NULL;
}

int
adm_conn_admit(struct admin *a, int fd, const struct sockaddr *sa, socklen_t len)
{
	const struct cfg *cfg = a->p.cfg;
	struct addrkey k = addrkey_of(sa, len);
	int reserve = 0;
	struct aconn *c;
	if (k.family != 0 && cfg->admin.max_connections_per_ip > 0 &&
	    key_count(a, &k) >= cfg->admin.max_connections_per_ip) {
		a->conn_stats.refused_per_address++;
		return -1;
	}
	if (a->nconns - a->nreserve >= cfg->admin.max_connections) {
		/* full: the connection that has waited longest for a request head gives its place,
		 * unless it has only just connected (its head may be on its way); else one of the
		 * probes' reserve */
		if (a->heads != NULL && mono_now() - a->heads->since >= ADMIN_EVICT_AFTER_S) {
			reserve = a->heads->reserve;
			cut(a->heads, &a->conn_stats.evicted);
		} else if (a->nreserve < ADMIN_PROBE_RESERVE)
			reserve = 1;
		else {
			a->conn_stats.refused_full++;
			return -1;
		}
	}
	if ((size_t)fd >= a->nbyfd) {
		size_t n = a->nbyfd ? a->nbyfd : 1024;
		while (n <= (size_t)fd)
			n *= 2;
		a->byfd = xrealloc(a->byfd, n * sizeof *a->byfd);
		memset(a->byfd + a->nbyfd, 0, (n - a->nbyfd) * sizeof *a->byfd);
		a->nbyfd = n;
	}
	c = xcalloc(1, sizeof *c);
	c->a = a;
	c->fd = fd;
	c->key = k;
	c->reserve = reserve;
	a->byfd[fd] = c;
	a->nconns++;
	a->nreserve += reserve;
	if (k.family != 0)
		key_add(a, &k, 1);
	head_wait(c, ADMIN_HEAD_TIMEOUT_S);
	return 0;
}

/* It no longer counts against the limits: shut down, or closed. */
static void
conn_leave(struct aconn *c)
{
	struct admin *a = c->a;
	if (c->cut)
		return;
	c->cut = 1;
	a->nconns--;
	a->nreserve -= c->reserve;
	if (c->key.family != 0)
		key_add(a, &c->key, -1);
}

static void
conn_drop(struct aconn *c)
{
	struct admin *a = c->a;
	head_unlink(c);
	conn_leave(c);
	if ((size_t)c->fd < a->nbyfd && a->byfd[c->fd] == c)
		a->byfd[c->fd] = NULL;
	free(c);
}

/* MHD_add_connection refused fd (and closed it): it was never started. */
void
adm_conn_unadmit(struct admin *a, int fd)
{
	if ((size_t)fd < a->nbyfd && a->byfd[fd] != NULL)
		conn_drop(a->byfd[fd]);
}

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION, for the admin port's daemon. */
void
adm_conn_notify(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct admin *a = cls;
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		int fd = ci != NULL ? ci->connect_fd : -1;
		*ctx = fd >= 0 && (size_t)fd < a->nbyfd ? a->byfd[fd] : NULL;
	} else if (what == MHD_CONNECTION_NOTIFY_CLOSED && *ctx != NULL) {
		conn_drop(*ctx);
		*ctx = NULL;
	}
}

static struct aconn *
conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci != NULL ? ci->socket_context : NULL;
}

/* A request's head has arrived whole: 1 when its connection was let in for the probes only. */
int
adm_conn_request(struct MHD_Connection *conn)
{
	struct aconn *c = conn_of(conn);
	if (c == NULL)
		return 0;	/* the control socket's */
	head_unlink(c);
	return c->reserve;
}

/* A request was answered: a kept-alive connection waits for the next head. */
void
adm_conn_answered(struct MHD_Connection *conn)
{
	struct aconn *c = conn_of(conn);
	if (c != NULL)
		head_wait(c, ADMIN_IDLE_TIMEOUT_S + ADMIN_HEAD_TIMEOUT_S);
}

void
adm_conn_stats(const struct admin *a, struct admin_conn_stats *st)
{
	*st = a->conn_stats;
	st->open = a->nconns;
	st->waiting_head = a->nheads;
}
