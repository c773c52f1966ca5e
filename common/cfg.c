/*
 * The configuration: its defaults, the file read (common/cfgparse.c turns the JSON into the
 * struct), then resolved: what is derived from the job (nodes, GPUs, the admin server's limits),
 * the HA flags (common/hacfg.c), and the checks that look at several keys together.
 */
#include "config.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "atomicfile.h"
#include "auth.h"
#include "cfg.h"
#include "cfgparse.h"
#include "hacfg.h"
#include "url.h"
#include "parflags.h"
#include "workerenv.h"
#include "hostlist.h"
#include "sizes.h"

int
cfg_parse_hostport(const char *s, char *host, size_t hostlen, int *family, long *port)
{
	const char *colon, *h = s;
	size_t hl;
	char buf[INET6_ADDRSTRLEN];
	unsigned char addr[sizeof(struct in6_addr)];
	char *end;

	if (*s == '[') {
		const char *rb = strchr(s, ']');
		if (rb == NULL || rb[1] != ':')
			return -1;
		h = s + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1;
		*family = AF_INET6;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		hl = (size_t)(colon - s);
		*family = AF_INET;
	}
	if (hl == 0 || hl >= sizeof buf || hl >= hostlen)
		return -1;
	memcpy(buf, h, hl);
	buf[hl] = '\0';
	if (inet_pton(*family, buf, addr) != 1)
		return -1;
	if (!isdigit((unsigned char)colon[1]))
		return -1;
	*port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || *port < 0 || *port > 65535)
		return -1;
	memcpy(host, buf, hl + 1);
	return 0;
}


static void
check_ports(struct cfg *c, struct strv *errs)
{
	struct { const char *name; long port; } p[] = {
		{ "master.rpc_port", c->master.rpc_port },
		{ "master.http_metadata_port", c->master.http_metadata_port },
		{ "master.metrics_port", c->master.metrics_port },
		{ "admin.listen", c->admin.port },
	};
	for (size_t i = 1; i < sizeof p / sizeof p[0]; i++)
		for (size_t k = 0; k < i; k++)
			if (p[i].port != 0 && p[i].port == p[k].port)
				strv_pushf(errs, "%s: port %ld is also used by %s", p[i].name, p[i].port,
				    p[k].name);
}

/* A store size as vLLM reads it (a JSON integer or a size string); -1 when absent or not one. */
static int
vllm_size(json_t *v, const char *key, uint64_t *n, struct strv *errs)
{
	char err[300];
	if (v == NULL)
		return -1;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*n = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && size_parse_vllm(json_string_value(v), n, err, sizeof err) == 0)
		return 0;
	if (json_is_string(v))
		strv_pushf(errs, "endpoints.store_config.%s: %s", key, err);
	else
		strv_pushf(errs, "endpoints.store_config.%s: vLLM reads a byte count (a non-negative JSON "
		    "integer) or a size string like \"4GB\", got %s", key, cfg_json_kind(v));
	return -2;
}

/* The sizes by the rules of the program that reads them: the store config JSON by vLLM's
 * MooncakeStoreConfig (local_buffer_size > 0; global_segment_size > 0 in mode "embedded", the
 * default, and 0 in "standalone-store", the only other mode); MOONCAKE_GLOBAL_SEGMENT_SIZE in
 * endpoints.env by SGLang's parser. */
