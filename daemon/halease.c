/*
 * The lease of an HA master in its backend (halease.h). Over 600 lines because the two backends
 * (Redis, spoken on a connection of its own per request, and etcd, through its JSON gateway) share
 * one set of operations, their outcomes and the switchover that drives them; split, each half would
 * need the other's private state.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include "buf.h"
#include "child.h"
#include "etcdkv.h"
#include "httpc.h"
#include "clock.h"
#include "hacfg.h"
#include "halease.h"
#include "kvlist.h"
#include "log.h"
#include "resp.h"
#include "url.h"
#include "view.h"
#include "workerenv.h"
#include "xalloc.h"

#define BACKEND_TIMEOUT_MS	1000	/* each request to Redis or etcd */
/* The most a reply to these commands can take: +OK to AUTH and SELECT, an integer to the release,
 * two short strings to HMGET (a master's address and its owner token, each under 128 bytes). */
#define REDIS_REPLY_MAX		4096
/* etcd's answer to a range of one key or a revoke: its header and one key-value, well under this */
#define ETCD_ANSWER_MAX		16384
#define LEARN_RETRY_S		1

/* Delete the lease only while the token is the one given: never a lease a newer leader holds. */
static const char release_script[] =
    "if redis.call('HGET', KEYS[1], 'owner_token') == ARGV[1] then "
    "return redis.call('DEL', KEYS[1]) end return 0";

enum op_kind { OP_LEARN, OP_RELEASE, OP_LEADER };
enum sw_state { SW_NONE, SW_STEPPING_DOWN, SW_WAITING, SW_DONE, SW_FAILED };
static const char *const sw_names[] = { "none", "stepping_down", "waiting", "done", "failed" };
#define SW_TICK_MS	50

/* What a backend answered, the same for Redis and etcd. */
struct answer {
	char		 leader[300];	/* learn, leader: the address the lease names, "" none */
	char		 token[128];	/* learn: Redis's owner token, or etcd's lease ID */
	int		 released;	/* release: 1 released, 0 no such lease left */
};

struct op {
	struct halease		*l;
	struct op		*next;
	int			 kind;
	unsigned		 spawn;
	double			 started;	/* release: when the process was seen gone */
	struct bufferevent	*bev;
	struct httpc_req	*req;		/* etcd: the request */
	struct event		*timer;		/* the timeout, or the failure of the connect itself */
	struct buf		 in;
	int			 skip;		/* replies before the command's own (AUTH, SELECT) */
	char			 why[320];
	halease_leader_cb	 cb;
	void			*arg;
};

struct halease {
	struct event_base	*base;
	int			 etcd;		/* the backend: etcd (its JSON gateway), else Redis */
	struct httpc		*etcd_h[8];	/* etcd: each endpoint's, asked in turn while they fail */
	int			 netcd, etcd_at;
	struct httpc_target	 target;
	char			*key, *self, *user, *password;
	int			 db;
	char			 token[128];	/* the owner token of process spawn, "" unknown */
	unsigned		 token_spawn;
	unsigned		 asking;	/* a learn in flight for this spawn, 0 none */
	unsigned		 exited;	/* the last process seen gone */
	struct event		*retry;		/* a learn Redis did not answer, asked again */
	unsigned		 retry_spawn;
	struct op		*ops;
	void			(*released_cb)(void *);	/* after each release, outside op_done's free */
	void			*released_arg;
	struct {	/* the last switchover */
		int		 state;		/* enum sw_state */
		struct child	*c;
		struct event	*tick;
		double		 asked, deadline;	/* monotonic */
		int		 asking;	/* a leader query in flight */
		double		 took_ms;
		char		 to[300];
		char		 msg[400];
	} sw;
	struct {
		unsigned long	 released, gone, failed;
		double		 last_ms;
		char		 last_error[320];
	} st;
};

static void learn_again(evutil_socket_t, short, void *);

/* etcd: the endpoints of --etcd_endpoints (HOST:PORT;HOST:PORT...), asked through their JSON gateway;
 * the key mooncake-store/<cluster id>/master_view (etcd_leader_coordinator.cpp), whose value is the
 * leader's address under a lease granted for it: the lease ID is the owner token. */
