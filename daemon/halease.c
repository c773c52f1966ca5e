#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include "buf.h"
#include "child.h"
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

#define REDIS_TIMEOUT_MS	1000
/* The most a reply to these commands can take: +OK to AUTH and SELECT, an integer to the release,
 * two short strings to HMGET (a master's address and its owner token, each under 128 bytes). */
#define REDIS_REPLY_MAX		4096
#define LEARN_RETRY_S		1

/* Delete the lease only while the token is the one given: never a lease a newer leader holds. */
static const char release_script[] =
    "if redis.call('HGET', KEYS[1], 'owner_token') == ARGV[1] then "
    "return redis.call('DEL', KEYS[1]) end return 0";

enum op_kind { OP_LEARN, OP_RELEASE, OP_LEADER };
enum sw_state { SW_NONE, SW_STEPPING_DOWN, SW_WAITING, SW_DONE, SW_FAILED };
static const char *const sw_names[] = { "none", "stepping_down", "waiting", "done", "failed" };
#define SW_TICK_MS	50

struct op {
	struct halease		*l;
	struct op		*next;
	int			 kind;
	unsigned		 spawn;
	double			 started;	/* release: when the process was seen gone */
	struct bufferevent	*bev;
	struct event		*timer;		/* the timeout, or the failure of the connect itself */
	struct buf		 in;
	int			 skip;		/* replies before the command's own (AUTH, SELECT) */
	char			 why[320];
	halease_leader_cb	 cb;
	void			*arg;
};

struct halease {
	struct event_base	*base;
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

struct halease *
halease_new(struct event_base *base, const struct cfg *c, char **args, char *err, size_t len)
{
	const char *type = workerenv_gflag(args, "ha_backend_type", 0), *conn, *addr, *cluster, *db, *user, *password;
	char host[320], name[300], *h;
	struct halease *l;
	int port;
	if (!workerenv_gflag_true(args, "enable_ha") || type == NULL || strcmp(type, "redis") != 0)
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
	event_free(o->timer);
	free(o->in.p);
	free(o);
}

/* The command's answer (r), or its failure (r NULL, o->why). */
static void
op_done(struct op *o, const struct resp_reply *r)
{
	struct halease *l = o->l;
	switch (o->kind) {
	case OP_LEARN:
		if (l->asking == o->spawn)
			l->asking = 0;
		if (r == NULL || r->type != RESP_ARRAY || r->nelem < 2 || !resp_elem_is(r, 0, l->self) ||
		    r->elem[1].type != RESP_BULK || r->elem[1].len == 0 || r->elem[1].len >= sizeof l->token) {
			log_debug("mooncake_master: its lease in Redis not learned: %s", r == NULL ? o->why :
			    "the lease is not this master's");
			if (r == NULL && l->exited != o->spawn) {	/* Redis did not answer: again in a second */
				struct timeval tv = { LEARN_RETRY_S, 0 };
				l->retry_spawn = o->spawn;
				evtimer_add(l->retry, &tv);
			}
			break;
		}
		memcpy(l->token, r->elem[1].s, r->elem[1].len);
		l->token[r->elem[1].len] = '\0';
		l->token_spawn = o->spawn;
		log_debug("mooncake_master: holds the lease %s in Redis", l->key);
		if (l->exited == o->spawn)
			halease_exited(l, o->spawn);	/* it ended while Redis was asked */
		break;
	case OP_RELEASE:
		l->st.last_ms = (mono_now() - o->started) * 1000.0;
		if (r != NULL && r->type == RESP_INTEGER && r->integer == 1) {
			l->st.released++;
			log_notice("mooncake_master: its leadership released in Redis %.1f ms after it ended (%s): "
			    "another master can lead now, not once the lease has lapsed", l->st.last_ms, l->key);
		} else if (r != NULL && r->type == RESP_INTEGER) {
			l->st.gone++;
			log_info("mooncake_master: no lease of its left in Redis to release (lapsed, or taken)");
		} else {
			l->st.failed++;
			snprintf(l->st.last_error, sizeof l->st.last_error, "%s", r == NULL ? o->why : "not an integer");
			log_warn("mooncake_master: its leadership not released in Redis (%s): another master leads "
			    "once the lease lapses (5 s)", l->st.last_error);
		}
		break;
	case OP_LEADER:
		if (r != NULL && r->type == RESP_ARRAY && r->nelem >= 1 && r->elem[0].type == RESP_BULK) {
			char leader[300];
			snprintf(leader, sizeof leader, "%.*s", (int)r->elem[0].len, r->elem[0].s);
			o->cb(o->arg, leader, NULL);
		} else if (r != NULL && r->type == RESP_ARRAY && r->nelem >= 1)
			o->cb(o->arg, "", NULL);
		else
			o->cb(o->arg, NULL, r == NULL ? o->why : "not an array");
		break;
	}
	op_free(o);
}

static void
op_fail(struct op *o, const char *detail)
{
	char d[sizeof o->why];
	snprintf(d, sizeof d, "%s", detail);	/* detail may be o->why itself */
	snprintf(o->why, sizeof o->why, "Redis at %.100s: %.200s", o->l->target.name, d);
	op_done(o, NULL);
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
			op_done(o, &r);
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

/* Send argv (after AUTH and SELECT when set) on a connection of its own. */
static struct op *
op_send(struct halease *l, int kind, int argc, const char *const *argv)
{
	struct op *o = xcalloc(1, sizeof *o);
	struct buf b = { 0 };
	struct timeval tv = { REDIS_TIMEOUT_MS / 1000, (REDIS_TIMEOUT_MS % 1000) * 1000 };
	o->l = l;
	o->kind = kind;
	o->next = l->ops;
	l->ops = o;
	o->timer = evtimer_new(l->base, op_timer, o);
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
	op_send(l, OP_LEARN, 4, argv)->spawn = spawn;
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
	o = op_send(l, OP_RELEASE, 5, argv);
	o->started = mono_now();
	l->token[0] = '\0';
}

void
halease_leader(struct halease *l, halease_leader_cb cb, void *arg)
{
	const char *argv[] = { "HMGET", l->key, "leader_address" };
	struct op *o = op_send(l, OP_LEADER, 3, argv);
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
		    "this one did not stop" : "Redis names none", l->sw.took_ms);
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
	free(l->key);
	free(l->self);
	free(l->user);
	free(l->password);
	free(l);
}