static void
check_sizes(struct cfg *c, struct strv *errs)
{
	const char *seg = kvlist_get(&c->endpoints.env, "MOONCAKE_GLOBAL_SEGMENT_SIZE");
	char err[300];
	uint64_t n;
	if (strcmp(c->endpoints.flavor, "vllm") == 0) {
		json_t *sc = c->endpoints.store_config, *m = json_object_get(sc, "mode");
		const char *mode = json_is_string(m) ? json_string_value(m) : "embedded";
		int rc;
		if (m != NULL && (!json_is_string(m) || (strcmp(mode, "embedded") != 0 &&
		    strcmp(mode, "standalone-store") != 0))) {
			strv_pushf(errs, "endpoints.store_config.mode: vLLM knows \"embedded\" (the default) "
			    "and \"standalone-store\", got %s%s%s", json_is_string(m) ? "\"" : "",
			    json_is_string(m) ? mode : cfg_json_kind(m), json_is_string(m) ? "\"" : "");
			mode = "embedded";
		}
		if (vllm_size(json_object_get(sc, "local_buffer_size"), "local_buffer_size", &n, errs) == 0 &&
		    n == 0)
			strv_pushf(errs, "endpoints.store_config.local_buffer_size: vLLM requires it above 0");
		rc = vllm_size(json_object_get(sc, "global_segment_size"), "global_segment_size", &n, errs);
		if (strcmp(mode, "embedded") == 0 && rc == 0 && n == 0)
			strv_pushf(errs, "endpoints.store_config.global_segment_size: vLLM requires it above 0 "
			    "in mode \"embedded\" (each worker lends that much memory to the store); for "
			    "workers that lend none, set \"mode\": \"standalone-store\"");
		else if (strcmp(mode, "standalone-store") == 0 && !(rc == 0 && n == 0) && rc != -2)
			strv_pushf(errs, "endpoints.store_config.global_segment_size: vLLM requires 0 in mode "
			    "\"standalone-store\"%s", rc == -1 ? " (absent, it defaults to 128 MiB)" : "");
	}
	if (seg != NULL && strcmp(c->endpoints.flavor, "sglang") == 0 &&
	    size_parse_sglang(seg, &n, err, sizeof err) != 0)
		strv_pushf(errs, "endpoints.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s", err);
}

/* A command that names its own tensor or pipeline parallel size must name the group's: the layout
 * follows tp and pp, and the process would run another. */
/* A group's health check: "auto" resolved by flavor (vLLM's and SGLang's API servers answer GET
 * /health with 200 once the model is loaded; a generic command may serve nothing), a path that
 * goes into a request line as it is. */
static void
check_health(struct cfg *c, struct strv *errs)
{
	for (size_t i = 0; i < c->workers.ngroups; i++) {
		struct health_cfg *h = &c->workers.groups[i].health;
		if (strcmp(h->type, "auto") == 0) {
			free(h->type);
			h->type = xstrdup(strcmp(c->workers.flavor, "generic") == 0 ? "none" : "http");
		}
		if (h->path[0] != '/' || strpbrk(h->path, " \t\r\n") != NULL || strlen(h->path) > 1024)
			strv_pushf(errs, "workers.groups[%zu].health.path: must be an absolute path without blanks "
			    "(for example \"/health\"), got \"%s\"", i, h->path);
		for (const char *p = h->path; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				strv_pushf(errs, "workers.groups[%zu].health.path: holds a control character", i);
				break;
			}
	}
}

static void
check_parallel(const struct cfg *c, struct strv *errs)
{
	for (size_t i = 0; i < c->workers.ngroups; i++) {
		const struct worker_group *g = &c->workers.groups[i];
		for (int pp = 0; pp < 2; pp++) {
			char spelling[64];
			long v, want = pp ? g->pp : g->tp;
			if (!parflags_find(c->workers.flavor, g->command, pp, &v, spelling,
			    sizeof spelling))
				continue;
			if (v < 0)
				strv_pushf(errs, "workers.groups[%zu].command: %s must be followed by a number "
				    "(the sidecar adds it from workers.groups[%zu].%s when the command leaves "
				    "it out)", i, spelling, i, pp ? "pp" : "tp");
			else if (v != want)
				strv_pushf(errs, "workers.groups[%zu].command: %s %ld, but workers.groups[%zu].%s "
				    "is %ld (the layout follows %s; leave the flag out and the sidecar adds it)",
				    i, spelling, v, i, pp ? "pp" : "tp", want, pp ? "pp" : "tp");
		}
	}
}