static struct halease *
etcd_new(struct event_base *base, const struct cfg *c, char **args, char *err, size_t len)
{
	const char *eps = workerenv_gflag(args, "etcd_endpoints", 0), *addr = workerenv_gflag(args, "rpc_address", 0);
	struct halease *l;
	char *list, *save = NULL;
	if (eps == NULL || eps[0] == '\0' || addr == NULL) {
		snprintf(err, len, "no --etcd_endpoints or --rpc_address");
		return NULL;
	}
	l = xcalloc(1, sizeof *l);
	l->etcd = 1;
	list = xstrdup(eps);
	for (char *e = strtok_r(list, ";,", &save); e != NULL && l->netcd < 8; e = strtok_r(NULL, ";,", &save)) {
		struct httpc_target t;
		char name[300];
		int port;
		const char *hp = strncmp(e, "http://", 7) == 0 ? e + 7 : e;
		int bad = url_split_hostport(hp, name, sizeof name, &port) != 0;
		if (bad)
			snprintf(err, len, "--etcd_endpoints=%s: %s is not HOST:PORT", eps, e);
		if (bad || httpc_resolve(name, port, &t, err, len) != 0) {
			for (int i = 0; i < l->netcd; i++)
				httpc_free(l->etcd_h[i]);
			free(list);
			free(l);
			return NULL;
		}
		l->etcd_h[l->netcd++] = httpc_new(base, &t, 1, ETCD_ANSWER_MAX, BACKEND_TIMEOUT_MS);
	}
	free(list);
	l->key = xasprintf("mooncake-store/%s/master_view", hacfg_cluster_id(args, &c->master.env));
	l->self = xasprintf("%s:%ld", addr, c->master.rpc_port);
	l->user = xstrdup("");
	l->password = xstrdup("");
	l->base = base;
	l->retry = evtimer_new(base, learn_again, l);
	return l;
}

struct halease *
halease_new(struct event_base *base, const struct cfg *c, char **args, char *err, size_t len)
{
	const char *type = workerenv_gflag(args, "ha_backend_type", 0), *conn, *addr, *cluster, *db, *user, *password;
	char host[320], name[300], *h;
	struct halease *l;
	int port;
	if (!workerenv_gflag_true(args, "enable_ha"))
		return NULL;
	if (type == NULL || strcmp(type, "etcd") == 0)	/* 0.3.12's default backend */
		return etcd_new(base, c, args, err, len);
	if (strcmp(type, "redis") != 0)
		return NULL;
	conn = workerenv_gflag(args, "ha_backend_connstring", 0);
	addr = workerenv_gflag(args, "rpc_address", 0);
	if (conn == NULL || addr == NULL) {
		snprintf(err, len, "no --ha_backend_connstring or --rpc_address");
		return NULL;
	}
	/* HOST[:PORT] as 0.3.12's ParseRedisEndpoint reads it: redis:// and one trailing slash optional,
	 * 6379 by default */
	snprintf(host, sizeof host - 6, "%s", strncmp(conn, "redis://", 8) == 0 ? conn + 8 : conn);
	if ((h = strchr(host, '/')) != NULL)
		*h = '\0';
	h = strrchr(host, ']');
	if (strchr(h != NULL ? h : host, ':') == NULL)
		strcat(host, ":6379");
	if (url_split_hostport(host, name, sizeof name, &port) != 0) {
		snprintf(err, len, "--ha_backend_connstring=%s: not redis://HOST:PORT", conn);
		return NULL;
	}
	l = xcalloc(1, sizeof *l);
	if (httpc_resolve(name, port, &l->target, err, len) != 0) {
		free(l);
		return NULL;
	}
	cluster = hacfg_cluster_id(args, &c->master.env);
	{
		/* 0.3.12's SanitizeHashTagComponent: no trailing slash, braces as underscores */
		char *tag = xstrdup(cluster);
		size_t n = strlen(tag);
		if (n > 0 && tag[n - 1] == '/')
			tag[n - 1] = '\0';
		for (char *p = tag; *p; p++)
			if (*p == '{' || *p == '}')
				*p = '_';
		l->key = xasprintf("mooncake-store/{%s}/master_view", tag);
		free(tag);
	}
	l->self = xasprintf("%s:%ld", addr, c->master.rpc_port);
	/* as the master authenticates and selects (ha/common/redis/redis_connection.cpp) */
	user = hacfg_env(&c->master.env, "MC_REDIS_USERNAME");
	password = hacfg_env(&c->master.env, "MC_REDIS_PASSWORD");
	db = hacfg_env(&c->master.env, "MC_REDIS_DB_INDEX");
	l->user = xstrdup(user != NULL ? user : "");
	l->password = xstrdup(password != NULL ? password : "");
	l->db = db != NULL ? atoi(db) : 0;
	l->base = base;
	l->retry = evtimer_new(base, learn_again, l);
	return l;
}

