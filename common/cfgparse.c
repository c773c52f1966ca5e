/*
 * The configuration file's JSON into struct cfg: one table of fields per object (type, range,
 * choices), every error named by its JSON path ("workers.groups[1].gpus: ..."), ${VAR} expanded in
 * strings. What the values mean together (defaults derived from the job, cross-checks) is
 * common/cfg.c's. Over 600 lines for its tables: one row per key of the file, read together.
 */
#include "config.h"
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"
#include "cfgparse.h"
#include "sizes.h"
#include "url.h"

enum ftype { F_INT, F_BOOL, F_STR, F_ENUM, F_STRV, F_ENV, F_SUB, F_CUSTOM };

struct field;
typedef void (*custom_fn)(json_t *, const char *, void *, struct strv *);

struct field {
	const char		*key;
	enum ftype		 type;
	size_t			 off;
	long			 min, max;	/* F_INT range; F_STR/F_STRV: min 1 = must not be empty */
	const void		*aux;		/* F_ENUM: choices; F_SUB: fields; F_CUSTOM: function */
};

static const char *const policies[] = { "always", "on-failure", "never", NULL };
static const char *const flavors_endpoints[] = { "vllm", "sglang", NULL };
static const char *const flavors_workers[] = { "vllm", "sglang", "generic", NULL };
static const char *const dp_modes[] = { "per_node", "per_gpu", NULL };
static const char *const on_restart[] = { "keep", "restart", NULL };
static const char *const gang_modes[] = { "endpoint", "process", NULL };
static const char *const roles[] = { "prefill", "decode", "agg", NULL };

#define MS_MAX	86400000L