/* Does some group's command pass flag (or its '_' spelling) a value that contains want, in any case? */
static int
some_command_has(const struct cfg *c, const char *flag, const char *want)
{
	for (size_t i = 0; i < c->workers.ngroups; i++)
		for (char **a = c->workers.groups[i].command; *a != NULL; a++) {
			const char *v = NULL;
			size_t n = strlen(flag);
			char alt[64];
			snprintf(alt, sizeof alt, "--%s", flag + 2);
			for (char *q = alt + 2; *q; q++)
				*q = *q == '-' ? '_' : *q;
			if (strcmp(*a, flag) == 0 || strcmp(*a, alt) == 0)
				v = a[1];
			else if ((strncmp(*a, flag, n) == 0 || strncmp(*a, alt, n) == 0) && (*a)[n] == '=')
				v = *a + n + 1;
			if (v != NULL && strcasestr(v, want) != NULL)
				return 1;
		}
	return 0;
}

void
cfg_warnings(const struct cfg *c, struct strv *w)
{
	const char *ttl = workerenv_gflag(c->master.extra_args, "client_ttl", 0);
	long ttl_ms = (ttl != NULL ? atol(ttl) : 10) * 1000;
	/* the stall counts from its first sign, which comes at most one probe interval after it began */
	long worst = c->master.stall_restart_ms + c->master.lock_probe_interval_ms;
	if (c->master.enabled && c->master.stall_restart_ms > 0 && c->master.lock_probe_interval_ms > 0 &&
	    ttl_ms > 0 && worst >= ttl_ms)
		strv_pushf(w, "master.stall_restart_ms: a stall is detected and the master restarted up to %ld ms after "
		    "it began, not before the master's client_ttl (%ld ms) expires every client and erases the "
		    "store's index", worst, ttl_ms);
	if (c->workers.ngroups == 0 || strcmp(c->workers.flavor, c->endpoints.flavor) != 0)
		return;
	if (strcmp(c->endpoints.flavor, "vllm") == 0 && !some_command_has(c, "--kv-transfer-config", "mooncake"))
		strv_pushf(w, "workers.groups: no command has a --kv-transfer-config that references a "
		    "Mooncake connector, so the workers will not use the store of the master this sidecar "
		    "writes the files for. Set it to a JSON value whose kv_connector is "
		    "MooncakeStoreConnector (or MultiConnector wrapping one), as in conf/vllm-per-node.json");
	if (strcmp(c->endpoints.flavor, "sglang") == 0 &&
	    !some_command_has(c, "--hicache-storage-backend", "mooncake"))
		strv_pushf(w, "workers.groups: no command has --hicache-storage-backend mooncake, so SGLang "
		    "will not use the store of the master this sidecar writes the MOONCAKE_* variables for "
		    "(it reads them only for that backend). Add it with --enable-hierarchical-cache, as in "
		    "conf/sglang.json");
}

static void
check_restart(const struct restart_cfg *r, const char *path, struct strv *errs)
{
	if (r->backoff_max_ms < r->backoff_initial_ms)
		strv_pushf(errs, "%s.backoff_max_ms: must be >= backoff_initial_ms (%ld), got %ld", path,
		    r->backoff_initial_ms, r->backoff_max_ms);
}