static void
op_free(struct op *o)
{
	struct op **p = &o->l->ops;
	while (*p != o)
		p = &(*p)->next;
	*p = o->next;
	if (o->bev != NULL)
		bufferevent_free(o->bev);
	httpc_cancel(o->req);
	event_free(o->timer);
	free(o->in.p);
	free(o);
}

static const char *
backend_name(const struct halease *l)
{
	return l->etcd ? "etcd" : "Redis";
}

/* Does the lease name this master: its address, or (etcd, 0.3.13 and later) the marker it writes
 * while it warms up as the leader (learn is asked only once this master says it leads)? */
static int
names_self(const struct halease *l, const char *leader)
{
	return strcmp(leader, l->self) == 0 || (l->etcd && strncmp(leader, ETCDKV_WARMING, strlen(ETCDKV_WARMING)) == 0);
}

/* The backend's answer (a), or its failure (a NULL, o->why). */
static void
op_done(struct op *o, const struct answer *a)
{
	struct halease *l = o->l;
	switch (o->kind) {
	case OP_LEARN:
		if (l->asking == o->spawn)
			l->asking = 0;
		if (a == NULL || !names_self(l, a->leader) || a->token[0] == '\0') {
			log_debug("mooncake_master: its lease in %s not learned: %s", backend_name(l), a == NULL ? o->why :
			    "the lease is not this master's");
			if (a == NULL && l->exited != o->spawn) {	/* no answer: again in a second */
				struct timeval tv = { LEARN_RETRY_S, 0 };
				l->retry_spawn = o->spawn;
				evtimer_add(l->retry, &tv);
			}
			break;
		}
		snprintf(l->token, sizeof l->token, "%s", a->token);
		l->token_spawn = o->spawn;
		log_debug("mooncake_master: holds the lease %s in %s (%s)", l->key, backend_name(l), l->token);
		if (l->exited == o->spawn)
			halease_exited(l, o->spawn);	/* it ended while the backend was asked */
		break;
	case OP_RELEASE:
		l->st.last_ms = (mono_now() - o->started) * 1000.0;
		if (a != NULL && a->released) {
			l->st.released++;
			log_notice("mooncake_master: its leadership released in %s %.1f ms after it ended (%s): "
			    "another master can lead now, not once the lease has lapsed", backend_name(l), l->st.last_ms,
			    l->key);
		} else if (a != NULL) {
			l->st.gone++;
			log_info("mooncake_master: no lease of its left in %s to release (lapsed, or taken)",
			    backend_name(l));
		} else {
			l->st.failed++;
			snprintf(l->st.last_error, sizeof l->st.last_error, "%s", o->why);
			log_warn("mooncake_master: its leadership not released in %s (%s): another master leads "
			    "once the lease lapses (5 s)", backend_name(l), l->st.last_error);
		}
		break;
	case OP_LEADER:	/* a master warming up (0.3.13 and later) is no leader to name yet */
		o->cb(o->arg, a == NULL ? NULL : strncmp(a->leader, ETCDKV_WARMING, strlen(ETCDKV_WARMING)) == 0 ? "" :
		    a->leader, a == NULL ? o->why : NULL);
		break;
	}
	{
		int released = o->kind == OP_RELEASE;
		op_free(o);
		if (released && l->released_cb != NULL)
			l->released_cb(l->released_arg);
	}
}

static void
op_fail(struct op *o, const char *detail)
{
	char d[sizeof o->why];
	snprintf(d, sizeof d, "%s", detail);	/* detail may be o->why itself */
	snprintf(o->why, sizeof o->why, "%s at %.100s: %.200s", backend_name(o->l), o->l->etcd ?
	    httpc_upstream(o->l->etcd_h[o->l->etcd_at]) : o->l->target.name, d);
	op_done(o, NULL);
}

