#ifndef COMMON_WORKERENV_H
#define COMMON_WORKERENV_H
#include <jansson.h>
#include "kvlist.h"

/* Where the master is, as workers are told. */
struct master_addr {
	const char	*address;	/* host or IP the workers connect to */
	long		 rpc_port;
	long		 metadata_port;	/* 0: no HTTP metadata server */
	const char	*entry;		/* HA: what clients connect through, e.g. "etcd://h1:2379;h2:2379";
					   NULL: address:rpc_port */
};

/* A gflags flag's value in the master's arguments, as gflags reads them (the last one wins):
 * "-f=v", "--f=v", "-f v", "--f v"; with boolean, a bare "--f" is "true" and "--nof" "false". NULL
 * when absent. */
const char *workerenv_gflag(char *const *args, const char *name, int boolean);
/* Whether a boolean flag is given and true (gflags' true, 1, yes, y, t). */
int	workerenv_gflag_true(char *const *args, const char *name);

/* The HA entry of a master started with these flags: with --enable_ha, "<ha_backend_type>://<conn>"
 * where conn is --ha_backend_connstring, or for the etcd backend (the default) --etcd_endpoints,
 * as the master resolves it; a Mooncake client splits it at "://" and follows the leader itself.
 * Returns 1 with the entry in out, 0 without --enable_ha, -1 with err when HA has no connection
 * string (the master aborts then). Flags as gflags reads them: -f or --f, =V or a separate V. */
int	workerenv_ha_entry(char *const *args, char *out, size_t len, char *err, size_t errlen);

/* "host:port", bracketing an IPv6 literal. Caller frees. */
char	*hostport(const char *, long);
/* The reverse: "host:port" or "[v6]:port" to host (unbracketed) and port; -1 when malformed. */
int	split_hostport(const char *, char *, size_t, long *);

/* The Mooncake variables every worker gets, merged as srtctl does: MOONCAKE_LOCAL_HOSTNAME (this
 * node), then endpoints.env, then the forced MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER and (vllm)
 * MOONCAKE_CONFIG_PATH, which endpoints.env cannot override. */
void	workerenv_build(struct kvlist *, const char *flavor, const struct master_addr *,
	    const char *config_path, const char *local_hostname, const struct kvlist *user);

/* MOONCAKE_MASTER and master_server_address: the HA entry, or address:rpc_port. Caller frees. */
char	*workerenv_master(const struct master_addr *);

/* vLLM's store config: store_config verbatim (key order and types kept) with master_server_address
 * set to workerenv_master(); two-space indented like srtctl's json.dumps(indent=2), no final newline.
 * Two additions: a metadata_server of "{metadata_url}" becomes the master's HTTP metadata server
 * (http://address:port/metadata), and local_hostname (when not NULL and the config has none) is
 * added, so that a client reading only this file can set up. Caller frees. */
#define WORKERENV_METADATA_URL	"{metadata_url}"
char	*workerenv_store_config(const json_t *, const struct master_addr *, const char *);
#endif