/* admin.*: what goes together (TLS files, write routes and auth) and what must be a path. */
static void
check_admin(struct cfg *c, struct strv *errs)
{
	if (cfg_parse_hostport(c->admin.listen, c->admin.host, sizeof c->admin.host,
	    &c->admin.family, &c->admin.port) != 0)
		strv_pushf(errs, "admin.listen: must be ADDRESS:PORT with a numeric IPv4 or [IPv6] "
		    "address and a port 0..65535 (0: any free port), got \"%s\"", c->admin.listen);
	if (c->admin.write_routes && c->admin.bearer_token_file[0] == '\0' && c->admin.basic_users.n == 0)
		strv_pushf(errs, "admin.write_routes: the master's mutating routes (remove_all, drain jobs, tenant "
		    "quotas) need admin.auth: a bearer_token_file or basic_auth_users");
	if ((c->admin.tls_cert_file[0] != '\0') != (c->admin.tls_key_file[0] != '\0'))
		strv_pushf(errs, "admin.tls: cert_file and key_file go together (one is set, the other not)");
	if (c->admin.tls_client_ca_file[0] != '\0' && c->admin.tls_cert_file[0] == '\0')
		strv_pushf(errs, "admin.tls.client_ca_file: needs admin.tls.cert_file and key_file");
	for (char **r = c->admin.public_routes; r != NULL && *r != NULL; r++)
		if ((*r)[0] != '/' || strpbrk(*r, "? \t") != NULL)
			strv_pushf(errs, "admin.public_routes: \"%s\" is not a path (\"/livez\", \"/readyz\", \"/metrics\" ...)", *r);
}

/* job.*: the directories, the user, the interface; the nodes expanded and checked against what
 * names them. */
