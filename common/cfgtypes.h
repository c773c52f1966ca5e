#ifndef COMMON_CFGTYPES_H
#define COMMON_CFGTYPES_H
/* struct cfg and its parts: what common/cfgparse.c fills from the file and common/cfg.c resolves. */
#include <jansson.h>
#include <netinet/in.h>
#include "kvlist.h"
#include "xalloc.h"

enum restart_policy { RESTART_ALWAYS, RESTART_ON_FAILURE, RESTART_NEVER };

struct restart_cfg {
	int	policy;
	long	backoff_initial_ms;
	long	backoff_max_ms;
	long	reset_after_ms;
	long	burst;
	long	burst_window_ms;
};

/* How a worker process is found healthy: GET path on one of its ports answering 200 (http), a
 * connect (tcp), or being alive (none); auto: http for vllm and sglang, none for generic. */
struct health_cfg {
	char		*type;		/* auto, http, tcp, none */
	char		*port;		/* http (its HTTP port) or sys (DYN_SYSTEM_PORT) */
	char		*path;
	long		 interval_ms, timeout_ms, failures, ready_timeout_ms;
};

struct worker_group {
	char		*role;
	long		 count, gpus, tp, pp, dp;
	char		**command;
	struct kvlist	 env;
	struct health_cfg health;
};

struct cfg_ports {
	long	http_base, http_stride, bootstrap_base, dp_rpc_base, sys_base, kv_events_base, nixl_base;
	int	job_jitter;
};

#define CFG_SOCKET_PATH_MAX	108	/* sizeof sockaddr_un's sun_path */

struct cfg {
	struct {
		char		*id;
		char		*nodes_expr;
		struct strv	 nodes;		/* expanded job.nodes */
		char		*node;		/* this node, resolved */
		long		 gpus_per_node;	/* resolved */
		char		*run_dir;
		char		*log_dir;	/* the children's logs; resolved: run_dir when empty */
		char		*network_interface;	/* the interface whose IPv4 workers use, or "" */
		char		*user;		/* started as root: become this user before starting anything */
		struct kvlist	 sidecars;	/* node -> its sidecar's admin URL, where not the default */
	} job;
	struct {
		long		 max_bytes;	/* rotate a child's log at this size; 0: never */
		long		 keep;		/* rotated files kept: name.log.1 .. name.log.<keep> */
	} log;
	struct {
		int		 enabled;
		char		*node;		/* resolved: first of job.nodes when empty */
		char		**command;
		char		*address;
		long		 rpc_port, http_metadata_port, metrics_port;
		char		**extra_args;
		struct kvlist	 env;
		long		 ready_timeout_ms, probe_interval_ms, stop_timeout_ms;
		int		 probe_on_output;	/* probe at once when its output says a server is up */
		int		 check_flags;	/* ask the binary for its flags (--helpxml) before the start */
		char		*ha_backend;	/* master.ha.backend: "redis://host:port", "" no HA of ours */
		char		*ha_snapshot_dir;
		long		 ha_snapshot_interval_s;
		long		 ha_warmup_timeout_ms;	/* an HA leader that does not serve by then is restarted */
		char		 ha_entry[512];	/* resolved: with --enable_ha, what clients connect through
						   (workerenv_ha_entry); "" otherwise */
		int		 snapshot;	/* master.snapshot.enabled: warm restart (no HA) */
		char		*snapshot_dir;	/* resolved: $STATE_DIRECTORY/snapshots or <run_dir>/snapshots */
		long		 snapshot_interval_s, snapshot_keep;
		long		 snapshot_kv_lease_ttl_ms;	/* --default_kv_lease_ttl; 0: the master's own */
		long		 liveness_interval_ms, liveness_failures;
		long		 lock_probe_interval_ms;	/* a request through the metadata locks; 0: none */
		long		 lock_probe_timeout_ms;
		long		 stall_window_ms;	/* the ping counter flat this long, with clients: stalled */
		long		 stall_restart_ms;	/* stalled this long: restart it; 0: never */
		struct restart_cfg restart;
		char		*url;
		char		*ca_file;	/* https to other sidecars: the CA to trust ("": the system's) */
		int		 runs_here;	/* enabled and this node is master.node */
	} master;
	struct {
		char		*listen;
		char		 host[INET6_ADDRSTRLEN];
		int		 family;
		long		 port;
		long		 upstream_timeout_ms;
		long		 metrics_timeout_ms;
		long		 max_connections;
		long		 max_connections_per_ip;	/* 0: no limit */
		long		 max_waiters;	/* long-polls held at once; resolved from job.nodes when unset */
		long		 busy_poll_us;	/* poll the loop this long after a request back to back; 0: sleep */
		int		 debug_routes;	/* proxy the master's routes that list keys, segments, ... */
		int		 write_routes;	/* proxy its mutating routes (with admin.auth only) */
		char		*bearer_token_file;	/* admin.auth: "" means no authentication */
		struct kvlist	 basic_users;		/* admin.auth.basic_auth_users: user -> bcrypt hash */
		char		*tls_cert_file;		/* admin.tls: "" means plain HTTP */
		char		*tls_key_file;
		char		*tls_client_ca_file;	/* "": no client certificates asked for */
		char		**public_routes;	/* answered without credentials */
		char		*control_socket;	/* the local socket (mode 0600): "" resolved to <run_dir>/control.sock, "off": none */
	} admin;
	struct {
		char		*flavor;
		json_t		*store_config;
		struct kvlist	 env;
	} endpoints;
	struct {
		char		*flavor;
		char		*dp_launch_mode;
		int		 wait_for_master;
		int		 spread;		/* one partial-node worker per node */
		int		 allow_colocation;	/* vLLM: prefill and decode may share a node */
		int		 device_ids;		/* vLLM: --device-ids instead of CUDA_VISIBLE_DEVICES */
		char		*on_master_restart;
		char		*gang;		/* endpoint: an endpoint's processes restart together; process */
		long		 peer_timeout_ms;	/* a gang member's node unanswered this long: it died */
		int		 drain_on_stop;	/* a graceful stop drains this node's segments first */
		long		 drain_timeout_ms;	/* and waits this long for it at most */
		struct cfg_ports ports;
		struct restart_cfg restart;
		long		 stop_timeout_ms;
		struct worker_group *groups;
		size_t		 ngroups;
	} workers;
};

struct cfg_overrides {
	const char	*listen;	/* --listen */
	const char	*node;		/* --node */
};
/* common/cfgtypes.c: every key's default (what cfg_load_* start from), and the struct freed. */
void	cfg_defaults(struct cfg *);
void	cfg_free(struct cfg *);
#endif
