#include "config.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <jansson.h>
#include <event2/event.h>
#include "atomicfile.h"
#include "buf.h"
#include "clock.h"
#include "endpoints.h"
#include "envfile.h"
#include "epcheck.h"
#include "log.h"
#include "counters.h"
#include "workerenv.h"
#include "url.h"
#include "topology.h"
#include "xalloc.h"

/*
 * The daemon's memory is the truth and the disk follows it: a publish sets what /endpoints serves
 * at once, then writes the files; a write that fails is retried with backoff (recreating run_dir)
 * until the disk says the same, and endpoints_error() tells why meanwhile.
 */
struct endpoints {
	const struct cfg	*cfg;
	struct event		*retry;
	long			 retry_ms;
	void			(*changed)(void *);
	void			*arg;
	char			*env_path;
	char			*store_path;
	char			*json_path;
	char			 local_ip[INET6_ADDRSTRLEN];
	unsigned		 generation;
	int			 ready;
	char			*json;		/* what /endpoints serves */
	char			*json_not_ready;	/* the same generation, not ready (a partial write) */
	double			 written_at;
	unsigned		 disk_gen;	/* what endpoints.json on disk says */
	int			 disk_ready;
	int			 dirty;		/* the disk does not say what memory says yet */
	int			 dir_ok;	/* run_dir was there at the last write */
	char			 error[600];	/* why not */
	char			 addr[URL_HOST_MAX];	/* of the last ready publish */
	char			 instance[40];	/* this run, in the endpoints.json it writes */
	char			 head_instance[40];	/* a follower: the head's run it mirrors */
	char			 mirror_entry[512];	/* a follower: the head's */
	struct master_addr	 ma;
	json_t			*workers;	/* the job's HTTP-serving worker processes, or NULL */
};

#define RETRY_MIN_MS	50
#define RETRY_MAX_MS	5000

static void retry_cb(evutil_socket_t, short, void *);

/* Every worker process of the job that serves HTTP (not a --headless rank), by node, role, worker
 * index and data-parallel rank: where a router sends requests. The same on every node. */
static json_t *
job_workers(const struct cfg *c, const struct topology *t)
{
	json_t *a;
	if (c->workers.ngroups == 0 || t == NULL)
		return NULL;
	a = json_array();
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct topo_process *p = &t->procs[i];
		if (p->headless || p->http_port <= 0)
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:o, s:i}", "node", c->job.nodes.v[p->node],
		    "role", p->role, "worker_index", p->worker_index, "dp_rank",
		    p->dp_rank >= 0 && p->kind == TOPO_PER_GPU ? json_integer(p->dp_rank) : json_null(),
		    "http_port", p->http_port));
	}
	return a;
}

