#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hacfg.h"
#include "kvlist.h"
#include "workerenv.h"
#include "xalloc.h"

#define SNAPSHOT_ENV	"MOONCAKE_SNAPSHOT_LOCAL_PATH"

/* The flags master.ha sets: one of them in master.extra_args too would be two answers to one
 * question. */
static const char *const owned[] = {
	"enable_ha", "ha_backend_type", "ha_backend_connstring", "etcd_endpoints", "enable_snapshot",
	"enable_snapshot_restore", "snapshot_interval_seconds", "snapshot_object_store_type", "enable_oplog", NULL
};

/* etcd://HOST:PORT[,HOST:PORT...]: the endpoints as --etcd_endpoints takes them (separated by
 * semicolons) into out; -1 when it is not that. */
static int
etcd_endpoints(const char *backend, char *out, size_t len)
{
	const char *p = backend + 7;
	size_t o = 0;
	if (strncmp(backend, "etcd://", 7) != 0 || *p == '\0')
		return -1;
	while (*p != '\0') {
		size_t n = strcspn(p, ",");
		const char *colon = memrchr(p, ':', n);
		if (n == 0 || colon == NULL || colon == p || colon + 1 == p + n || memchr(p, '/', n) != NULL ||
		    strspn(colon + 1, "0123456789") != (size_t)(p + n - colon - 1) || o + n + 2 > len)
			return -1;
		if (o > 0)
			out[o++] = ';';
		memcpy(out + o, p, n);
		o += n;
		p += n + (p[n] == ',');
		if (p[-1] == ',' && *p == '\0')
			return -1;
	}
	out[o] = '\0';
	return 0;
}

static void
add_flags(struct hacfg *c, struct strv *errs)
{
	struct strv args = { 0 };
	const char *env;
	for (int i = 0; owned[i] != NULL; i++)
		if (workerenv_gflag(*c->extra_args, owned[i], strncmp(owned[i], "enable_", 7) == 0) != NULL)
			strv_pushf(errs, "master.extra_args: --%s is set by master.ha; leave it out", owned[i]);
	if (strncmp(c->backend, "etcd://", 7) == 0) {
		char eps[1024] = "";
		if (etcd_endpoints(c->backend, eps, sizeof eps) != 0)
			strv_pushf(errs, "master.ha.backend: \"%s\" is not etcd://HOST:PORT[,HOST:PORT...]", c->backend);
		if (c->snapshot_dir[0] != '\0')
			strv_pushf(errs, "master.ha.snapshot_dir: not used with etcd, whose OpLog replicates the leader's "
			    "metadata to the standbys; leave it out");
		for (char **a = *c->extra_args; *a != NULL; a++)
			strv_push(&args, *a);
		strv_push(&args, "--enable_ha=true");
		strv_push(&args, "--ha_backend_type=etcd");
		strv_pushf(&args, "--etcd_endpoints=%s", eps);
		strv_push(&args, "--enable_oplog=true");
		strv_freev(*c->extra_args);
		*c->extra_args = args.v;
		return;
	}
	if (strncmp(c->backend, "redis://", 8) != 0 || c->backend[8] == '\0' ||
	    strchr(c->backend + 8, '/') != NULL)
		strv_pushf(errs, "master.ha.backend: \"%s\" is neither redis://HOST:PORT nor "
		    "etcd://HOST:PORT[,HOST:PORT...]", c->backend);
	if (c->snapshot_dir[0] != '/')
		strv_pushf(errs, "master.ha.snapshot_dir: \"%s\" is not an absolute path: every master of the HA "
		    "group must share one (a shared filesystem across machines); a standby is promoted from it",
		    c->snapshot_dir);
	env = kvlist_get(c->env, SNAPSHOT_ENV);
	if (env != NULL && strcmp(env, c->snapshot_dir) != 0)
		strv_pushf(errs, "master.env: " SNAPSHOT_ENV " is set by master.ha.snapshot_dir; leave it out");
	for (char **a = *c->extra_args; *a != NULL; a++)
		strv_push(&args, *a);
	strv_push(&args, "--enable_ha=true");
	strv_push(&args, "--ha_backend_type=redis");
	strv_pushf(&args, "--ha_backend_connstring=%s", c->backend);
	strv_push(&args, "--enable_snapshot=true");
	strv_pushf(&args, "--snapshot_interval_seconds=%ld", c->snapshot_interval_s);
	strv_push(&args, "--enable_snapshot_restore=true");
	strv_push(&args, "--snapshot_object_store_type=local");
	strv_freev(*c->extra_args);
	*c->extra_args = args.v;		/* strv keeps it NULL-terminated */
	kvlist_set(c->env, SNAPSHOT_ENV, c->snapshot_dir);
}

