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

void
workerenv_build(struct kvlist *env, const char *flavor, const struct master_addr *m,
    const char *config_path, const char *local_hostname, const struct kvlist *user)
{
	char *master = hostport(m->address, m->rpc_port);
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
workerenv_store_config(const json_t *store_config, const struct master_addr *m)
{
	json_t *o = json_deep_copy(store_config);
	char *addr = hostport(m->address, m->rpc_port), *s;
	if (o == NULL)
		o = json_object();
	json_object_set_new(o, "master_server_address", json_string(addr));
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(o);
	free(addr);
	return s;
}