static void
random_hex(char *out, size_t n)
{
	unsigned char b[32];
	static const char hex[] = "0123456789abcdef";
	if (n > 32 || getrandom(b, n / 2, 0) != (ssize_t)(n / 2))
		for (size_t i = 0; i < n / 2 && i < sizeof b; i++)
			b[i] = (unsigned char)(random() ^ (long)getpid());
	for (size_t i = 0; i < n / 2; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[n] = '\0';
}

struct endpoints *
endpoints_new(const struct cfg *cfg, struct event_base *base, const char *local_ip, const struct topology *topo,
    void (*changed)(void *),
    void *arg)
{
	struct endpoints *e = xcalloc(1, sizeof *e);
	json_t *old;
	e->cfg = cfg;
	e->changed = changed;
	e->arg = arg;
	e->retry = evtimer_new(base, retry_cb, e);
	random_hex(e->instance, 16);
	e->env_path = xasprintf("%s/mooncake.env", cfg->job.run_dir);
	e->store_path = xasprintf("%s/mooncake_store_config.json", cfg->job.run_dir);
	e->json_path = xasprintf("%s/endpoints.json", cfg->job.run_dir);
	snprintf(e->local_ip, sizeof e->local_ip, "%s", local_ip);
	e->workers = job_workers(cfg, topo);
	if ((old = json_load_file(e->json_path, 0, NULL)) != NULL) {
		char err[256];
		e->generation = (unsigned)json_integer_value(json_object_get(old, "generation"));
		if (json_is_true(json_object_get(old, "ready"))) {
			char *s;
			json_object_set_new(old, "ready", json_false());
			s = json_dumps(old, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			if (atomic_write(e->json_path, s, strlen(s), 0644, ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, err,
			    sizeof err) != 0)
				log_warn("endpoints: %s", err);
			else
				log_notice("endpoints: marked the previous run's %s not ready (generation %u)",
				    e->json_path, e->generation);
			free(s);
		}
		json_decref(old);
	}
	return e;
}

void
endpoints_free(struct endpoints *e)
{
	if (e == NULL)
		return;
	free(e->env_path);
	free(e->store_path);
	free(e->json_path);
	free(e->json);
	free(e->json_not_ready);
	json_decref(e->workers);
	event_free(e->retry);
	free(e);
}

static json_t *
iso8601(double wall)
{
	char ts[64];
	if (wall <= 0)
		return json_null();
	wall_iso8601(wall, ts, sizeof ts);
	return json_string(ts);
}

static char *
render_json(const struct endpoints *e, unsigned gen, int ready, const struct endpoints_master *m)
{
	const struct cfg *c = e->cfg;
	char *rpc = hostport(m->address, m->rpc_port), *admin = hostport(m->address, m->admin_port);
	const char *side_host = strcmp(c->admin.host, "0.0.0.0") == 0 || strcmp(c->admin.host, "::") == 0 ?
	    e->local_ip : c->admin.host;
	char *side = hostport(side_host, c->admin.port), *s;
	json_t *o = json_object(), *mo = json_object();

	json_object_set_new(o, "generation", json_integer(gen));
	json_object_set_new(o, "ready", json_boolean(ready));
	json_object_set_new(o, "job_id", json_string(c->job.id));
	json_object_set_new(mo, "node", json_string(m->node));
	json_object_set_new(mo, "address", json_string(m->address));
	json_object_set_new(mo, "rpc", json_string(rpc));
	if (m->metadata_port != 0) {
		char *meta = hostport(m->address, m->metadata_port);
		json_object_set_new(mo, "metadata_url", json_sprintf("http://%s/metadata", meta));
		free(meta);
	} else
		json_object_set_new(mo, "metadata_url", json_null());
	json_object_set_new(mo, "admin_url", json_sprintf("http://%s", admin));
	json_object_set_new(mo, "pid", m->pid > 0 ? json_integer(m->pid) : json_null());
	json_object_set_new(mo, "restarts", json_integer(m->restarts));
	json_object_set_new(mo, "ready_at", iso8601(m->ready_wall));
	/* what MOONCAKE_MASTER and master_server_address say: in HA mode the backend entry, through
	 * which a connected client follows a failover by itself; rpc stays the current leader */
	json_object_set_new(mo, "client_address", json_string(c->master.ha_entry[0] ? c->master.ha_entry : rpc));
	json_object_set_new(o, "master", mo);
	if (m->leader_via != NULL)
		json_object_set_new(o, "leader_via", json_string(m->leader_via));
	json_object_set_new(o, "sidecar", json_pack("{s:o}", "admin_url", json_sprintf("http://%s", side)));
	json_object_set_new(o, "instance", json_string(e->instance));
	if (e->workers != NULL)
		json_object_set(o, "workers", e->workers);
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	free(rpc);
	free(admin);
	free(side);
	return s;
}

/* text (an endpoints.json) saying "ready": false; NULL when it is not JSON. */
static char *
marked_not_ready(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	char *s;
	if (j == NULL)
		return NULL;
	json_object_set_new(j, "ready", json_false());
	s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

/* The not-ready twin of what memory says, made when a write needs it (a mirrored answer rarely
 * does: only when an HA leader moved, or a write failed). */
static const char *
not_ready_text(struct endpoints *e)
{
	if (e->json_not_ready == NULL && e->ready && e->json != NULL)
		e->json_not_ready = marked_not_ready(e->json);
	return e->json_not_ready;
}

static int
write_one(const char *path, const char *text, int flags, char *err, size_t errlen)
{
	return atomic_write(path, text, strlen(text), 0644, flags, err, errlen);
}

/* Bring the disk to what memory says: when ready, the store config and env first, then
 * endpoints.json last, so that a ready endpoints.json means the others of its generation are in
 * place; when one of them fails, endpoints.json says not ready instead. When a ready generation
 * follows another ready one (an HA leader moved), endpoints.json first says the new generation is
 * not ready yet: a reader that reads it, then the others, then it again, and sees the same ready
 * generation twice, has read files of that one generation (README, "Reading the files"). */
static int
flush(struct endpoints *e)
{
	const struct cfg *c = e->cfg;
	double t0 = mono_now();
	char err[512] = "";
	int rc = 0;

	/* run_dir is made (again) when it may be missing: at first, and after a write failed */
	if (!e->dir_ok && mkdir_p(c->job.run_dir, 0750, err, sizeof err) != 0)
		rc = -1;
	if (rc == 0 && e->ready && e->disk_ready && e->disk_gen != e->generation && not_ready_text(e) != NULL) {
		rc = write_one(e->json_path, e->json_not_ready, ATOMIC_FSYNC, err, sizeof err);
		if (rc == 0)
			e->disk_ready = 0;
	}
	if (rc == 0 && e->ready) {
		struct kvlist env = { 0 };
		struct buf b = { 0 };
		workerenv_build(&env, c->endpoints.flavor, &e->ma, e->store_path, e->local_ip, &c->endpoints.env);
		buf_printf(&b, "# mooncake-sidecar: job %s, generation %u; read with sh (\". file\") or "
		    "systemd EnvironmentFile=\n", c->job.id, e->generation);
		envfile_render(&b, &env);
		if (strcmp(c->endpoints.flavor, "vllm") == 0) {
			char *store = workerenv_store_config(c->endpoints.store_config, &e->ma,
			    kvlist_get(&env, "MOONCAKE_LOCAL_HOSTNAME"));
			rc = write_one(e->store_path, store, ATOMIC_FSYNC, err, sizeof err);
			free(store);
		}
		if (rc == 0)
			rc = write_one(e->env_path, b.p, ATOMIC_FSYNC, err, sizeof err);
		buf_free(&b);
		kvlist_clear(&env);
		if (rc != 0 && not_ready_text(e) != NULL) {
			char err2[512];
			if (write_one(e->json_path, e->json_not_ready, ATOMIC_FSYNC, err2, sizeof err2) != 0)
				unlink(e->json_path);	/* no file rather than a stale ready one */
			fsync_dir(e->json_path);
			e->disk_ready = 0;
		}
	}
	if (rc == 0 && (rc = write_one(e->json_path, e->json, ATOMIC_FSYNC, err, sizeof err)) == 0) {
		e->written_at = wall_now();
		fsync_dir(e->json_path);
		e->disk_gen = e->generation;
		e->disk_ready = e->ready;
	} else if (rc != 0 && !e->ready && unlink(e->json_path) == 0) {
		/* Out of space or descriptors: an unlink needs neither, and no file says ready. */
		fsync_dir(e->json_path);
		e->disk_ready = 0;
	}
	if (rc != 0 && e->dir_ok) {
		struct stat st;
		e->dir_ok = 0;
		if (stat(c->job.run_dir, &st) != 0)	/* the directory went: once more, making it */
			return flush(e);
	}
	e->dir_ok = rc == 0;
	counters_observe(OP_WRITE_ENDPOINTS, rc ? ST_ERROR : ST_OK, mono_now() - t0);
	if (rc != 0) {
		struct timeval tv;
		if (strcmp(e->error, err) != 0)
			log_err("endpoints: files not written (retrying): %s", err);
		snprintf(e->error, sizeof e->error, "%s", err);
		e->retry_ms = e->retry_ms ? e->retry_ms * 2 : RETRY_MIN_MS;
		if (e->retry_ms > RETRY_MAX_MS)
			e->retry_ms = RETRY_MAX_MS;
		tv = ms_tv(e->retry_ms);
		evtimer_add(e->retry, &tv);
		return -1;
	}
	if (e->error[0] != '\0')
		log_notice("endpoints: files written again after: %s", e->error);
	e->error[0] = '\0';
	e->dirty = 0;
	e->retry_ms = 0;
	evtimer_del(e->retry);
	/* the wall time of the last rename, for what a job's nodes did when (tests/bench/fanout.sh) */
	log_info("endpoints: generation %u %s (master %s:%ld, renamed at %.6f) in %.3f ms", e->generation,
	    e->ready ? "ready" : "not ready", e->ma.address ? e->ma.address : "-", e->ma.rpc_port, e->written_at,
	    (mono_now() - t0) * 1000.0);
	return 0;
}

static void
retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct endpoints *e = arg;
	if (e->dirty && flush(e) == 0 && e->changed != NULL)
		e->changed(e->arg);
}

/* Memory first: what /endpoints serves changes now, whatever the disk does. */
static int
set_state(struct endpoints *e, unsigned gen, int ready, const struct master_addr *ma, char *json,
    char *json_not_ready)
{
	free(e->json);
	free(e->json_not_ready);
	e->json = json;
	e->json_not_ready = json_not_ready;
	e->generation = gen;
	e->ready = ready;
	snprintf(e->addr, sizeof e->addr, "%s", ma->address);
	e->ma = *ma;
	e->ma.address = e->addr;
	e->ma.entry = e->cfg->master.ha_entry[0] ? e->cfg->master.ha_entry :
	    e->mirror_entry[0] ? e->mirror_entry : NULL;
	e->dirty = 1;
	return flush(e);
}

int
endpoints_publish(struct endpoints *e, unsigned gen, int ready, const struct endpoints_master *m)
{
	struct master_addr ma = { m->address, m->rpc_port, m->metadata_port, NULL };
	return set_state(e, gen, ready, &ma, render_json(e, gen, ready, m),
	    ready ? render_json(e, gen, 0, m) : NULL);
}

int
endpoints_flush(struct endpoints *e)
{
	return e->dirty ? flush(e) : 0;
}

const char *
endpoints_error(const struct endpoints *e)
{
	return e->dirty && e->error[0] != '\0' ? e->error : NULL;
}

int
endpoints_mirror(struct endpoints *e, const char *text, char *err, size_t errlen)
{
	struct ep_view v;
	if (epcheck(text, strlen(text), &v, err, errlen) != 0)
		return -1;
	return endpoints_mirror_checked(e, text, &v, err, errlen);
}

int
endpoints_mirror_checked(struct endpoints *e, const char *text, const struct ep_view *vp, char *err,
    size_t errlen)
{
	const struct ep_view v = *vp;
	struct master_addr ma;
	/* The same head instance never goes back; a new one (the head restarted) starts its own count. */
	if (strcmp(v.instance, e->head_instance) == 0 && v.generation < (long long)e->generation) {
		snprintf(err, errlen, "generation %lld goes back from %u for the same head", v.generation,
		    e->generation);
		return -1;
	}
	if (e->json != NULL && strcmp(e->json, text) == 0 && !e->dirty)
		return 0;
	snprintf(e->head_instance, sizeof e->head_instance, "%s", v.instance);
	ma = (struct master_addr){ v.rpc_host, v.rpc_port, v.meta_port, NULL };
	snprintf(e->mirror_entry, sizeof e->mirror_entry, "%s", v.entry);
	set_state(e, (unsigned)v.generation, v.ready, &ma, xstrdup(text), NULL);
	return 0;
}

int
endpoints_mirror_not_ready(struct endpoints *e)
{
	char *s, err[256];
	int rc;
	if (e->json == NULL || !e->ready || (s = marked_not_ready(e->json)) == NULL)
		return 0;
	if ((rc = endpoints_mirror(e, s, err, sizeof err)) != 0)
		log_err("endpoints: cannot mark the files not ready: %s", err);
	free(s);
	return rc;
}

int
endpoints_worker_env(const struct endpoints *e, struct kvlist *env)
{
	if (e->addr[0] == '\0')
		return -1;
	workerenv_build(env, e->cfg->endpoints.flavor, &e->ma, e->store_path, e->local_ip,
	    &e->cfg->endpoints.env);
	return 0;
}

unsigned
endpoints_generation(const struct endpoints *e)
{
	return e->generation;
}

int
endpoints_ready(const struct endpoints *e)
{
	return e->ready;
}

const char *
endpoints_json(const struct endpoints *e)
{
	return e->json;
}

double
endpoints_written_at(const struct endpoints *e)
{
	return e->written_at;
}
