#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "workerenv.h"
#include "xalloc.h"

char *
hostport(const char *host, long port)
{
	return xasprintf(strchr(host, ':') ? "[%s]:%ld" : "%s:%ld", host, port);
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