static const struct field restart_fields[] = {
	{ "policy", F_ENUM, offsetof(struct restart_cfg, policy), 0, 0, policies },
	{ "backoff_initial_ms", F_INT, offsetof(struct restart_cfg, backoff_initial_ms), 0, MS_MAX, NULL },
	{ "backoff_max_ms", F_INT, offsetof(struct restart_cfg, backoff_max_ms), 0, MS_MAX, NULL },
	{ "reset_after_ms", F_INT, offsetof(struct restart_cfg, reset_after_ms), 0, MS_MAX, NULL },
	{ "burst", F_INT, offsetof(struct restart_cfg, burst), 1, 65536, NULL },
	{ "burst_window_ms", F_INT, offsetof(struct restart_cfg, burst_window_ms), 1, MS_MAX, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};

static void parse_store_config(json_t *, const char *, void *, struct strv *);
static void parse_sidecars(json_t *, const char *, void *, struct strv *);
static void parse_basic_users(json_t *, const char *, void *, struct strv *);
static void parse_groups(json_t *, const char *, void *, struct strv *);

#define J(m)	offsetof(struct cfg, job.m)
static const struct field job_fields[] = {
	{ "id", F_STR, J(id), 1, 0, NULL },
	{ "nodes", F_STR, J(nodes_expr), 1, 0, NULL },
	{ "node", F_STR, J(node), 0, 0, NULL },
	{ "gpus_per_node", F_INT, J(gpus_per_node), 0, 1024, NULL },
	{ "run_dir", F_STR, J(run_dir), 1, 0, NULL },
	{ "log_dir", F_STR, J(log_dir), 0, 0, NULL },
	{ "network_interface", F_STR, J(network_interface), 0, 0, NULL },
	{ "user", F_STR, J(user), 0, 0, NULL },
	{ "sidecars", F_CUSTOM, J(sidecars), 0, 0, (const void *)parse_sidecars },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef J

#define L(m)	offsetof(struct cfg, log.m)
static const struct field log_fields[] = {
	{ "max_bytes", F_INT, L(max_bytes), 0, 1099511627776L, NULL },
	{ "keep", F_INT, L(keep), 0, 100, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef L

#define M(m)	offsetof(struct cfg, master.m)
static const struct field ha_fields[] = {
	{ "backend", F_STR, M(ha_backend), 0, 0, NULL },
	{ "snapshot_dir", F_STR, M(ha_snapshot_dir), 0, 0, NULL },
	{ "snapshot_interval_s", F_INT, M(ha_snapshot_interval_s), 1, 86400, NULL },
	{ "warmup_timeout_ms", F_INT, M(ha_warmup_timeout_ms), 0, MS_MAX, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct field snapshot_fields[] = {
	{ "enabled", F_BOOL, M(snapshot), 0, 0, NULL },
	{ "dir", F_STR, M(snapshot_dir), 0, 0, NULL },
	{ "interval_s", F_INT, M(snapshot_interval_s), 1, 86400, NULL },
	{ "keep", F_INT, M(snapshot_keep), 1, 100, NULL },
	{ "kv_lease_ttl_ms", F_INT, M(snapshot_kv_lease_ttl_ms), 0, MS_MAX, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct field master_fields[] = {
	{ "enabled", F_BOOL, M(enabled), 0, 0, NULL },
	{ "node", F_STR, M(node), 0, 0, NULL },
	{ "command", F_STRV, M(command), 1, 0, NULL },
	{ "address", F_STR, M(address), 0, 0, NULL },
	{ "rpc_port", F_INT, M(rpc_port), 1, 65535, NULL },
	{ "http_metadata_port", F_INT, M(http_metadata_port), 0, 65535, NULL },
	{ "metrics_port", F_INT, M(metrics_port), 1, 65535, NULL },
	{ "extra_args", F_STRV, M(extra_args), 0, 0, NULL },
	{ "env", F_ENV, M(env), 0, 0, NULL },
	{ "ready_timeout_ms", F_INT, M(ready_timeout_ms), 1, MS_MAX, NULL },
	{ "probe_interval_ms", F_INT, M(probe_interval_ms), 1, 60000, NULL },
	{ "probe_on_output", F_BOOL, M(probe_on_output), 0, 0, NULL },
	{ "check_flags", F_BOOL, M(check_flags), 0, 0, NULL },
	{ "stop_timeout_ms", F_INT, M(stop_timeout_ms), 0, 3600000, NULL },
	{ "liveness_interval_ms", F_INT, M(liveness_interval_ms), 10, 600000, NULL },
	{ "liveness_failures", F_INT, M(liveness_failures), 1, 1000, NULL },
	{ "lock_probe_interval_ms", F_INT, M(lock_probe_interval_ms), 0, 600000, NULL },
	{ "lock_probe_timeout_ms", F_INT, M(lock_probe_timeout_ms), 10, 600000, NULL },
	{ "stall_window_ms", F_INT, M(stall_window_ms), 100, 3600000, NULL },
	{ "stall_restart_ms", F_INT, M(stall_restart_ms), 0, MS_MAX, NULL },
	{ "restart", F_SUB, M(restart), 0, 0, restart_fields },
	{ "ha", F_SUB, 0, 0, 0, ha_fields },
	{ "snapshot", F_SUB, 0, 0, 0, snapshot_fields },
	{ "url", F_STR, M(url), 0, 0, NULL },
	{ "ca_file", F_STR, M(ca_file), 0, 0, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef M

#define A(m)	offsetof(struct cfg, admin.m)
static const struct field auth_fields[] = {
	{ "bearer_token_file", F_STR, A(bearer_token_file), 0, 0, NULL },
	{ "basic_auth_users", F_CUSTOM, A(basic_users), 0, 0, (const void *)parse_basic_users },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct field tls_fields[] = {
	{ "cert_file", F_STR, A(tls_cert_file), 0, 0, NULL },
	{ "key_file", F_STR, A(tls_key_file), 0, 0, NULL },
	{ "client_ca_file", F_STR, A(tls_client_ca_file), 0, 0, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct field admin_fields[] = {
	{ "listen", F_STR, A(listen), 1, 0, NULL },
	{ "upstream_timeout_ms", F_INT, A(upstream_timeout_ms), 1, 600000, NULL },
	{ "metrics_timeout_ms", F_INT, A(metrics_timeout_ms), 1, 600000, NULL },
	{ "max_connections", F_INT, A(max_connections), 1, 65536, NULL },
	{ "max_connections_per_ip", F_INT, A(max_connections_per_ip), 0, 65536, NULL },
	{ "max_waiters", F_INT, A(max_waiters), 0, 65536, NULL },
	{ "busy_poll_us", F_INT, A(busy_poll_us), 0, 10000, NULL },
	{ "debug_routes", F_BOOL, A(debug_routes), 0, 0, NULL },
	{ "write_routes", F_BOOL, A(write_routes), 0, 0, NULL },
	{ "auth", F_SUB, 0, 0, 0, auth_fields },
	{ "tls", F_SUB, 0, 0, 0, tls_fields },
	{ "public_routes", F_STRV, A(public_routes), 0, 0, NULL },
	{ "control_socket", F_STR, A(control_socket), 0, 0, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef A

#define E(m)	offsetof(struct cfg, endpoints.m)
static const struct field endpoints_fields[] = {
	{ "flavor", F_STR, E(flavor), 0, 0, flavors_endpoints },
	{ "store_config", F_CUSTOM, E(store_config), 0, 0, (const void *)parse_store_config },
	{ "env", F_ENV, E(env), 0, 0, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef E

#define P(m)	offsetof(struct cfg_ports, m)
static const struct field ports_fields[] = {
	{ "http_base", F_INT, P(http_base), 1, 65535, NULL },
	{ "http_stride", F_INT, P(http_stride), 1, 10000, NULL },
	{ "bootstrap_base", F_INT, P(bootstrap_base), 1, 65535, NULL },
	{ "dp_rpc_base", F_INT, P(dp_rpc_base), 1, 65535, NULL },
	{ "sys_base", F_INT, P(sys_base), 1, 65535, NULL },
	{ "kv_events_base", F_INT, P(kv_events_base), 1, 65535, NULL },
	{ "nixl_base", F_INT, P(nixl_base), 1, 65535, NULL },
	{ "job_jitter", F_BOOL, P(job_jitter), 0, 0, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef P

#define W(m)	offsetof(struct cfg, workers.m)
static const struct field workers_fields[] = {
	{ "flavor", F_STR, W(flavor), 0, 0, flavors_workers },
	{ "dp_launch_mode", F_STR, W(dp_launch_mode), 0, 0, dp_modes },
	{ "wait_for_master", F_BOOL, W(wait_for_master), 0, 0, NULL },
	{ "spread", F_BOOL, W(spread), 0, 0, NULL },
	{ "allow_colocation", F_BOOL, W(allow_colocation), 0, 0, NULL },
	{ "device_ids", F_BOOL, W(device_ids), 0, 0, NULL },
	{ "on_master_restart", F_STR, W(on_master_restart), 0, 0, on_restart },
	{ "gang", F_STR, W(gang), 0, 0, gang_modes },
	{ "peer_timeout_ms", F_INT, W(peer_timeout_ms), 100, MS_MAX, NULL },
	{ "drain_on_stop", F_BOOL, W(drain_on_stop), 0, 0, NULL },
	{ "drain_timeout_ms", F_INT, W(drain_timeout_ms), 100, MS_MAX, NULL },
	{ "ports", F_SUB, W(ports), 0, 0, ports_fields },
	{ "restart", F_SUB, W(restart), 0, 0, restart_fields },
	{ "stop_timeout_ms", F_INT, W(stop_timeout_ms), 0, 3600000, NULL },
	{ "groups", F_CUSTOM, W(groups), 0, 0, (const void *)parse_groups },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef W

#define G(m)	offsetof(struct worker_group, m)
static const char *const health_types[] = { "auto", "http", "tcp", "none", NULL };
static const char *const health_ports[] = { "http", "sys", NULL };
#define H(m)	offsetof(struct health_cfg, m)
static const struct field health_fields[] = {
	{ "type", F_STR, H(type), 1, 0, health_types },
	{ "port", F_STR, H(port), 1, 0, health_ports },
	{ "path", F_STR, H(path), 1, 0, NULL },
	{ "interval_ms", F_INT, H(interval_ms), 10, MS_MAX, NULL },
	{ "timeout_ms", F_INT, H(timeout_ms), 10, MS_MAX, NULL },
	{ "failures", F_INT, H(failures), 1, 1000, NULL },
	{ "ready_timeout_ms", F_INT, H(ready_timeout_ms), 100, MS_MAX, NULL },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef H

static const struct field group_fields[] = {
	{ "role", F_STR, G(role), 1, 0, roles },
	{ "count", F_INT, G(count), 1, 65536, NULL },
	{ "gpus", F_INT, G(gpus), 1, 65536, NULL },
	{ "tp", F_INT, G(tp), 1, 65536, NULL },
	{ "pp", F_INT, G(pp), 1, 65536, NULL },
	{ "dp", F_INT, G(dp), 1, 65536, NULL },
	{ "command", F_STRV, G(command), 1, 0, NULL },
	{ "env", F_ENV, G(env), 0, 0, NULL },
	{ "health", F_SUB, G(health), 0, 0, health_fields },
	{ NULL, 0, 0, 0, 0, NULL }
};
#undef G

static const struct field top_fields[] = {
	{ "job", F_SUB, 0, 0, 0, job_fields },
	{ "master", F_SUB, 0, 0, 0, master_fields },
	{ "admin", F_SUB, 0, 0, 0, admin_fields },
	{ "endpoints", F_SUB, 0, 0, 0, endpoints_fields },
	{ "workers", F_SUB, 0, 0, 0, workers_fields },
	{ "log", F_SUB, 0, 0, 0, log_fields },
	{ NULL, 0, 0, 0, 0, NULL }
};

const char *
cfg_policy_name(int p)
{
	return p >= 0 && p < 3 ? policies[p] : "?";
}

const char *
cfg_json_kind(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number with a fraction";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

char *
cfg_expand(const char *in, char *err, size_t errlen)
{
	struct { char *b; size_t n, cap; } o = { NULL, 0, 0 };
	const char *p = in;

#define PUT(s, len) do {						\
	if (o.n + (len) + 1 > o.cap) {					\
		o.cap = (o.n + (len) + 1) * 2;				\
		o.b = xrealloc(o.b, o.cap);				\
	}								\
	memcpy(o.b + o.n, (s), (len));					\
	o.n += (len);							\
	o.b[o.n] = '\0';						\
} while (0)

	PUT("", 0);
	while (*p) {
		if (p[0] != '$' || p[1] != '{') {
			PUT(p, 1);
			p++;
			continue;
		}
		const char *close = strchr(p + 2, '}');
		if (close == NULL) {
			snprintf(err, errlen, "unterminated \"${\" in \"%s\"", in);
			free(o.b);
			return NULL;
		}
		char *body = xstrndup(p + 2, (size_t)(close - p - 2));
		char *def = strstr(body, ":-");
		if (def != NULL) {
			*def = '\0';
			def += 2;
		}
		int ok = body[0] != '\0' && !isdigit((unsigned char)body[0]);
		for (char *q = body; ok && *q; q++)
			ok = isalnum((unsigned char)*q) || *q == '_';
		if (!ok) {
			snprintf(err, errlen, "bad variable name \"%s\" in \"%s\"", body, in);
			free(body);
			free(o.b);
			return NULL;
		}
		const char *val = getenv(body);
		if (val == NULL || (def != NULL && *val == '\0'))
			val = def;
		if (val == NULL) {
			snprintf(err, errlen, "environment variable %s is not set (use ${%s:-default})",
			    body, body);
			free(body);
			free(o.b);
			return NULL;
		}
		PUT(val, strlen(val));
		free(body);
		p = close + 1;
	}
#undef PUT
	return o.b;
}

static char *
path_join(const char *path, const char *key)
{
	return *path ? xasprintf("%s.%s", path, key) : xstrdup(key);
}

static char *
get_string(json_t *j, const char *path, struct strv *errs)
{
	char err[512];
	char *s;
	if (!json_is_string(j)) {
		strv_pushf(errs, "%s: must be a string, got %s", path, cfg_json_kind(j));
		return NULL;
	}
	s = cfg_expand(json_string_value(j), err, sizeof err);
	if (s == NULL)
		strv_pushf(errs, "%s: %s", path, err);
	return s;
}

static void
parse_strv(json_t *j, const char *path, char ***out, int nonempty, struct strv *errs)
{
	struct strv sv = { 0 };
	size_t i;
	json_t *e;
	if (!json_is_array(j)) {
		strv_pushf(errs, "%s: must be an array of strings, got %s", path, cfg_json_kind(j));
		return;
	}
	if (nonempty && json_array_size(j) == 0) {
		strv_pushf(errs, "%s: must not be empty", path);
		return;
	}
	json_array_foreach(j, i, e) {
		char *p = xasprintf("%s[%zu]", path, i);
		char *s = get_string(e, p, errs);
		if (s != NULL && nonempty && i == 0 && *s == '\0')
			strv_pushf(errs, "%s: must not be empty", p);
		if (s != NULL)
			strv_take(&sv, s);
		free(p);
	}
	if (sv.v == NULL)
		sv.v = xcalloc(1, sizeof(char *));
	strv_freev(*out);
	*out = sv.v;
}

static void
parse_env(json_t *j, const char *path, struct kvlist *out, struct strv *errs)
{
	const char *k;
	json_t *v;
	if (!json_is_object(j)) {
		strv_pushf(errs, "%s: must be an object of strings, got %s", path, cfg_json_kind(j));
		return;
	}
	kvlist_clear(out);
	out->v = xcalloc(json_object_size(j) + 1, sizeof(struct kv));
	json_object_foreach(j, k, v) {
		char *p = path_join(path, k);
		int ok = *k != '\0' && !isdigit((unsigned char)*k);
		for (const char *q = k; ok && *q; q++)
			ok = isalnum((unsigned char)*q) || *q == '_';
		char *s = NULL;
		if (!ok)
			strv_pushf(errs, "%s: not a valid environment variable name", p);
		else if (json_is_integer(v))
			s = xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else
			s = get_string(v, p, errs);
		if (s != NULL) {
			out->v[out->n].key = xstrdup(k);
			out->v[out->n++].value = s;
		}
		free(p);
	}
}

/* Index of s in the NULL-terminated choices, or -1 after reporting every allowed value. */
static int
choice_index(const char *const *c, const char *s, const char *path, struct strv *errs)
{
	char *list = NULL;
	for (int i = 0; c[i] != NULL; i++)
		if (strcmp(c[i], s) == 0)
			return i;
	for (int i = 0; c[i] != NULL; i++) {
		char *t = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", c[i]);
		free(list);
		list = t;
	}
	strv_pushf(errs, "%s: must be one of %s, got \"%s\"", path, list, s);
	free(list);
	return -1;
}

static void
parse_fields(json_t *obj, const char *path, const struct field *fields, void *base,
    struct strv *errs)
{
	const char *k;
	json_t *v;
	const char *what = *path ? path : "configuration";

	if (!json_is_object(obj)) {
		strv_pushf(errs, "%s: must be an object, got %s", what, cfg_json_kind(obj));
		return;
	}
	json_object_foreach(obj, k, v) {
		const struct field *f;
		for (f = fields; f->key != NULL; f++)
			if (strcmp(f->key, k) == 0)
				break;
		char *p = path_join(path, k);
		void *dst = (char *)base + f->off;
		if (f->key == NULL) {
			strv_pushf(errs, "%s: unknown key", p);
			free(p);
			continue;
		}
		switch (f->type) {
		case F_INT:
			if (!json_is_integer(v))
				strv_pushf(errs, "%s: must be an integer, got %s", p, cfg_json_kind(v));
			else if (json_integer_value(v) < f->min || json_integer_value(v) > f->max)
				strv_pushf(errs, "%s: must be %ld..%ld, got %" JSON_INTEGER_FORMAT, p,
				    f->min, f->max, json_integer_value(v));
			else
				*(long *)dst = (long)json_integer_value(v);
			break;
		case F_BOOL:
			if (!json_is_boolean(v))
				strv_pushf(errs, "%s: must be true or false, got %s", p, cfg_json_kind(v));
			else
				*(int *)dst = json_is_true(v);
			break;
		case F_ENUM: {
			int i;
			if (!json_is_string(v))
				strv_pushf(errs, "%s: must be a string, got %s", p, cfg_json_kind(v));
			else if ((i = choice_index(f->aux, json_string_value(v), p, errs)) >= 0)
				*(int *)dst = i;
			break;
		}
		case F_STR: {
			char *s = get_string(v, p, errs);
			if (s == NULL)
				break;
			if (f->min && *s == '\0')
				strv_pushf(errs, "%s: must not be empty", p);
			else if (f->aux == NULL || choice_index(f->aux, s, p, errs) >= 0) {
				free(*(char **)dst);
				*(char **)dst = s;
				break;
			}
			free(s);
			break;
		}
		case F_STRV:
			parse_strv(v, p, (char ***)dst, (int)f->min, errs);
			break;
		case F_ENV:
			parse_env(v, p, (struct kvlist *)dst, errs);
			break;
		case F_SUB:
			parse_fields(v, p, f->aux, dst, errs);
			break;
		case F_CUSTOM:
			((custom_fn)f->aux)(v, p, dst, errs);
			break;
		}
		free(p);
	}
}

/* Expand ${} in every string of the pass-through object; key order and value types stay. */
static json_t *
expand_json(json_t *j, const char *path, struct strv *errs)
{
	const char *k;
	json_t *v, *out;
	size_t i;
	switch (json_typeof(j)) {
	case JSON_STRING: {
		char *s = get_string(j, path, errs);
		out = json_string(s ? s : "");
		free(s);
		return out;
	}
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach(j, k, v) {
			char *p = path_join(path, k);
			json_object_set_new(out, k, expand_json(v, p, errs));
			free(p);
		}
		return out;
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach(j, i, v) {
			char *p = xasprintf("%s[%zu]", path, i);
			json_array_append_new(out, expand_json(v, p, errs));
			free(p);
		}
		return out;
	default:
		return json_incref(j);
	}
}

static void
parse_store_config(json_t *j, const char *path, void *dst, struct strv *errs)
{
	json_t *out;
	if (!json_is_object(j)) {
		strv_pushf(errs, "%s: must be an object, got %s", path, cfg_json_kind(j));
		return;
	}
	out = expand_json(j, path, errs);
	json_decref(*(json_t **)dst);
	*(json_t **)dst = out;
}

/* job.sidecars: {"node": "http://host:port"}, each URL as master.url takes it. */
static void
parse_sidecars(json_t *j, const char *path, void *dst, struct strv *errs)
{
	struct kvlist *out = dst;
	const char *k;
	json_t *v;
	if (!json_is_object(j)) {
		strv_pushf(errs, "%s: must be an object of node names to admin URLs, got %s", path, cfg_json_kind(j));
		return;
	}
	kvlist_clear(out);
	out->v = xcalloc(json_object_size(j) + 1, sizeof(struct kv));
	json_object_foreach(j, k, v) {
		char *p = path_join(path, k), *s = get_string(v, p, errs), why[256];
		struct url u;
		if (s != NULL && url_parse(s, &u, why, sizeof why) != 0) {
			strv_pushf(errs, "%s: %s", p, why);
			free(s);
		} else if (s != NULL) {
			out->v[out->n].key = xstrdup(k);
			out->v[out->n++].value = s;
		}
		free(p);
	}
}

/* admin.auth.basic_auth_users: user -> bcrypt hash, as Prometheus's web configuration has it; a
 * plain-text password is refused. */
static void
parse_basic_users(json_t *j, const char *path, void *dst, struct strv *errs)
{
	struct kvlist *out = dst;
	const char *k;
	json_t *v;
	if (!json_is_object(j)) {
		strv_pushf(errs, "%s: must be an object of user names to bcrypt hashes, got %s", path, cfg_json_kind(j));
		return;
	}
	kvlist_clear(out);
	out->v = xcalloc(json_object_size(j) + 1, sizeof(struct kv));
	json_object_foreach(j, k, v) {
		char *p = path_join(path, k), *s = get_string(v, p, errs);
		if (*k == '\0' || strlen(k) > 255 || strchr(k, ':') != NULL || strpbrk(k, "\t\r\n") != NULL) {
			strv_pushf(errs, "%s: not a user name (1 to 255 characters, no ':' or control character)", p);
			free(s);
		} else if (s != NULL && !auth_bcrypt_hash_ok(s)) {
			strv_pushf(errs, "%s: not a bcrypt hash ($2a$, $2b$ or $2y$, as htpasswd -B or mkpasswd -m "
			    "bcrypt write it); plain-text passwords are not accepted", p);
			free(s);
		} else if (s != NULL) {
			out->v[out->n].key = xstrdup(k);
			out->v[out->n++].value = s;
		}
		free(p);
	}
}

static void
group_defaults(struct worker_group *g)
{
	g->role = xstrdup("agg");
	g->count = g->gpus = g->tp = g->pp = g->dp = 1;
	g->command = xcalloc(1, sizeof(char *));
	g->health.type = xstrdup("auto");
	g->health.port = xstrdup("http");
	g->health.path = xstrdup("/health");
	g->health.interval_ms = 2000;
	g->health.timeout_ms = 1000;
	g->health.failures = 3;
	g->health.ready_timeout_ms = 1800000;
}

static void
parse_groups(json_t *j, const char *path, void *dst, struct strv *errs)
{
	struct cfg *c = (struct cfg *)((char *)dst - offsetof(struct cfg, workers.groups));
	size_t i;
	json_t *e;
	if (!json_is_array(j)) {
		strv_pushf(errs, "%s: must be an array of objects, got %s", path, cfg_json_kind(j));
		return;
	}
	c->workers.groups = xcalloc(json_array_size(j) + 1, sizeof(struct worker_group));
	json_array_foreach(j, i, e) {
		struct worker_group *g = &c->workers.groups[i];
		char *p = xasprintf("%s[%zu]", path, i);
		group_defaults(g);
		c->workers.ngroups++;
		if (json_is_object(e) && json_object_get(e, "command") == NULL)
			strv_pushf(errs, "%s.command: is required", p);
		parse_fields(e, p, group_fields, g, errs);
		free(p);
	}
}

int
cfg_parse(json_t *root, struct cfg *c, struct strv *errs)
{
	size_t before = errs->n;
	parse_fields(root, "", top_fields, c, errs);
	return errs->n == before ? 0 : -1;
}
