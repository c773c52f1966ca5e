#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workerenv.h"
#include "xalloc.h"

char *
hostport(const char *host, long port)
{
	return xasprintf(strchr(host, ':') ? "[%s]:%ld" : "%s:%ld", host, port);
}

int
split_hostport(const char *s, char *host, size_t len, long *port)
{
	const char *colon = strrchr(s, ':');
	char *end;
	if (colon == NULL || colon == s)
		return -1;
	if (s[0] == '[' && colon[-1] == ']')
		snprintf(host, len, "%.*s", (int)(colon - s - 2), s + 1);
	else
		snprintf(host, len, "%.*s", (int)(colon - s), s);
	*port = strtol(colon + 1, &end, 10);
	return *end == '\0' && *port > 0 && *port <= 65535 ? 0 : -1;
}

const char *
workerenv_gflag(char *const *args, const char *name, int boolean)
{
	const char *v = NULL;
	size_t n = strlen(name);
	for (size_t i = 0; args != NULL && args[i] != NULL; i++) {
		const char *a = args[i];
		if (a[0] != '-')
			continue;
		a += a[1] == '-' ? 2 : 1;
		if (strncmp(a, name, n) == 0 && a[n] == '=')
			v = a + n + 1;
		else if (strcmp(a, name) == 0)
			v = boolean ? "true" : args[i + 1] != NULL ? args[++i] : "";
		else if (boolean && strncmp(a, "no", 2) == 0 && strcmp(a + 2, name) == 0)
			v = "false";
	}
	return v;
}

int
workerenv_gflag_true(char *const *args, const char *name)
{
	const char *v = workerenv_gflag(args, name, 1);
	return v != NULL && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 ||
	    strcmp(v, "y") == 0 || strcmp(v, "t") == 0);
}

int
workerenv_ha_entry(char *const *args, char *out, size_t len, char *err, size_t errlen)
{
	const char *type = workerenv_gflag(args, "ha_backend_type", 0);
	const char *conn = workerenv_gflag(args, "ha_backend_connstring", 0), *etcd = workerenv_gflag(args, "etcd_endpoints", 0);
	if (!workerenv_gflag_true(args, "enable_ha"))
		return 0;
	if (type == NULL || *type == '\0')
		type = "etcd";
	if ((conn == NULL || *conn == '\0') && strcmp(type, "etcd") == 0)
		conn = etcd;
	if (conn == NULL || *conn == '\0') {
		snprintf(err, errlen, "--enable_ha needs the HA backend's connection string: "
		    "--ha_backend_connstring=..., or for the etcd backend --etcd_endpoints=h1:2379;h2:2379 "
		    "(mooncake_master aborts without one)");
		return -1;
	}
	/* the master takes redis://host:port or host:port (ha/common/redis/redis_connection.cpp); the
	 * client's entry is <type>://<conn>, so a scheme already there is not said twice */
	if (strncmp(conn, type, strlen(type)) == 0 && strncmp(conn + strlen(type), "://", 3) == 0)
		conn += strlen(type) + 3;
	snprintf(out, len, "%s://%s", type, conn);
	return 1;
}

char *
workerenv_master(const struct master_addr *m)
{
	return m->entry != NULL && *m->entry != '\0' ? xstrdup(m->entry) : hostport(m->address, m->rpc_port);
}

void
workerenv_build(struct kvlist *env, const char *flavor, const struct master_addr *m,
    const char *config_path, const char *local_hostname, const struct kvlist *user)
{
	char *master = workerenv_master(m);
	kvlist_set(env, "MOONCAKE_LOCAL_HOSTNAME", local_hostname);
	for (size_t i = 0; user != NULL && i < user->n; i++)
		kvlist_set(env, user->v[i].key, user->v[i].value);
	kvlist_set(env, "MOONCAKE_MASTER", master);
	if (m->metadata_port != 0) {
		char *meta = hostport(m->address, m->metadata_port), *url = xasprintf("http://%s/metadata", meta);
		kvlist_set(env, "MOONCAKE_TE_META_DATA_SERVER", url);
		free(url);
		free(meta);
	}
	if (strcmp(flavor, "vllm") == 0)
		kvlist_set(env, "MOONCAKE_CONFIG_PATH", config_path);
	free(master);
}

char *
workerenv_store_config(const json_t *store_config, const struct master_addr *m, const char *local_hostname)
{
	json_t *o = json_deep_copy(store_config);
	const char *meta;
	char *addr = workerenv_master(m), *s;
	if (o == NULL)
		o = json_object();
	json_object_set_new(o, "master_server_address", json_string(addr));
	meta = json_string_value(json_object_get(o, "metadata_server"));
	if (meta != NULL && strcmp(meta, WORKERENV_METADATA_URL) == 0 && m->metadata_port != 0) {
		char *hp = hostport(m->address, m->metadata_port);
		json_object_set_new(o, "metadata_server", json_sprintf("http://%s/metadata", hp));
		free(hp);
	}
	if (local_hostname != NULL && json_object_get(o, "local_hostname") == NULL)
		json_object_set_new(o, "local_hostname", json_string(local_hostname));
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(o);
	free(addr);
	return s;
}
