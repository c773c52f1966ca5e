#include "config.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "atomicfile.h"
#include "buf.h"
#include "clock.h"
#include "endpoints.h"
#include "envfile.h"
#include "log.h"
#include "metrics.h"
#include "workerenv.h"
#include "xalloc.h"

struct endpoints {
	const struct cfg	*cfg;
	char			*env_path;
	char			*store_path;
	char			*json_path;
	char			 local_ip[INET6_ADDRSTRLEN];
	unsigned		 generation;
	int			 ready;
	char			*json;
	double			 written_at;
	char			 addr[INET6_ADDRSTRLEN];	/* of the last ready write */
	struct master_addr	 ma;
};

void
endpoints_local_ipv4(char *out, size_t len)
{
	struct ifaddrs *ifa, *i;
	snprintf(out, len, "127.0.0.1");
	if (getifaddrs(&ifa) != 0)
		return;
	for (i = ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
		    (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK)) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out, (socklen_t)len);
			break;
		}
	freeifaddrs(ifa);
}

struct endpoints *
endpoints_new(const struct cfg *cfg)
{
	struct endpoints *e = xcalloc(1, sizeof *e);
	json_t *old;
	e->cfg = cfg;
	e->env_path = xasprintf("%s/mooncake.env", cfg->job.run_dir);
	e->store_path = xasprintf("%s/mooncake_store_config.json", cfg->job.run_dir);
	e->json_path = xasprintf("%s/endpoints.json", cfg->job.run_dir);
	endpoints_local_ipv4(e->local_ip, sizeof e->local_ip);
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
	json_object_set_new(o, "master", mo);
	if (m->leader_via != NULL)
		json_object_set_new(o, "leader_via", json_string(m->leader_via));
	json_object_set_new(o, "sidecar", json_pack("{s:o}", "admin_url", json_sprintf("http://%s", side)));
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	free(rpc);
	free(admin);
	free(side);
	return s;
}

static int
write_one(const char *path, const char *text, int flags)
{
	char err[512];
	if (atomic_write(path, text, strlen(text), 0644, flags, err, sizeof err) != 0) {
		log_err("endpoints: %s", err);
		return -1;
	}
	return 0;
}

/* Write the files for generation gen: when ready, the store config and env first, then
 * endpoints.json (text) last, so that a ready endpoints.json means the others are in place. */
static int
write_files(struct endpoints *e, unsigned gen, int ready, const struct master_addr *ma, char *json)
{
	const struct cfg *c = e->cfg;
	double t0 = mono_now();
	int rc = 0;

	if (ready) {
		struct kvlist env = { 0 };
		struct buf b = { 0 };
		workerenv_build(&env, c->endpoints.flavor, ma, e->store_path, e->local_ip, &c->endpoints.env);
		buf_printf(&b, "# mooncake-sidecar: job %s, generation %u; read with sh (\". file\") or "
		    "systemd EnvironmentFile=\n", c->job.id, gen);
		envfile_render(&b, &env);
		if (strcmp(c->endpoints.flavor, "vllm") == 0) {
			char *store = workerenv_store_config(c->endpoints.store_config, ma);
			rc |= write_one(e->store_path, store, ATOMIC_FSYNC);
			free(store);
		}
		rc |= write_one(e->env_path, b.p, ATOMIC_FSYNC);
		buf_free(&b);
		kvlist_clear(&env);
	}
	rc |= write_one(e->json_path, json, ATOMIC_FSYNC);
	fsync_dir(e->json_path);
	metrics_observe(OP_WRITE_ENDPOINTS, rc ? ST_ERROR : ST_OK, mono_now() - t0);
	if (rc != 0) {
		free(json);
		return -1;
	}
	free(e->json);
	e->json = json;
	e->generation = gen;
	e->ready = ready;
	if (ready) {
		snprintf(e->addr, sizeof e->addr, "%s", ma->address);
		e->ma = *ma;
		e->ma.address = e->addr;
	}
	e->written_at = wall_now();
	log_info("endpoints: generation %u %s (master %s:%ld) in %.3f ms", gen, ready ? "ready" : "not ready",
	    ma->address, ma->rpc_port, (mono_now() - t0) * 1000.0);
	return 0;
}

int
endpoints_publish(struct endpoints *e, unsigned gen, int ready, const struct endpoints_master *m)
{
	struct master_addr ma = { m->address, m->rpc_port, m->metadata_port };
	return write_files(e, gen, ready, &ma, render_json(e, gen, ready, m));
}

int
endpoints_mirror(struct endpoints *e, const char *text)
{
	json_t *j = json_loads(text, 0, NULL), *m;
	char host[INET6_ADDRSTRLEN] = "", meta_host[INET6_ADDRSTRLEN];
	struct master_addr ma = { host, 0, 0 };
	const char *rpc, *meta;
	int ready, rc;

	m = json_object_get(j, "master");
	rpc = json_string_value(json_object_get(m, "rpc"));
	meta = json_string_value(json_object_get(m, "metadata_url"));
	ready = json_is_true(json_object_get(j, "ready"));
	if (!json_is_integer(json_object_get(j, "generation")) || rpc == NULL ||
	    split_hostport(rpc, host, sizeof host, &ma.rpc_port) != 0) {
		log_warn("endpoints: the head's endpoints.json is not usable: %.200s", text);
		json_decref(j);
		return -1;
	}
	if (meta != NULL && strncmp(meta, "http://", 7) == 0) {
		char *hp = xstrndup(meta + 7, strcspn(meta + 7, "/"));
		split_hostport(hp, meta_host, sizeof meta_host, &ma.metadata_port);
		free(hp);
	}
	rc = write_files(e, (unsigned)json_integer_value(json_object_get(j, "generation")), ready, &ma,
	    xstrdup(text));
	json_decref(j);
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
