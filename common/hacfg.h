#ifndef COMMON_HACFG_H
#define COMMON_HACFG_H
#include <stddef.h>
#include "kvlist.h"
#include "xalloc.h"

/*
 * The master's HA: master.ha (the backend URL and the snapshot directory) resolved into the flags
 * and the environment the sidecar starts mooncake_master with (and master.snapshot's, the warm
 * restart of one master without HA), and the checks that an HA master of
 * 0.3.12 can serve at all, whether HA came from master.ha or from master.extra_args, and the entry
 * clients connect through (master.ha_entry). Errors name the key and the flag. Pure: no I/O.
 */
struct hacfg {
	const char	*backend;	/* master.ha.backend, "" none */
	const char	*snapshot_dir;	/* master.ha.snapshot_dir, "" none */
	long		 snapshot_interval_s;
	char		***extra_args;	/* master.extra_args: flags are appended (the vector replaced) */
	struct kvlist	*env;		/* master.env: the snapshot directory is set */
	char		*entry;		/* out: what clients connect through, "" without --enable_ha */
	size_t		 entry_len;
	/* master.snapshot: warm restart of a master without HA */
	int		 warm;
	const char	*warm_dir;	/* resolved, absolute */
	long		 warm_interval_s, warm_kv_lease_ttl_ms, warm_keep;
};

void	hacfg_resolve(struct hacfg *, struct strv *errs);
/* What the master sees of name: env (master.env) over the sidecar's environment. */
const char *hacfg_env(const struct kvlist *env, const char *name);
/* The cluster id the master names its snapshots and its Redis keys by: --cluster_id, else
 * MC_STORE_CLUSTER_ID in env or the environment, else 0.3.12's DEFAULT_CLUSTER_ID. */
const char *hacfg_cluster_id(char *const *args, const struct kvlist *env);
#endif