/* Redis's reply to the command, as the answer (0), or -1 with why. */
static int
redis_answer(const struct op *o, const struct resp_reply *r, struct answer *a, char *why, size_t len)
{
	memset(a, 0, sizeof *a);
	switch (o->kind) {
	case OP_LEARN:
		if (r->type != RESP_ARRAY || r->nelem < 2)
			break;
		if (r->elem[0].type == RESP_BULK)
			snprintf(a->leader, sizeof a->leader, "%.*s", (int)r->elem[0].len, r->elem[0].s);
		if (r->elem[1].type == RESP_BULK && r->elem[1].len < sizeof a->token)
			snprintf(a->token, sizeof a->token, "%.*s", (int)r->elem[1].len, r->elem[1].s);
		return 0;
	case OP_RELEASE:
		if (r->type != RESP_INTEGER) {
			snprintf(why, len, "not an integer");
			return -1;
		}
		a->released = r->integer == 1;
		return 0;
	case OP_LEADER:
		if (r->type != RESP_ARRAY || r->nelem < 1)
			break;
		if (r->elem[0].type == RESP_BULK)
			snprintf(a->leader, sizeof a->leader, "%.*s", (int)r->elem[0].len, r->elem[0].s);
		return 0;
	}
	snprintf(why, len, "not an array");
	return -1;
}

static void
op_read(struct bufferevent *bev, void *arg)
{
	struct op *o = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = evbuffer_get_length(in);
	struct resp_reply r;
	char err[200];
	long k;
	buf_room(&o->in, n);
	evbuffer_remove(in, o->in.p + o->in.len, n);
	o->in.len += n;
	while ((k = resp_parse(o->in.p, o->in.len, REDIS_REPLY_MAX, &r, err, sizeof err)) > 0) {
		if (r.type == RESP_ERROR) {
			char e[160];
			snprintf(e, sizeof e, "%.*s", (int)(r.len < 150 ? r.len : 150), r.s);
			op_fail(o, e);
			return;
		}
		if (o->skip == 0) {
			struct answer a;
			if (redis_answer(o, &r, &a, err, sizeof err) != 0)
				op_fail(o, err);
			else
				op_done(o, &a);
			return;
		}
		o->skip--;
		memmove(o->in.p, o->in.p + k, o->in.len - (size_t)k);
		o->in.len -= (size_t)k;
	}
	if (k < 0)
		op_fail(o, err);
}

