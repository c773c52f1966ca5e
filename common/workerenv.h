#ifndef COMMON_WORKERENV_H
#define COMMON_WORKERENV_H
#include <jansson.h>
#include "kvlist.h"

/* Where the master is, as workers are told. */
struct master_addr {
	const char	*address;	/* host or IP the workers connect to */
	long		 rpc_port;
	long		 metadata_port;	/* 0: no HTTP metadata server */
};

/* "host:port", bracketing an IPv6 literal. Caller frees. */
char	*hostport(const char *, long);
/* The reverse: "host:port" or "[v6]:port" to host (unbracketed) and port; -1 when malformed. */
int	split_hostport(const char *, char *, size_t, long *);

/* The Mooncake variables every worker gets, merged as srtctl does: MOONCAKE_LOCAL_HOSTNAME (this
 * node), then endpoints.env, then the forced MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER and (vllm)
 * MOONCAKE_CONFIG_PATH, which endpoints.env cannot override. */
void	workerenv_build(struct kvlist *, const char *flavor, const struct master_addr *,
	    const char *config_path, const char *local_hostname, const struct kvlist *user);

/* vLLM's store config: store_config verbatim (key order and types kept) with master_server_address
 * set to address:rpc_port; two-space indented like srtctl's json.dumps(indent=2), no final newline.
 * Caller frees. */
char	*workerenv_store_config(const json_t *, const struct master_addr *);
#endif