static void
check_job(struct cfg *c, struct strv *errs)
{
	char err[256];
	if (c->job.run_dir[0] != '\0' && c->job.run_dir[0] != '/')
		strv_pushf(errs, "job.run_dir: must be an absolute path, got \"%s\"", c->job.run_dir);
	if (c->job.log_dir[0] == '\0') {
		free(c->job.log_dir);
		c->job.log_dir = xstrdup(c->job.run_dir);
	} else if (c->job.log_dir[0] != '/')
		strv_pushf(errs, "job.log_dir: must be an absolute path, got \"%s\"", c->job.log_dir);
	if (strlen(c->job.user) > 32 || strspn(c->job.user, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") != strlen(c->job.user) || c->job.user[0] == '-')
		strv_pushf(errs, "job.user: \"%s\" is not a user name (up to 32 letters, digits, '.', '_' or '-', "
		    "not starting with '-')", c->job.user);
	if (strlen(c->job.network_interface) > 15 || strpbrk(c->job.network_interface, "/: \t") != NULL)
		strv_pushf(errs, "job.network_interface: \"%s\" is not an interface name (up to 15 characters, "
		    "no '/', ':' or blanks; for example \"ib0\" or \"eth0\")", c->job.network_interface);
	strv_free(&c->job.nodes);
	if (hostlist_expand(c->job.nodes_expr, &c->job.nodes, err, sizeof err) != 0) {
		strv_pushf(errs, "job.nodes: %s", err);
		strv_free(&c->job.nodes);
		strv_push(&c->job.nodes, "localhost");
	}
	if (c->admin.tls_client_ca_file[0] != '\0' && c->job.nodes.n > 1)
		strv_pushf(errs, "admin.tls.client_ca_file: the job's other sidecars present no client certificate "
		    "(mutual TLS is for a sidecar alone on its job); use admin.auth between them");
	for (size_t i = 0; i < c->job.sidecars.n; i++)
		if (hostlist_index(&c->job.nodes, c->job.sidecars.v[i].key) < 0)
			strv_pushf(errs, "job.sidecars.%s: not a node of job.nodes", c->job.sidecars.v[i].key);
}

/* This node: --node, job.node, SLURMD_NODENAME, then the short host name. A single-node
 * "localhost" job is this machine whatever its name. Then the master's node, and whether it is
 * this one. */
static void
resolve_nodes(struct cfg *c, const struct cfg_overrides *ov, struct strv *errs)
{
	char host[256];
	const char *node = ov != NULL && ov->node != NULL ? ov->node : c->job.node;
	char *n;
	if (*node == '\0')
		node = getenv("SLURMD_NODENAME");
	if (node == NULL || *node == '\0') {
		if (gethostname(host, sizeof host) != 0)
			strcpy(host, "localhost");
		host[sizeof host - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		node = host;
		if (hostlist_index(&c->job.nodes, node) < 0 && c->job.nodes.n == 1 &&
		    strcmp(c->job.nodes.v[0], "localhost") == 0)
			node = "localhost";
	}
	n = xstrdup(node);
	free(c->job.node);
	c->job.node = n;
	if (c->master.node[0] == '\0') {
		free(c->master.node);
		c->master.node = xstrdup(c->job.nodes.v[0]);
	} else if (hostlist_index(&c->job.nodes, c->master.node) < 0)
		strv_pushf(errs, "master.node: \"%s\" is not in job.nodes", c->master.node);
	c->master.runs_here = c->master.enabled && strcmp(c->master.node, c->job.node) == 0;
}

/* job.gpus_per_node 0: SLURM_GPUS_ON_NODE, else the count in CUDA_VISIBLE_DEVICES. */
static void
resolve_gpus(struct cfg *c, struct strv *errs)
{
	const char *g = getenv("SLURM_GPUS_ON_NODE"), *cvd = getenv("CUDA_VISIBLE_DEVICES");
	if (c->job.gpus_per_node != 0)
		return;
	if (g != NULL && *g != '\0')
		c->job.gpus_per_node = strtol(g, NULL, 10);
	else if (cvd != NULL && *cvd != '\0') {
		c->job.gpus_per_node = 1;
		for (const char *q = cvd; *q; q++)
			c->job.gpus_per_node += *q == ',';
	} else if (c->workers.ngroups > 0)
		strv_pushf(errs, "job.gpus_per_node: 0 means SLURM_GPUS_ON_NODE or "
		    "CUDA_VISIBLE_DEVICES, and neither is set");
}

/* admin.max_waiters and admin.max_connections hold every other node's long-poll of this node
 * (a follower's /endpoints, a gang peer's /gangs) with a margin: derived from job.nodes unless set,
 * and when set, refused if they cannot hold the job's followers. */
static void
admin_limits(struct cfg *c, struct strv *errs)
{
	long others = (long)c->job.nodes.n - 1;
	long waiters = cfg_waiters_for(c->job.nodes.n), conns = cfg_connections_for(c->job.nodes.n);
	if (c->admin.max_waiters < 0)
		c->admin.max_waiters = waiters;
	else if (c->admin.max_waiters < others)
		strv_pushf(errs, "admin.max_waiters: %ld cannot hold the long-polls of this job's %ld other nodes "
		    "(job.nodes has %zu): set at least %ld, or leave it out (derived: %ld)", c->admin.max_waiters,
		    others, c->job.nodes.n, others, waiters);
	if (c->admin.max_connections < 0)
		c->admin.max_connections = conns;
	else if (c->admin.max_connections < others)
		strv_pushf(errs, "admin.max_connections: %ld cannot hold a connection from each of this job's %ld other "
		    "nodes (job.nodes has %zu): set at least %ld, or leave it out (derived: %ld)",
		    c->admin.max_connections, others, c->job.nodes.n, others, conns);
}

long
cfg_waiters_for(size_t nodes)
{
	long d = 2 * (long)nodes + 32;
	return d > 64 ? d : 64;
}

long
cfg_connections_for(size_t nodes)
{
	long d = 2 * (long)nodes + 256;
	return d > 512 ? d : 512;
}

/* admin.control_socket: by default in run_dir, named for the node (a run_dir may be shared). */
static void
resolve_control_socket(struct cfg *c, struct strv *errs)
{
	if (c->admin.control_socket[0] == '\0') {
		free(c->admin.control_socket);
		c->admin.control_socket = xasprintf("%s/control-%s.sock", c->job.run_dir, c->job.node ? c->job.node : "local");
		if (strlen(c->admin.control_socket) >= CFG_SOCKET_PATH_MAX)
			strv_pushf(errs, "admin.control_socket: %s is longer than %d bytes: set a shorter path",
			    c->admin.control_socket, CFG_SOCKET_PATH_MAX - 1);
	} else if (strcmp(c->admin.control_socket, "off") != 0 && (c->admin.control_socket[0] != '/' ||
	    strlen(c->admin.control_socket) >= CFG_SOCKET_PATH_MAX))
		strv_pushf(errs, "admin.control_socket: must be an absolute path of at most %d bytes, or \"off\", "
		    "got \"%s\"", CFG_SOCKET_PATH_MAX - 1, c->admin.control_socket);
}

static void
resolve(struct cfg *c, const struct cfg_overrides *ov, struct strv *errs)
{
	if (ov != NULL && ov->listen != NULL) {
		free(c->admin.listen);
		c->admin.listen = xstrdup(ov->listen);
	}
	check_admin(c, errs);
	check_ports(c, errs);
	check_sizes(c, errs);
	if (json_is_string(json_object_get(c->endpoints.store_config, "metadata_server")) &&
	    strcmp(json_string_value(json_object_get(c->endpoints.store_config, "metadata_server")),
	    WORKERENV_METADATA_URL) == 0 && c->master.http_metadata_port == 0)
		strv_pushf(errs, "endpoints.store_config.metadata_server: \"" WORKERENV_METADATA_URL "\" is the master's "
		    "HTTP metadata server, which master.http_metadata_port 0 turns off");
	check_parallel(c, errs);
	check_health(c, errs);
	if (c->master.enabled) {
		struct hacfg ha = { c->master.ha_backend, c->master.ha_snapshot_dir, c->master.ha_snapshot_interval_s,
		    &c->master.extra_args, &c->master.env, c->master.ha_entry, sizeof c->master.ha_entry,
		    c->master.snapshot, NULL, c->master.snapshot_interval_s, c->master.snapshot_kv_lease_ttl_ms,
		    c->master.snapshot_keep };
		/* the default directory outlives the sidecar: systemd's StateDirectory=, else the run dir */
		if (c->master.snapshot && c->master.snapshot_dir[0] == '\0') {
			free(c->master.snapshot_dir);
			c->master.snapshot_dir = getenv("STATE_DIRECTORY") != NULL && getenv("STATE_DIRECTORY")[0] == '/' ?
			    xasprintf("%s/snapshots", getenv("STATE_DIRECTORY")) : xasprintf("%s/snapshots", c->job.run_dir);
		}
		ha.warm_dir = c->master.snapshot_dir;
		hacfg_resolve(&ha, errs);
	} else
		c->master.ha_entry[0] = '\0';
	check_restart(&c->master.restart, "master.restart", errs);
	check_restart(&c->workers.restart, "workers.restart", errs);
	if (c->master.url[0] != '\0') {
		struct url u;
		char why[256];
		if (url_parse(c->master.url, &u, why, sizeof why) != 0)
			strv_pushf(errs, "master.url: %s", why);
	}
	check_job(c, errs);
	admin_limits(c, errs);
	resolve_nodes(c, ov, errs);
	resolve_gpus(c, errs);
	resolve_control_socket(c, errs);
}

static int
load(json_t *root, const struct cfg_overrides *ov, struct cfg *c, struct strv *errs)
{
	cfg_parse(root, c, errs);
	resolve(c, ov, errs);
	return errs->n == 0 ? 0 : -1;
}

json_t *
cfg_read_json(const char *path, struct strv *errs)
{
	json_error_t je;
	json_t *root;
	size_t n;
	char *text = file_read_at(AT_FDCWD, path, CFG_FILE_MAX, 0, &n), why[128];
	if (text == NULL) {
		strv_pushf(errs, "%s: %s", path, file_read_error(errno, CFG_FILE_MAX, why, sizeof why));
		return NULL;
	}
	root = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (root == NULL)
		strv_pushf(errs, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	return root;
}

int
cfg_load_json(json_t *root, const struct cfg_overrides *ov, struct cfg *c, struct strv *errs)
{
	cfg_defaults(c);
	return load(root, ov, c, errs);
}

int
cfg_load_file(const char *path, const struct cfg_overrides *ov, struct cfg *c, struct strv *errs)
{
	json_t *root = cfg_read_json(path, errs);
	int rc;
	if (root == NULL) {
		cfg_defaults(c);
		return -1;
	}
	rc = cfg_load_json(root, ov, c, errs);
	json_decref(root);
	return rc;
}

int
cfg_load_string(const char *text, const struct cfg_overrides *ov, struct cfg *c, struct strv *errs)
{
	json_error_t je;
	json_t *root;
	int rc;
	cfg_defaults(c);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		strv_pushf(errs, "<string>:%d:%d: %s", je.line, je.column, je.text);
		return -1;
	}
	rc = load(root, ov, c, errs);
	json_decref(root);
	return rc;
}

/* One string of a program's argv or environment: the kernel refuses the exec of any over
 * CFG_ARG_STRLEN_MAX bytes (E2BIG), so every start would fail. */
static size_t
exec_string(const char *key, const char *k, const char *v, struct strv *errs)
{
	size_t n = strlen(k) + (v != NULL ? 1 + strlen(v) : 0) + 1;
	if (n > CFG_ARG_STRLEN_MAX)
		strv_pushf(errs, "%s: %zu bytes; the kernel refuses to start a program with an argument or an "
		    "environment string over %d bytes (MAX_ARG_STRLEN), so every start would fail (E2BIG)", key, n - 1,
		    CFG_ARG_STRLEN_MAX - 1);
	return n + sizeof(char *);
}

static size_t
exec_strings(const char *what, char **v, struct strv *errs)
{
	size_t sum = 0;
	char key[300];
	for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
		snprintf(key, sizeof key, "%s[%zu]", what, i);
		sum += exec_string(key, v[i], NULL, errs);
	}
	return sum;
}

static size_t
exec_env(const char *what, const struct kvlist *env, struct strv *errs)
{
	size_t sum = 0;
	char key[300];
	for (size_t i = 0; i < env->n; i++) {
		snprintf(key, sizeof key, "%s.%.200s", what, env->v[i].key);
		sum += exec_string(key, env->v[i].key, env->v[i].value, errs);
	}
	return sum;
}

void
cfg_check_exec(const struct cfg *c, size_t inherited, long arg_max, struct strv *errs)
{
	size_t master = exec_strings("master.command", c->master.command, errs) +
	    exec_strings("master.extra_args", c->master.extra_args, errs) + exec_env("master.env", &c->master.env, errs);
	size_t shared = exec_env("endpoints.env", &c->endpoints.env, errs);
	char what[64];
	if (c->master.runs_here && arg_max > 0 && master + inherited > (size_t)arg_max)
		strv_pushf(errs, "master: its command line and environment (master.command, master.extra_args, "
		    "master.env and the %zu bytes of the sidecar's own environment) take %zu bytes, over the kernel's "
		    "limit of %ld (ARG_MAX): its start would fail (E2BIG)", inherited, master + inherited, arg_max);
	for (size_t g = 0; g < c->workers.ngroups; g++) {
		size_t w;
		snprintf(what, sizeof what, "workers.groups[%zu].command", g);
		w = exec_strings(what, c->workers.groups[g].command, errs);
		snprintf(what, sizeof what, "workers.groups[%zu].env", g);
		w += exec_env(what, &c->workers.groups[g].env, errs);
		if (arg_max > 0 && w + shared + inherited > (size_t)arg_max)
			strv_pushf(errs, "workers.groups[%zu]: its command, its env, endpoints.env and the %zu bytes of the "
			    "sidecar's own environment take %zu bytes, over the kernel's limit of %ld (ARG_MAX): its "
			    "workers' start would fail (E2BIG)", g, inherited, w + shared + inherited, arg_max);
	}
}
