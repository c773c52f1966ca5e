/* A struct cfg before its file is read (the defaults), and freed. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "cfgtypes.h"

static void
restart_defaults(struct restart_cfg *r, long initial, long max, long reset, long burst, long window)
{
	r->policy = RESTART_ON_FAILURE;
	r->backoff_initial_ms = initial;
	r->backoff_max_ms = max;
	r->reset_after_ms = reset;
	r->burst = burst;
	r->burst_window_ms = window;
}

void
cfg_defaults(struct cfg *c)
{
	static const char *const cmd[] = { "mooncake_master", NULL };
	memset(c, 0, sizeof *c);
	c->job.id = xstrdup("local");
	c->job.nodes_expr = xstrdup("localhost");
	c->job.node = xstrdup("");
	c->job.gpus_per_node = 8;
	c->job.run_dir = xstrdup("/tmp/mooncake-sidecar/local");
	c->job.log_dir = xstrdup("");
	c->job.network_interface = xstrdup("");
	c->job.user = xstrdup("");
	c->log.max_bytes = 64L * 1024 * 1024;
	c->log.keep = 5;
	c->master.enabled = 1;
	c->master.node = xstrdup("");
	c->master.command = strv_dup((char *const *)cmd);
	c->master.ca_file = xstrdup("");
	c->master.address = xstrdup("");
	c->master.ha_backend = xstrdup("");
	c->master.ha_snapshot_dir = xstrdup("");
	c->master.ha_snapshot_interval_s = 5;
	c->master.snapshot_dir = xstrdup("");
	c->master.snapshot_interval_s = 30;
	c->master.snapshot_keep = 2;
	c->master.ha_warmup_timeout_ms = 30000;
	c->master.rpc_port = 50051;
	c->master.http_metadata_port = 8080;
	c->master.metrics_port = 9003;
	c->master.extra_args = xcalloc(1, sizeof(char *));
	c->master.ready_timeout_ms = 120000;
	c->master.probe_interval_ms = 20;
	c->master.stop_timeout_ms = 10000;
	c->master.liveness_interval_ms = 1000;
	c->master.probe_on_output = 1;
	c->master.check_flags = 1;
	c->master.liveness_failures = 3;
	c->master.lock_probe_interval_ms = 1000;
	c->master.lock_probe_timeout_ms = 2000;
	c->master.stall_window_ms = 3000;
	c->master.stall_restart_ms = 5000;
	restart_defaults(&c->master.restart, 100, 30000, 60000, 5, 60000);
	c->master.url = xstrdup("");
	c->admin.listen = xstrdup("0.0.0.0:9103");
	c->admin.bearer_token_file = xstrdup("");
	c->admin.tls_cert_file = xstrdup("");
	c->admin.tls_key_file = xstrdup("");
	c->admin.tls_client_ca_file = xstrdup("");
	c->admin.control_socket = xstrdup("");
	{
		static const char *const pub[] = { "/livez", "/readyz", NULL };
		c->admin.public_routes = strv_dup((char *const *)pub);
	}
	c->admin.upstream_timeout_ms = 2000;
	c->admin.metrics_timeout_ms = 100;
	c->admin.max_connections = -1;	/* derived from the job's size (admin_limits) */
	c->admin.max_connections_per_ip = 64;
	c->admin.max_waiters = -1;
	c->admin.busy_poll_us = 100;
	c->endpoints.flavor = xstrdup("vllm");
	c->endpoints.store_config = json_object();
	c->workers.flavor = xstrdup("vllm");
	c->workers.dp_launch_mode = xstrdup("per_node");
	c->workers.wait_for_master = 1;
	c->workers.on_master_restart = xstrdup("keep");
	c->workers.gang = xstrdup("endpoint");
	c->workers.peer_timeout_ms = 5000;
	c->workers.drain_timeout_ms = 60000;
	c->workers.ports = (struct cfg_ports){ 6100, 32, 7200, 8400, 7500, 5200, 5400, 0 };
	restart_defaults(&c->workers.restart, 1000, 60000, 300000, 3, 600000);
	c->workers.stop_timeout_ms = 30000;
}

void
cfg_free(struct cfg *c)
{
	free(c->job.id);
	free(c->job.nodes_expr);
	strv_free(&c->job.nodes);
	free(c->job.node);
	free(c->job.run_dir);
	free(c->job.log_dir);
	free(c->job.network_interface);
	free(c->job.user);
	kvlist_clear(&c->job.sidecars);
	free(c->master.node);
	strv_freev(c->master.command);
	free(c->master.address);
	free(c->master.ha_backend);
	free(c->master.ha_snapshot_dir);
	free(c->master.snapshot_dir);
	strv_freev(c->master.extra_args);
	kvlist_clear(&c->master.env);
	free(c->master.url);
	free(c->admin.listen);
	free(c->admin.bearer_token_file);
	free(c->master.ca_file);
	kvlist_clear(&c->admin.basic_users);
	free(c->admin.tls_cert_file);
	free(c->admin.tls_key_file);
	free(c->admin.tls_client_ca_file);
	free(c->admin.control_socket);
	strv_freev(c->admin.public_routes);
	free(c->endpoints.flavor);
	json_decref(c->endpoints.store_config);
	kvlist_clear(&c->endpoints.env);
	free(c->workers.flavor);
	free(c->workers.dp_launch_mode);
	free(c->workers.on_master_restart);
	free(c->workers.gang);
	for (size_t i = 0; i < c->workers.ngroups; i++) {
		free(c->workers.groups[i].role);
		free(c->workers.groups[i].health.type);
		free(c->workers.groups[i].health.port);
		free(c->workers.groups[i].health.path);
		strv_freev(c->workers.groups[i].command);
		kvlist_clear(&c->workers.groups[i].env);
	}
	free(c->workers.groups);
	memset(c, 0, sizeof *c);
}