static void
op_event(struct bufferevent *bev, short what, void *arg)
{
	struct op *o = arg;
	(void)bev;
	if (what & BEV_EVENT_CONNECTED)
		return;
	op_fail(o, what & BEV_EVENT_EOF ? "closed the connection" :
	    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

static void
op_timer(evutil_socket_t fd, short what, void *arg)
{
	struct op *o = arg;
	(void)fd;
	(void)what;
	op_fail(o, o->why[0] ? o->why : "no answer in 1000 ms");
}

/* etcd's answer to the request of o, through its JSON gateway */
static void
etcd_answered(const struct httpc_response *r, void *arg)
{
	struct op *o = arg;
	struct halease *l = o->l;
	struct answer a = { 0 };
	char lease[ETCDKV_LEASE_MAX], err[300];
	int rc;
	o->req = NULL;
	if (r->outcome != HTTPC_OK) {
		op_fail(o, r->detail != NULL ? r->detail : "no answer");
		l->etcd_at = (l->etcd_at + 1) % l->netcd;	/* the next endpoint from now on */
		return;
	}
	if (o->kind == OP_RELEASE) {
		if ((rc = etcdkv_revoke_answer(r->status, r->body, r->len, err, sizeof err)) < 0) {
			op_fail(o, err);
			return;
		}
		a.released = rc;
	} else {
		if ((rc = etcdkv_range_answer(r->status, r->body, r->len, a.leader, sizeof a.leader, lease, sizeof lease,
		    err, sizeof err)) < 0) {
			op_fail(o, err);
			return;
		}
		if (rc == 1 && strcmp(lease, "0") != 0)
			snprintf(a.token, sizeof a.token, "%s", lease);
	}
	op_done(o, &a);
}

static struct op *
op_new(struct halease *l, int kind)
{
	struct op *o = xcalloc(1, sizeof *o);
	o->l = l;
	o->kind = kind;
	o->next = l->ops;
	l->ops = o;
	o->timer = evtimer_new(l->base, op_timer, o);
	return o;
}

/* Ask etcd: the master's key (learn, leader), or the revoke of lease (release). The request's own
 * timeout bounds it. */
static struct op *
etcd_op(struct halease *l, int kind, const char *lease)
{
	struct op *o = op_new(l, kind);
	char body[1024];
	size_t n = kind == OP_RELEASE ? etcdkv_revoke_request(lease, body, sizeof body) :
	    etcdkv_range_request(l->key, body, sizeof body);
	if (n == 0) {
		struct timeval now = { 0, 0 };
		snprintf(o->why, sizeof o->why, "the request does not fit");
		evtimer_add(o->timer, &now);
		return o;
	}
	o->req = httpc_request(l->etcd_h[l->etcd_at], "POST", kind == OP_RELEASE ? ETCDKV_PATH_REVOKE : ETCDKV_PATH_RANGE,
	    "application/json", body, n, BACKEND_TIMEOUT_MS, etcd_answered, o);
	return o;
}


/* Redis: send argv (after AUTH and SELECT when set) on a connection of its own. */
static struct op *
op_send(struct halease *l, int kind, int argc, const char *const *argv)
{
	struct op *o = op_new(l, kind);
	struct buf b = { 0 };
	struct timeval tv = { BACKEND_TIMEOUT_MS / 1000, (BACKEND_TIMEOUT_MS % 1000) * 1000 };
	if (l->password[0]) {
		const char *auth[] = { "AUTH", l->user, l->password };
		if (l->user[0])
			resp_command(&b, 3, auth, NULL);
		else {
			auth[1] = l->password;
			resp_command(&b, 2, auth, NULL);
		}
		o->skip++;
	}
	if (l->db != 0) {
		char db[16];
		const char *sel[] = { "SELECT", db };
		snprintf(db, sizeof db, "%d", l->db);
		resp_command(&b, 2, sel, NULL);
		o->skip++;
	}
	resp_command(&b, argc, argv, NULL);
	o->bev = bufferevent_socket_new(l->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (o->bev == NULL || bufferevent_socket_connect(o->bev, (struct sockaddr *)&l->target.addr[0],
	    (int)l->target.addrlen[0]) != 0) {
		/* said from the loop, never inside this call */
		snprintf(o->why, sizeof o->why, "connect: %s", strerror(errno ? errno : EIO));
		tv.tv_sec = 0;
		tv.tv_usec = 0;
	} else {
		bufferevent_setcb(o->bev, op_read, NULL, op_event, o);
		bufferevent_setwatermark(o->bev, EV_READ, 0, REDIS_REPLY_MAX + 1);
		bufferevent_write(o->bev, b.p, b.len);
		bufferevent_enable(o->bev, EV_READ);
	}
	evtimer_add(o->timer, &tv);
	free(b.p);
	return o;
}

static void
learn_again(evutil_socket_t fd, short what, void *arg)
{
	struct halease *l = arg;
	(void)fd;
	(void)what;
	if (l->exited != l->retry_spawn)
		halease_learn(l, l->retry_spawn);
}

void
halease_learn(struct halease *l, unsigned spawn)
{
	if (l == NULL || (l->token[0] && l->token_spawn == spawn) || l->asking == spawn)
		return;
	const char *argv[] = { "HMGET", l->key, "leader_address", "owner_token" };
	l->asking = spawn;
	(l->etcd ? etcd_op(l, OP_LEARN, NULL) : op_send(l, OP_LEARN, 4, argv))->spawn = spawn;
}

void
halease_exited(struct halease *l, unsigned spawn)
{
	struct op *o;
	if (l == NULL)
		return;
	l->exited = spawn;
	if (!l->token[0] || l->token_spawn != spawn)
		return;
	const char *argv[] = { "EVAL", release_script, "1", l->key, l->token };
	o = l->etcd ? etcd_op(l, OP_RELEASE, l->token) : op_send(l, OP_RELEASE, 5, argv);
	o->started = mono_now();
	l->token[0] = '\0';
}

void
halease_leader(struct halease *l, halease_leader_cb cb, void *arg)
{
	const char *argv[] = { "HMGET", l->key, "leader_address" };
	struct op *o = l->etcd ? etcd_op(l, OP_LEADER, NULL) : op_send(l, OP_LEADER, 3, argv);
	o->cb = cb;
	o->arg = arg;
}

const char *
halease_self(const struct halease *l)
{
	return l->self;
}

/* The switchover ends (l->sw.msg says how): the master starts again. */
static void
sw_end(struct halease *l, int state)
{
	l->sw.state = state;
	evtimer_del(l->sw.tick);
	child_start(l->sw.c);
	if (state == SW_DONE)
		log_notice("switchover: %s", l->sw.msg);
	else
		log_warn("switchover: %s", l->sw.msg);
}

static void
sw_leader(void *arg, const char *leader, const char *why)
{
	struct halease *l = arg;
	l->sw.asking = 0;
	if (l->sw.state != SW_WAITING)
		return;
	if (leader != NULL && leader[0] && strcmp(leader, l->self) != 0) {
		snprintf(l->sw.to, sizeof l->sw.to, "%s", leader);
		l->sw.took_ms = (mono_now() - l->sw.asked) * 1000.0;
		snprintf(l->sw.msg, sizeof l->sw.msg, "%.300s leads now, %.0f ms after the request; this master "
		    "starts again as its standby", leader, l->sw.took_ms);
		sw_end(l, SW_DONE);
	} else if (why != NULL)
		log_debug("switchover: %s", why);
}

static void
sw_tick(evutil_socket_t fd, short what, void *arg)
{
	struct halease *l = arg;
	(void)fd;
	(void)what;
	if (mono_now() >= l->sw.deadline) {
		l->sw.took_ms = (mono_now() - l->sw.asked) * 1000.0;
		snprintf(l->sw.msg, sizeof l->sw.msg, "no other master took the lead (%s) within %.0f ms; this "
		    "master starts again and may lead again", l->sw.state == SW_STEPPING_DOWN ?
		    "this one did not stop" : l->etcd ? "etcd names none" : "Redis names none", l->sw.took_ms);
		sw_end(l, SW_FAILED);
		return;
	}
	if (l->sw.state == SW_STEPPING_DOWN && !child_running(l->sw.c))
		l->sw.state = SW_WAITING;
	if (l->sw.state == SW_WAITING && !l->sw.asking) {
		l->sw.asking = 1;
		halease_leader(l, sw_leader, l);
	}
}

int
halease_releasing(const struct halease *l)
{
	if (l == NULL)
		return 0;
	for (const struct op *o = l->ops; o != NULL; o = o->next)
		if (o->kind == OP_RELEASE)
			return 1;
	return 0;
}

void
halease_on_release(struct halease *l, void (*cb)(void *), void *arg)
{
	if (l == NULL)
		return;
	l->released_cb = cb;
	l->released_arg = arg;
}

int
halease_switching(const struct halease *l)
{
	return l->sw.state == SW_STEPPING_DOWN || l->sw.state == SW_WAITING;
}

int
halease_switchover(struct halease *l, struct child *c, long timeout_ms, char *msg, size_t len)
{
	struct timeval tv = { 0, SW_TICK_MS * 1000 };
	if (halease_switching(l)) {
		snprintf(msg, len, "a switchover runs already (%s)", sw_names[l->sw.state]);
		return 200;
	}
	if (l->sw.tick == NULL)
		l->sw.tick = event_new(l->base, -1, EV_PERSIST, sw_tick, l);
	l->sw.c = c;
	l->sw.state = SW_STEPPING_DOWN;
	l->sw.asked = mono_now();
	l->sw.deadline = l->sw.asked + (double)timeout_ms / 1000.0;
	l->sw.to[0] = '\0';
	l->sw.msg[0] = '\0';
	child_hold(c);
	evtimer_add(l->sw.tick, &tv);
	snprintf(msg, len, "the leader %s steps down: its lease is released, and it starts again once another "
	    "master leads; GET /status master.ha.switchover follows it", l->self);
	log_notice("switchover: %s", msg);
	return 202;
}

void
halease_view(const struct halease *l, struct view *v)
{
	if (l == NULL)
		return;
	v->ha_lease_on = 1;
	v->ha_sw_state = l->sw.state != SW_NONE ? sw_names[l->sw.state] : NULL;
	v->ha_sw_from = view_str(v, l->self);
	v->ha_sw_to = l->sw.to[0] ? view_str(v, l->sw.to) : NULL;
	v->ha_sw_took_ms = l->sw.state == SW_DONE || l->sw.state == SW_FAILED ? l->sw.took_ms :
	    (mono_now() - l->sw.asked) * 1000.0;
	v->ha_sw_msg = l->sw.msg[0] ? view_str(v, l->sw.msg) : NULL;
	v->ha_lease_released = l->st.released;
	v->ha_lease_gone = l->st.gone;
	v->ha_lease_failed = l->st.failed;
	v->ha_lease_last_ms = l->st.last_ms;
	v->ha_lease_error = l->st.last_error[0] ? view_str(v, l->st.last_error) : NULL;
}

void
halease_free(struct halease *l)
{
	if (l == NULL)
		return;
	while (l->ops != NULL)
		op_free(l->ops);
	if (l->sw.tick != NULL)
		event_free(l->sw.tick);
	event_free(l->retry);
	for (int i = 0; i < l->netcd; i++)
		httpc_free(l->etcd_h[i]);
	free(l->key);
	free(l->self);
	free(l->user);
	free(l->password);
	free(l);
}