/* What 0.3.12 needs to serve as an HA leader, from its source. */
static void
check_servable(const struct hacfg *c, struct strv *errs)
{
	char *const *a = *c->extra_args;
	const char *type = workerenv_gflag(a, "ha_backend_type", 0), *store, *rpc;
	rpc = workerenv_gflag(a, "rpc_address", 0);
	if (rpc == NULL || rpc[0] == '\0' || strcmp(rpc, "0.0.0.0") == 0 || strcmp(rpc, "::") == 0)
		strv_pushf(errs, "master.extra_args: an HA master registers --rpc_address:--rpc_port as the leader's "
		    "address, where clients and the other sidecars reach it; %s is no such address: give "
		    "--rpc_address=<this node's address>", rpc == NULL || rpc[0] == '\0' ? "the default 0.0.0.0" : rpc);
	if (type == NULL || strcmp(type, "redis") != 0)
		return;
	/* ha/standby_controller.cpp: on Redis a standby's only way to the data is the snapshot
	 * bootstrap; without it the leader's promotion is refused for ever */
	if (!workerenv_gflag_true(a, "enable_snapshot_restore"))
		strv_pushf(errs, "master.extra_args: --ha_backend_type=redis needs --enable_snapshot_restore=true: "
		    "without it 0.3.12 promotes no standby, so its leader never serves (\"Failed to promote standby for "
		    "serve: UNAVAILABLE_IN_CURRENT_STATUS\"); master.ha sets what it needs");
	store = workerenv_gflag(a, "snapshot_object_store_type", 0);
	if (store == NULL || store[0] == '\0')
		strv_pushf(errs, "master.extra_args: --ha_backend_type=redis needs --snapshot_object_store_type "
		    "(local, with " SNAPSHOT_ENV " in master.env): the standby is promoted from the snapshots");
	else if (strcmp(store, "local") == 0 && kvlist_get(c->env, SNAPSHOT_ENV) == NULL)
		strv_pushf(errs, "master.env: --snapshot_object_store_type=local needs " SNAPSHOT_ENV ", the "
		    "directory every master of the HA group shares");
	if (!workerenv_gflag_true(a, "enable_snapshot"))
		strv_pushf(errs, "master.extra_args: --ha_backend_type=redis needs --enable_snapshot=true: the "
		    "leader's snapshots are what a standby is promoted from");
}

/* master.snapshot: snapshots every interval into a directory that outlives the sidecar, and a
 * restore from the latest at every start. 0.3.12 restores what it can and starts fresh otherwise:
 * no snapshot ("No previous snapshot found"), or none usable (each candidate decoded in turn, then
 * "Failed to restore from all candidate snapshots": master_service.cpp, MasterService::RestoreState),
 * so the flag is safe on a first start too. */
static void
add_snapshot(struct hacfg *c, struct strv *errs)
{
	static const char *const snap[] = { "enable_snapshot", "enable_snapshot_restore", "snapshot_interval_seconds",
		"snapshot_object_store_type", "snapshot_retention_count", NULL };
	struct strv args = { 0 };
	if (c->backend[0] != '\0' || workerenv_gflag_true(*c->extra_args, "enable_ha")) {
		strv_pushf(errs, "master.snapshot: an HA master takes its snapshots with master.ha; leave "
		    "master.snapshot out");
		return;
	}
	for (int i = 0; snap[i] != NULL; i++)
		if (workerenv_gflag(*c->extra_args, snap[i], strncmp(snap[i], "enable_", 7) == 0) != NULL)
			strv_pushf(errs, "master.extra_args: --%s is set by master.snapshot; leave it out", snap[i]);
	if (c->warm_kv_lease_ttl_ms > 0 && workerenv_gflag(*c->extra_args, "default_kv_lease_ttl", 0) != NULL)
		strv_pushf(errs, "master.extra_args: --default_kv_lease_ttl is set by master.snapshot.kv_lease_ttl_ms; "
		    "leave one out");
	if (c->warm_dir[0] != '/')
		strv_pushf(errs, "master.snapshot.dir: \"%s\" is not an absolute path", c->warm_dir);
	if (kvlist_get(c->env, SNAPSHOT_ENV) != NULL)
		strv_pushf(errs, "master.env: " SNAPSHOT_ENV " is set by master.snapshot.dir; leave it out");
	for (char **a = *c->extra_args; *a != NULL; a++)
		strv_push(&args, *a);
	strv_push(&args, "--enable_snapshot=true");
	strv_pushf(&args, "--snapshot_interval_seconds=%ld", c->warm_interval_s);
	strv_push(&args, "--snapshot_object_store_type=local");
	strv_push(&args, "--enable_snapshot_restore=true");
	strv_pushf(&args, "--snapshot_retention_count=%ld", c->warm_keep);
	if (c->warm_kv_lease_ttl_ms > 0)
		strv_pushf(&args, "--default_kv_lease_ttl=%ld", c->warm_kv_lease_ttl_ms);
	strv_freev(*c->extra_args);
	*c->extra_args = args.v;
	kvlist_set(c->env, SNAPSHOT_ENV, c->warm_dir);
}

void
hacfg_resolve(struct hacfg *c, struct strv *errs)
{
	char why[300];
	c->entry[0] = '\0';
	if (c->warm)
		add_snapshot(c, errs);
	if (c->backend[0] != '\0')
		add_flags(c, errs);
	else if (c->snapshot_dir[0] != '\0')
		strv_pushf(errs, "master.ha.snapshot_dir: set without master.ha.backend");
	switch (workerenv_ha_entry(*c->extra_args, c->entry, c->entry_len, why,
	    sizeof why)) {
	case -1:
		strv_pushf(errs, "master.extra_args: %s", why);
		break;
	case 1:
		check_servable(c, errs);
		break;
	}
}

const char *
hacfg_env(const struct kvlist *env, const char *name)
{
	const char *v = kvlist_get(env, name);
	return v != NULL ? v : getenv(name);
}

const char *
hacfg_cluster_id(char *const *args, const struct kvlist *env)
{
	const char *v = workerenv_gflag(args, "cluster_id", 0);
	if (v == NULL || v[0] == '\0')
		v = hacfg_env(env, "MC_STORE_CLUSTER_ID");
	return v != NULL && v[0] != '\0' ? v : "mooncake_cluster";	/* include/types.h */
}
