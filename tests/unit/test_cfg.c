#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "cfg.h"
#include "kvlist.h"
#include "unit.h"

/* Each bad config and the exact error it must produce (the first error, and the count). */
static const struct {
	const char	*json;
	const char	*error;
} bad[] = {
#define PAR(flavor, size, flag) "{\"job\":{\"gpus_per_node\":8},\"workers\":{\"flavor\":\"" flavor \
	"\",\"groups\":[{\"gpus\":8," size ",\"command\":[\"serve\"," flag "]}]}}"
#define PARE(found, key, want) "workers.groups[0].command: " found ", but workers.groups[0]." key " is " \
	want " (the layout follows " key "; leave the flag out and the sidecar adds it)"
#define SC(k, v) "{\"endpoints\":{\"store_config\":{\"" k "\":" v "}}}"
#define SCE(k, v) "endpoints.store_config." k ": \"" v "\""
#define VLLM_FORMS " is not a size vLLM reads: a byte count (a JSON integer) or a string of digits " \
	"and '.' with an optional unit gb, mb, kb or b (any case, 1024-based), like \"4GB\", \"512 mb\" " \
	"or \"1.5gb\""
#define SGLANG_FORMS " is not a size SGLang reads: an integer byte count, or an integer followed by " \
	"gb (GiB), like \"4294967296\" or \"4gb\""
	{ "[]", "configuration: must be an object, got an array" },
	{ "{\"bogus\":1}", "bogus: unknown key" },
	{ "{\"job\":{\"nodes\":\"n[1-2]\",\"node\":\"n1\"},\"admin\":{\"tls\":{\"cert_file\":\"/c.pem\",\"key_file\":\"/k.pem\",\"client_ca_file\":\"/ca.pem\"}}}", "admin.tls.client_ca_file: the job's other sidecars present no client certificate (mutual TLS is for a sidecar alone on its job); use admin.auth between them" },
	{ "{\"admin\":{\"write_routes\":true}}", "admin.write_routes: the master's mutating routes (remove_all, drain jobs, tenant quotas) need admin.auth: a bearer_token_file or basic_auth_users" },
	{ "{\"admin\":{\"auth\":{\"basic_auth_users\":{\"prometheus\":\"secret\"}}}}", "admin.auth.basic_auth_users.prometheus: not a bcrypt hash ($2a$, $2b$ or $2y$, as htpasswd -B or mkpasswd -m bcrypt write it); plain-text passwords are not accepted" },
	{ "{\"admin\":{\"auth\":{\"basic_auth_users\":{\"a:b\":\"$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u\"}}}}", "admin.auth.basic_auth_users.a:b: not a user name (1 to 255 characters, no ':' or control character)" },
	{ "{\"admin\":{\"auth\":{\"basic_auth_users\":[]}}}", "admin.auth.basic_auth_users: must be an object of user names to bcrypt hashes, got an array" },
	{ "{\"admin\":{\"tls\":{\"cert_file\":\"/c.pem\"}}}", "admin.tls: cert_file and key_file go together (one is set, the other not)" },
	{ "{\"admin\":{\"tls\":{\"client_ca_file\":\"/ca.pem\"}}}", "admin.tls.client_ca_file: needs admin.tls.cert_file and key_file" },
	{ "{\"job\":{\"user\":\"-root\"}}", "job.user: \"-root\" is not a user name (up to 32 letters, digits, '.', '_' or '-', not starting with '-')" },
	{ "{\"job\":{\"user\":\"a b\"}}", "job.user: \"a b\" is not a user name (up to 32 letters, digits, '.', '_' or '-', not starting with '-')" },
	{ "{\"master\":{\"rpc_port\":70000}}", "master.rpc_port: must be 1..65535, got 70000" },
	{ "{\"master\":{\"http_metadata_port\":0},\"endpoints\":{\"store_config\":{\"metadata_server\":\"{metadata_url}\"}}}",
	  "endpoints.store_config.metadata_server: \"{metadata_url}\" is the master's HTTP metadata server, which master.http_metadata_port 0 turns off" },
	{ "{\"master\":{\"rpc_port\":0}}", "master.rpc_port: must be 1..65535, got 0" },
	{ "{\"master\":{\"rpc_port\":\"50051\"}}", "master.rpc_port: must be an integer, got a string" },
	{ "{\"master\":{\"metrics_port\":-1}}", "master.metrics_port: must be 1..65535, got -1" },
	{ "{\"master\":{\"http_metadata_port\":65536}}",
	  "master.http_metadata_port: must be 0..65535, got 65536" },
	{ "{\"master\":{\"command\":[]}}", "master.command: must not be empty" },
	{ "{\"master\":{\"command\":[\"\"]}}", "master.command[0]: must not be empty" },
	{ "{\"master\":{\"command\":\"mooncake_master\"}}",
	  "master.command: must be an array of strings, got a string" },
	{ "{\"master\":{\"command\":[\"m\",3]}}", "master.command[1]: must be a string, got an integer" },
	{ "{\"master\":{\"extra_args\":[true]}}", "master.extra_args[0]: must be a string, got a boolean" },
	{ "{\"master\":{\"enabled\":\"yes\"}}", "master.enabled: must be true or false, got a string" },
	{ "{\"master\":{\"ready_timeout_ms\":0}}", "master.ready_timeout_ms: must be 1..86400000, got 0" },
	{ "{\"master\":{\"probe_interval_ms\":1.5}}",
	  "master.probe_interval_ms: must be an integer, got a number with a fraction" },
	{ "{\"master\":{\"stop_timeout_ms\":null}}", "master.stop_timeout_ms: must be an integer, got null" },
	{ "{\"master\":{\"restart\":{\"policy\":\"sometimes\"}}}",
	  "master.restart.policy: must be one of always, on-failure, never, got \"sometimes\"" },
	{ "{\"master\":{\"restart\":{\"burst\":0}}}", "master.restart.burst: must be 1..65536, got 0" },
	{ "{\"master\":{\"restart\":{\"backoff_initial_ms\":500,\"backoff_max_ms\":100}}}",
	  "master.restart.backoff_max_ms: must be >= backoff_initial_ms (500), got 100" },
	{ "{\"master\":{\"restart\":{\"jitter\":1}}}", "master.restart.jitter: unknown key" },
	{ "{\"master\":{\"restart\":[]}}", "master.restart: must be an object, got an array" },
	{ "{\"master\":{\"env\":{\"1X\":\"a\"}}}", "master.env.1X: not a valid environment variable name" },
	{ "{\"master\":{\"env\":{\"X\":[1]}}}", "master.env.X: must be a string, got an array" },
	{ "{\"master\":{\"env\":[]}}", "master.env: must be an object of strings, got an array" },
	{ "{\"master\":{\"url\":\"head:9103\"}}", "master.url: must start with http:// or https://, got \"head:9103\"" },
	{ "{\"master\":{\"node\":\"n9\"},\"job\":{\"nodes\":\"n[1-2]\"}}",
	  "master.node: \"n9\" is not in job.nodes" },
	{ "{\"master\":{\"rpc_port\":9003}}", "master.metrics_port: port 9003 is also used by master.rpc_port" },
	{ "{\"master\":{\"http_metadata_port\":50051}}",
	  "master.http_metadata_port: port 50051 is also used by master.rpc_port" },
	{ "{\"admin\":{\"listen\":\"0.0.0.0:9003\"}}",
	  "admin.listen: port 9003 is also used by master.metrics_port" },
	{ "{\"admin\":{\"listen\":\"localhost:9103\"}}",
	  "admin.listen: must be ADDRESS:PORT with a numeric IPv4 or [IPv6] address and a port 0..65535 (0: any free port), "
	  "got \"localhost:9103\"" },
	{ "{\"admin\":{\"listen\":\"127.0.0.1:65536\"}}",
	  "admin.listen: must be ADDRESS:PORT with a numeric IPv4 or [IPv6] address and a port 0..65535 (0: any free "
	  "port), got \"127.0.0.1:65536\"" },
	{ "{\"admin\":{\"listen\":\"::1:9103\"}}",
	  "admin.listen: must be ADDRESS:PORT with a numeric IPv4 or [IPv6] address and a port 0..65535 (0: any free port), "
	  "got \"::1:9103\"" },
	{ "{\"admin\":{\"max_connections\":0}}", "admin.max_connections: must be 1..65536, got 0" },
	{ "{\"admin\":{\"busy_poll_us\":10001}}", "admin.busy_poll_us: must be 0..10000, got 10001" },
	{ "{\"admin\":{\"upstream_timeout_ms\":600001}}",
	  "admin.upstream_timeout_ms: must be 1..600000, got 600001" },
	{ "{\"job\":{\"id\":\"\"}}", "job.id: must not be empty" },
	{ "{\"job\":{\"id\":\"${MCS_TEST_UNSET}\"}}",
	  "job.id: environment variable MCS_TEST_UNSET is not set (use ${MCS_TEST_UNSET:-default})" },
	{ "{\"job\":{\"id\":\"${MCS_TEST_UNSET\"}}", "job.id: unterminated \"${\" in \"${MCS_TEST_UNSET\"" },
	{ "{\"job\":{\"id\":\"${1BAD}\"}}", "job.id: bad variable name \"1BAD\" in \"${1BAD}\"" },
	{ "{\"job\":{\"run_dir\":\"relative/dir\"}}",
	  "job.run_dir: must be an absolute path, got \"relative/dir\"" },
	{ "{\"job\":{\"nodes\":\"gpu-[01-04\"}}", "job.nodes: unmatched '[' in \"gpu-[01-04\"" },
	{ "{\"job\":{\"nodes\":\"n[3-1]\"}}", "job.nodes: range \"3-1\" runs backwards in \"n[3-1]\"" },
	{ "{\"job\":{\"gpus_per_node\":2000}}", "job.gpus_per_node: must be 0..1024, got 2000" },
	{ "{\"endpoints\":{\"flavor\":\"trtllm\"}}",
	  "endpoints.flavor: must be one of vllm, sglang, got \"trtllm\"" },
	/* sizes by vLLM's rules (MooncakeStoreConfig) for the store config, SGLang's for its env */
	{ SC("global_segment_size", "\"4GBB\""), SCE("global_segment_size", "4GBB") VLLM_FORMS },
	{ SC("global_segment_size", "\"1.5g\""), SCE("global_segment_size", "1.5g") VLLM_FORMS },
	{ SC("global_segment_size", "\"4g\""), SCE("global_segment_size", "4g") VLLM_FORMS },
	{ SC("global_segment_size", "\"512m\""), SCE("global_segment_size", "512m") VLLM_FORMS },
	{ SC("global_segment_size", "\"1TB\""), SCE("global_segment_size", "1TB") VLLM_FORMS },
	{ SC("global_segment_size", "\"1e9\""), SCE("global_segment_size", "1e9") VLLM_FORMS },
	{ SC("global_segment_size", "\"+5\""), SCE("global_segment_size", "+5") VLLM_FORMS },
	{ SC("local_buffer_size", "\"-1GB\""), SCE("local_buffer_size", "-1GB") VLLM_FORMS },
	{ SC("local_buffer_size", "1.5"), "endpoints.store_config.local_buffer_size: vLLM reads a byte "
	  "count (a non-negative JSON integer) or a size string like \"4GB\", got a number with a fraction" },
	{ SC("local_buffer_size", "0"), "endpoints.store_config.local_buffer_size: vLLM requires it above 0" },
	{ SC("global_segment_size", "0"), "endpoints.store_config.global_segment_size: vLLM requires it "
	  "above 0 in mode \"embedded\" (each worker lends that much memory to the store); for workers "
	  "that lend none, set \"mode\": \"standalone-store\"" },
	{ "{\"endpoints\":{\"store_config\":{\"mode\":\"standalone-store\",\"global_segment_size\":\"4GB\"}}}",
	  "endpoints.store_config.global_segment_size: vLLM requires 0 in mode \"standalone-store\"" },
	{ "{\"endpoints\":{\"store_config\":{\"mode\":\"standalone-store\"}}}",
	  "endpoints.store_config.global_segment_size: vLLM requires 0 in mode \"standalone-store\" "
	  "(absent, it defaults to 128 MiB)" },
	{ "{\"endpoints\":{\"store_config\":{\"mode\":\"remote\"}}}", "endpoints.store_config.mode: "
	  "vLLM knows \"embedded\" (the default) and \"standalone-store\", got \"remote\"" },
	{ "{\"endpoints\":{\"flavor\":\"sglang\",\"env\":{\"MOONCAKE_GLOBAL_SEGMENT_SIZE\":\"1.5GB\"}}}",
	  "endpoints.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: \"1.5GB\"" SGLANG_FORMS },
	{ "{\"endpoints\":{\"flavor\":\"sglang\",\"env\":{\"MOONCAKE_GLOBAL_SEGMENT_SIZE\":\"4096MB\"}}}",
	  "endpoints.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: \"4096MB\"" SGLANG_FORMS },
	/* a command's own tensor/pipeline parallel size, in each spelling, against the group's */
	{ PAR("vllm", "\"tp\":4", "\"-tp\",\"8\""), PARE("-tp 8", "tp", "4") },
	{ PAR("vllm", "\"tp\":4", "\"--tensor-parallel-size=8\""), PARE("--tensor-parallel-size 8", "tp", "4") },
	{ PAR("vllm", "\"tp\":4", "\"--tensor_parallel_size\",\"2\""), PARE("--tensor_parallel_size 2", "tp", "4") },
	{ PAR("vllm", "\"pp\":1", "\"--pipeline-parallel-size\",\"2\""), PARE("--pipeline-parallel-size 2", "pp", "1") },
	{ PAR("vllm", "\"pp\":2", "\"-pp=4\""), PARE("-pp 4", "pp", "2") },
	{ PAR("sglang", "\"tp\":4", "\"--tp\",\"8\""), PARE("--tp 8", "tp", "4") },
	{ PAR("sglang", "\"tp\":8", "\"--tp-size=4\""), PARE("--tp-size 4", "tp", "8") },
	{ PAR("sglang", "\"tp\":8", "\"--tensor-parallel-size\",\"4\""), PARE("--tensor-parallel-size 4", "tp", "8") },
	{ PAR("sglang", "\"pp\":2", "\"--pp-size\",\"1\""), PARE("--pp-size 1", "pp", "2") },
	{ PAR("vllm", "\"tp\":4", "\"-tp\",\"{tp}\""), "workers.groups[0].command: -tp must be followed by "
	  "a number (the sidecar adds it from workers.groups[0].tp when the command leaves it out)" },
	{ "{\"master\":{\"extra_args\":[\"--enable_ha=true\"]}}", "master.extra_args: --enable_ha needs the "
	  "HA backend's connection string: --ha_backend_connstring=..., or for the etcd backend "
	  "--etcd_endpoints=h1:2379;h2:2379 (mooncake_master aborts without one)" },
	/* HA on Redis: master.ha, and what 0.3.12 needs to serve (hacfg.c) */
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],\"ha\":{\"backend\":\"etcd://h:2379\",\"snapshot_dir\":\"/s\"}}}",
	  "master.ha.snapshot_dir: not used with etcd, whose OpLog replicates the leader's metadata to the standbys; leave it out" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],\"ha\":{\"backend\":\"etcd://h:2379,\"}}}",
	  "master.ha.backend: \"etcd://h:2379,\" is not etcd://HOST:PORT[,HOST:PORT...]" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],\"ha\":{\"backend\":\"etcd://h\"}}}",
	  "master.ha.backend: \"etcd://h\" is not etcd://HOST:PORT[,HOST:PORT...]" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\",\"--enable_oplog\"],\"ha\":{\"backend\":\"etcd://h:1\"}}}",
	  "master.extra_args: --enable_oplog is set by master.ha; leave it out" },
	{ "{\"master\":{\"ha\":{\"backend\":\"redis://r:1/0\",\"snapshot_dir\":\"/s\"}}}", "master.ha.backend: \"redis://r:1/0\" is "
	  "neither redis://HOST:PORT nor etcd://HOST:PORT[,HOST:PORT...]" },
	{ "{\"master\":{\"ha\":{\"backend\":\"redis://r:1\"}}}", "master.ha.snapshot_dir: \"\" is not an absolute path: every "
	  "master of the HA group must share one (a shared filesystem across machines); a standby is promoted from it" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\",\"--enable_snapshot\"],\"ha\":{\"backend\":\"redis://127.0.0.1:6379\",\"snapshot_dir\":\"/s\"}}}",
	  "master.extra_args: --enable_snapshot is set by master.ha; leave it out" },
	{ "{\"master\":{\"env\":{\"MOONCAKE_SNAPSHOT_LOCAL_PATH\":\"/t\"},\"ha\":{\"backend\":\"redis://127.0.0.1:6379\",\"snapshot_dir\":\"/s\"}}}",
	  "master.env: MOONCAKE_SNAPSHOT_LOCAL_PATH is set by master.ha.snapshot_dir; leave it out" },
	{ "{\"master\":{\"ha\":{\"backend\":\"redis://127.0.0.1:6379\",\"snapshot_dir\":\"/s\"}}}", "master.extra_args: an HA master registers --rpc_address:--rpc_port as the leader's address, where "
	  "clients and the other sidecars reach it; the default 0.0.0.0 is no such address: give --rpc_address=<this node's address>" },
	{ "{\"master\":{\"ha\":{\"snapshot_dir\":\"/s\"}}}", "master.ha.snapshot_dir: set without master.ha.backend" },
	/* master.snapshot: warm restart without HA */
	{ "{\"master\":{\"snapshot\":{\"enabled\":true,\"dir\":\"rel\"}}}", "master.snapshot.dir: \"rel\" is not an absolute path" },
	{ "{\"master\":{\"extra_args\":[\"--snapshot_retention_count=3\"],\"snapshot\":{\"enabled\":true}}}",
	  "master.extra_args: --snapshot_retention_count is set by master.snapshot; leave it out" },
	{ "{\"master\":{\"extra_args\":[\"--default_kv_lease_ttl=1h\"],\"snapshot\":{\"enabled\":true,\"kv_lease_ttl_ms\":5}}}",
	  "master.extra_args: --default_kv_lease_ttl is set by master.snapshot.kv_lease_ttl_ms; leave one out" },
	{ "{\"master\":{\"env\":{\"MOONCAKE_SNAPSHOT_LOCAL_PATH\":\"/t\"},\"snapshot\":{\"enabled\":true}}}",
	  "master.env: MOONCAKE_SNAPSHOT_LOCAL_PATH is set by master.snapshot.dir; leave it out" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],\"snapshot\":{\"enabled\":true},\"ha\":{\"backend\":\"redis://r:1\",\"snapshot_dir\":\"/s\"}}}",
	  "master.snapshot: an HA master takes its snapshots with master.ha; leave master.snapshot out" },
	{ "{\"master\":{\"snapshot\":{\"keep\":0}}}", "master.snapshot.keep: must be 1..100, got 0" },
	{ "{\"master\":{\"ha\":{\"warmup\":1}}}", "master.ha.warmup: unknown key" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\",\"--enable_ha\",\"--ha_backend_type=redis\",\"--ha_backend_connstring=redis://r:1\"]}}",
	  "master.extra_args: --ha_backend_type=redis needs --enable_snapshot_restore=true: without it 0.3.12 promotes no standby, so its "
	  "leader never serves (\"Failed to promote standby for serve: UNAVAILABLE_IN_CURRENT_STATUS\"); master.ha sets what it needs" },
	{ "{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\",\"--enable_ha\",\"--ha_backend_type=redis\",\"--ha_backend_connstring=redis://r:1\","
	  "\"--enable_snapshot_restore\",\"--enable_snapshot\",\"--snapshot_object_store_type=local\"]}}",
	  "master.env: --snapshot_object_store_type=local needs MOONCAKE_SNAPSHOT_LOCAL_PATH, the directory every master of the HA group shares" },
	{ "{\"endpoints\":{\"store_config\":\"x\"}}", "endpoints.store_config: must be an object, got a string" },
	{ "{\"workers\":{\"flavor\":\"tgi\"}}", "workers.flavor: must be one of vllm, sglang, generic, got \"tgi\"" },
	{ "{\"workers\":{\"dp_launch_mode\":\"per_rack\"}}",
	  "workers.dp_launch_mode: must be one of per_node, per_gpu, got \"per_rack\"" },
	{ "{\"workers\":{\"on_master_restart\":\"reboot\"}}",
	  "workers.on_master_restart: must be one of keep, restart, got \"reboot\"" },
	{ "{\"workers\":{\"ports\":{\"http_base\":0}}}", "workers.ports.http_base: must be 1..65535, got 0" },
	{ "{\"workers\":{\"groups\":{}}}", "workers.groups: must be an array of objects, got an object" },
	{ "{\"workers\":{\"groups\":[{\"role\":\"prefill\"}]}}", "workers.groups[0].command: is required" },
	{ "{\"workers\":{\"groups\":[{\"role\":\"router\",\"command\":[\"x\"]}]}}",
	  "workers.groups[0].role: must be one of prefill, decode, agg, got \"router\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"gpus\":0}]}}",
	  "workers.groups[0].gpus: must be 1..65536, got 0" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"extra\":0}]}}",
	  "workers.groups[0].extra: unknown key" },
	{ "{\"workers\":{\"groups\":[7]}}", "workers.groups[0]: must be an object, got an integer" },
	{ "{\"job\":{\"nodes\":\"n[1-2]\",\"sidecars\":{\"n3\":\"http://h:1\"}}}", "job.sidecars.n3: not a node of job.nodes" },
	{ "{\"job\":{\"nodes\":\"n[1-2]\",\"sidecars\":{\"n2\":\"ftp://h\"}}}", "job.sidecars.n2: must start with http:// or https://, got \"ftp://h\"" },
	{ "{\"job\":{\"sidecars\":[]}}", "job.sidecars: must be an object of node names to admin URLs, got an array" },
	{ "{\"workers\":{\"gang\":\"node\"}}", "workers.gang: must be one of endpoint, process, got \"node\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"type\":\"grpc\"}}]}}",
	  "workers.groups[0].health.type: must be one of auto, http, tcp, none, got \"grpc\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"port\":\"nixl\"}}]}}",
	  "workers.groups[0].health.port: must be one of http, sys, got \"nixl\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"path\":\"health\"}}]}}",
	  "workers.groups[0].health.path: must be an absolute path without blanks (for example \"/health\"), got \"health\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"path\":\"/a b\"}}]}}",
	  "workers.groups[0].health.path: must be an absolute path without blanks (for example \"/health\"), got \"/a b\"" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"failures\":0}}]}}",
	  "workers.groups[0].health.failures: must be 1..1000, got 0" },
	{ "{\"workers\":{\"groups\":[{\"command\":[\"x\"],\"health\":{\"interval\":5}}]}}",
	  "workers.groups[0].health.interval: unknown key" },
};

START_TEST(test_bad_config)
{
	struct cfg c;
	struct strv errs = { 0 };
	int rc;
	unsetenv("MCS_TEST_UNSET");
	rc = cfg_load_string(bad[_i].json, NULL, &c, &errs);
	ck_assert_int_eq(rc, -1);
	ck_assert_uint_ge(errs.n, 1);
	ck_assert_str_eq(errs.v[0], bad[_i].error);
	strv_free(&errs);
	cfg_free(&c);
}
END_TEST

START_TEST(test_every_error_reported)
{
	struct cfg c;
	struct strv errs = { 0 };
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"rpc_port\":0,\"metrics_port\":70000,"
	    "\"bogus\":1},\"admin\":{\"max_connections\":0}}", NULL, &c, &errs), -1);
	ck_assert_uint_eq(errs.n, 4);
	ck_assert_str_eq(errs.v[0], "master.rpc_port: must be 1..65535, got 0");
	ck_assert_str_eq(errs.v[1], "master.metrics_port: must be 1..65535, got 70000");
	ck_assert_str_eq(errs.v[2], "master.bogus: unknown key");
	ck_assert_str_eq(errs.v[3], "admin.max_connections: must be 1..65536, got 0");
	strv_free(&errs);
	cfg_free(&c);
}
END_TEST

START_TEST(test_syntax_error)
{
	struct cfg c;
	struct strv errs = { 0 };
	ck_assert_int_eq(cfg_load_string("{\"job\": {,}}", NULL, &c, &errs), -1);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.v[0], "<string>:1:"));
	strv_free(&errs);
	cfg_free(&c);
	ck_assert_int_eq(cfg_load_string("{\"job\":{},\"job\":{}}", NULL, &c, &errs), -1);
	ck_assert_ptr_nonnull(strstr(errs.v[0], "duplicate object key"));
	strv_free(&errs);
	cfg_free(&c);
}
END_TEST

START_TEST(test_defaults)
{
	struct cfg c;
	struct strv errs = { 0 };
	setenv("SLURMD_NODENAME", "localhost", 1);
	ck_assert_int_eq(cfg_load_string("{}", NULL, &c, &errs), 0);
	ck_assert_str_eq(c.master.command[0], "mooncake_master");
	ck_assert_int_eq(c.master.rpc_port, 50051);
	ck_assert_int_eq(c.master.http_metadata_port, 8080);
	ck_assert_int_eq(c.master.metrics_port, 9003);
	ck_assert_int_eq(c.master.probe_interval_ms, 20);
	ck_assert_int_eq(c.master.restart.policy, RESTART_ON_FAILURE);
	ck_assert_int_eq(c.master.restart.burst, 5);
	ck_assert_int_eq(c.admin.port, 9103);
	ck_assert_str_eq(c.admin.host, "0.0.0.0");
	ck_assert_str_eq(c.master.node, "localhost");
	ck_assert_int_eq(c.master.runs_here, 1);
	ck_assert_int_eq(c.workers.ports.http_base, 6100);
	ck_assert_int_eq(c.workers.restart.burst, 3);
	unsetenv("SLURMD_NODENAME");
	cfg_free(&c);
}
END_TEST

/* A group's health check by default: GET /health for vLLM and SGLang (their API servers answer it
 * once the model is loaded), none for a generic command. */
/* master.ha: five lines give the flags 0.3.12 needs to serve on Redis, the snapshot directory, and
 * the entry clients connect through; a connection string that has its scheme is not given it twice. */
START_TEST(test_ha_resolved)
{
	static const char *const want[] = { "--rpc_address=10.0.0.1", "--enable_ha=true", "--ha_backend_type=redis",
		"--ha_backend_connstring=redis://127.0.0.1:6379", "--enable_snapshot=true", "--snapshot_interval_seconds=5",
		"--enable_snapshot_restore=true", "--snapshot_object_store_type=local", NULL };
	struct cfg c;
	struct strv errs = { 0 };
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],"
	    "\"ha\":{\"backend\":\"redis://127.0.0.1:6379\",\"snapshot_dir\":\"/srv/ha\"}}}", NULL, &c, &errs), 0);
	for (int i = 0; want[i] != NULL; i++)
		ck_assert_str_eq(c.master.extra_args[i], want[i]);
	ck_assert_ptr_null(c.master.extra_args[8]);
	ck_assert_str_eq(kvlist_get(&c.master.env, "MOONCAKE_SNAPSHOT_LOCAL_PATH"), "/srv/ha");
	ck_assert_str_eq(c.master.ha_entry, "redis://127.0.0.1:6379");
	ck_assert_int_eq(c.master.ha_warmup_timeout_ms, 30000);
	cfg_free(&c);
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\",\"--enable_ha\","
	    "\"--ha_backend_type=redis\",\"--ha_backend_connstring=r:1\",\"--enable_snapshot_restore\",\"--enable_snapshot\","
	    "\"--snapshot_object_store_type=local\"],\"env\":{\"MOONCAKE_SNAPSHOT_LOCAL_PATH\":\"/s\"},"
	    "\"ha\":{\"warmup_timeout_ms\":0}}}", NULL, &c, &errs), 0);
	ck_assert_str_eq(c.master.ha_entry, "redis://r:1");
	ck_assert_int_eq(c.master.ha_warmup_timeout_ms, 0);
	cfg_free(&c);
	/* etcd: its OpLog, no snapshot directory; the endpoints as --etcd_endpoints and the entry take them */
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"extra_args\":[\"--rpc_address=10.0.0.1\"],"
	    "\"ha\":{\"backend\":\"etcd://127.0.0.1:2379,[::1]:2379\"}}}", NULL, &c, &errs), 0);
	{
		static const char *const etcd[] = { "--rpc_address=10.0.0.1", "--enable_ha=true", "--ha_backend_type=etcd",
			"--etcd_endpoints=127.0.0.1:2379;[::1]:2379", "--enable_oplog=true", NULL };
		for (int i = 0; etcd[i] != NULL; i++)
			ck_assert_str_eq(c.master.extra_args[i], etcd[i]);
		ck_assert_ptr_null(c.master.extra_args[5]);
	}
	ck_assert_ptr_null(kvlist_get(&c.master.env, "MOONCAKE_SNAPSHOT_LOCAL_PATH"));
	ck_assert_str_eq(c.master.ha_entry, "etcd://127.0.0.1:2379;[::1]:2379");
	cfg_free(&c);
	ck_assert_int_eq(cfg_load_string("{}", NULL, &c, &errs), 0);
	ck_assert_str_eq(c.master.ha_entry, "");
	cfg_free(&c);
	strv_free(&errs);
}
END_TEST

/* master.snapshot: the flags of a warm restart, the directory outliving the sidecar by default */
START_TEST(test_snapshot_resolved)
{
	static const char *const want[] = { "--enable_snapshot=true", "--snapshot_interval_seconds=30",
		"--snapshot_object_store_type=local", "--enable_snapshot_restore=true", "--snapshot_retention_count=2", NULL };
	struct cfg c;
	struct strv errs = { 0 };
	unsetenv("STATE_DIRECTORY");
	ck_assert_int_eq(cfg_load_string("{\"job\":{\"run_dir\":\"/run/x\"},\"master\":{\"snapshot\":{\"enabled\":true}}}",
	    NULL, &c, &errs), 0);
	for (int i = 0; want[i] != NULL; i++)
		ck_assert_str_eq(c.master.extra_args[i], want[i]);
	ck_assert_ptr_null(c.master.extra_args[5]);
	ck_assert_str_eq(c.master.snapshot_dir, "/run/x/snapshots");
	ck_assert_str_eq(kvlist_get(&c.master.env, "MOONCAKE_SNAPSHOT_LOCAL_PATH"), "/run/x/snapshots");
	cfg_free(&c);
	setenv("STATE_DIRECTORY", "/var/lib/mooncake-sidecar", 1);
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"snapshot\":{\"enabled\":true,\"interval_s\":5,\"keep\":3,"
	    "\"kv_lease_ttl_ms\":3600000}}}", NULL, &c, &errs), 0);
	ck_assert_str_eq(c.master.snapshot_dir, "/var/lib/mooncake-sidecar/snapshots");
	ck_assert_str_eq(c.master.extra_args[1], "--snapshot_interval_seconds=5");
	ck_assert_str_eq(c.master.extra_args[4], "--snapshot_retention_count=3");
	ck_assert_str_eq(c.master.extra_args[5], "--default_kv_lease_ttl=3600000");
	cfg_free(&c);
	unsetenv("STATE_DIRECTORY");
	ck_assert_int_eq(cfg_load_string("{}", NULL, &c, &errs), 0);
	ck_assert_ptr_null(c.master.extra_args[0]);
	ck_assert_ptr_null(kvlist_get(&c.master.env, "MOONCAKE_SNAPSHOT_LOCAL_PATH"));
	cfg_free(&c);
	strv_free(&errs);
}
END_TEST

START_TEST(test_health_defaults)
{
	static const char *const flavor[] = { "vllm", "sglang", "generic" };
	static const char *const want[] = { "http", "http", "none" };
	struct cfg c;
	struct strv errs = { 0 };
	char json[256];
	setenv("SLURMD_NODENAME", "localhost", 1);
	for (int i = 0; i < 3; i++) {
		snprintf(json, sizeof json, "{\"workers\":{\"flavor\":\"%s\",\"groups\":[{\"command\":[\"x\"]}]}}",
		    flavor[i]);
		ck_assert_msg(cfg_load_string(json, NULL, &c, &errs) == 0, "%s: %s", flavor[i], errs.n ? errs.v[0] : "");
		ck_assert_str_eq(c.workers.groups[0].health.type, want[i]);
		ck_assert_str_eq(c.workers.groups[0].health.path, "/health");
		ck_assert_str_eq(c.workers.groups[0].health.port, "http");
		ck_assert_int_eq(c.workers.groups[0].health.ready_timeout_ms, 1800000);
		ck_assert_int_eq(c.workers.groups[0].health.failures, 3);
		cfg_free(&c);
	}
	ck_assert_int_eq(cfg_load_string("{\"workers\":{\"flavor\":\"generic\",\"groups\":[{\"command\":[\"x\"],"
	    "\"health\":{\"type\":\"tcp\",\"port\":\"sys\"}}]}}", NULL, &c, &errs), 0);
	ck_assert_str_eq(c.workers.groups[0].health.type, "tcp");
	ck_assert_str_eq(c.workers.groups[0].health.port, "sys");
	cfg_free(&c);
	unsetenv("SLURMD_NODENAME");
}
END_TEST

START_TEST(test_expand)
{
	char err[256], *s;
	setenv("MCS_A", "alpha", 1);
	setenv("MCS_EMPTY", "", 1);
	unsetenv("MCS_NONE");
	s = cfg_expand("x-${MCS_A}-${MCS_NONE:-dflt}-${MCS_EMPTY:-e}-${MCS_A:-z}", err, sizeof err);
	ck_assert_str_eq(s, "x-alpha-dflt-e-alpha");
	free(s);
	s = cfg_expand("{http_port} $HOME ${MCS_A}", err, sizeof err);
	ck_assert_str_eq(s, "{http_port} $HOME alpha");
	free(s);
	s = cfg_expand("${MCS_NONE:-}", err, sizeof err);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(test_overrides_and_nodes)
{
	struct cfg c;
	struct strv errs = { 0 };
	struct cfg_overrides ov = { "[::1]:9200", "n2" };
	ck_assert_int_eq(cfg_load_string("{\"job\":{\"nodes\":\"n[1-3]\",\"gpus_per_node\":4}}", &ov, &c,
	    &errs), 0);
	ck_assert_int_eq(c.admin.family, AF_INET6);
	ck_assert_str_eq(c.admin.host, "::1");
	ck_assert_int_eq(c.admin.port, 9200);
	ck_assert_uint_eq(c.job.nodes.n, 3);
	ck_assert_str_eq(c.job.node, "n2");
	ck_assert_str_eq(c.master.node, "n1");
	ck_assert_int_eq(c.master.runs_here, 0);
	cfg_free(&c);
	ov.node = "n1";
	ck_assert_int_eq(cfg_load_string("{\"job\":{\"nodes\":\"n[1-3]\"}}", &ov, &c, &errs), 0);
	ck_assert_int_eq(c.master.runs_here, 1);
	cfg_free(&c);
}
END_TEST

/* What the readers accept passes: standalone-store with 0, sizes in each accepted form. */
START_TEST(test_sizes_accepted)
{
	static const char *const good[] = {
		"{\"endpoints\":{\"store_config\":{\"mode\":\"standalone-store\",\"global_segment_size\":0}}}",
		"{\"endpoints\":{\"store_config\":{\"mode\":\"standalone-store\",\"global_segment_size\":\"0\"}}}",
		"{\"endpoints\":{\"store_config\":{\"global_segment_size\":\"1.5gb\",\"local_buffer_size\":\"512 MB\"}}}",
		"{\"endpoints\":{\"store_config\":{\"global_segment_size\":4294967296,\"mode\":\"embedded\"}}}",
		"{\"endpoints\":{\"flavor\":\"sglang\",\"env\":{\"MOONCAKE_GLOBAL_SEGMENT_SIZE\":\"16gb\"}}}",
		"{\"endpoints\":{\"flavor\":\"sglang\",\"env\":{\"MOONCAKE_GLOBAL_SEGMENT_SIZE\":\"4294967296\"}}}",
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		struct cfg c;
		struct strv errs = { 0 };
		ck_assert_msg(cfg_load_string(good[i], NULL, &c, &errs) == 0, "%s: %s", good[i],
		    errs.n ? errs.v[0] : "");
		strv_free(&errs);
		cfg_free(&c);
	}
}
END_TEST

/* srtctl's check that the workers use the store (_validate_mooncake_kv_store), as a warning. */
START_TEST(test_store_used)
{
	static const struct { const char *flavor, *command; int warns; } cases[] = {
		{ "vllm", "[\"vllm\",\"serve\",\"/m\"]", 1 },
		{ "vllm", "[\"vllm\",\"serve\",\"--kv-transfer-config\",\"{\\\"kv_connector\\\":\\\"NixlConnector\\\"}\"]", 1 },
		{ "vllm", "[\"vllm\",\"serve\",\"--kv-transfer-config\",\"{\\\"kv_connector\\\":\\\"MooncakeStoreConnector\\\"}\"]", 0 },
		{ "vllm", "[\"vllm\",\"serve\",\"--kv_transfer_config={\\\"kv_connector\\\":\\\"mooncakestoreconnector\\\"}\"]", 0 },
		{ "sglang", "[\"s\",\"--disaggregation-transfer-backend\",\"mooncake\"]", 1 },
		{ "sglang", "[\"s\",\"--enable-hierarchical-cache\",\"--hicache-storage-backend\",\"mooncake\"]", 0 },
		{ "sglang", "[\"s\",\"--hicache-storage-backend=mooncake\"]", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cfg c;
		struct strv errs = { 0 }, warns = { 0 };
		char *json = xasprintf("{\"job\":{\"gpus_per_node\":1},\"endpoints\":{\"flavor\":\"%s\"},"
		    "\"workers\":{\"flavor\":\"%s\",\"groups\":[{\"command\":%s}]}}", cases[i].flavor,
		    cases[i].flavor, cases[i].command);
		ck_assert_msg(cfg_load_string(json, NULL, &c, &errs) == 0, "%s: %s", json, errs.n ? errs.v[0] : "");
		cfg_warnings(&c, &warns);
		ck_assert_msg(warns.n == (size_t)cases[i].warns, "%s: %zu warnings", json, warns.n);
		if (warns.n)
			ck_assert_ptr_nonnull(strstr(warns.v[0], strcmp(cases[i].flavor, "vllm") == 0 ?
			    "MooncakeStoreConnector (or MultiConnector wrapping one)" : "--hicache-storage-backend mooncake"));
		strv_free(&errs);
		strv_free(&warns);
		cfg_free(&c);
		free(json);
	}
}
END_TEST

START_TEST(test_store_config_verbatim)
{
	struct cfg c;
	struct strv errs = { 0 };
	char *dump;
	setenv("MCS_DEV", "mlx5_0", 1);
	ck_assert_int_eq(cfg_load_string("{\"endpoints\":{\"store_config\":{\"protocol\":\"rdma\","
	    "\"global_segment_size\":\"100GB\",\"another_new_field\":42,\"device_name\":\"${MCS_DEV}\","
	    "\"local_buffer_size\":1073741824,\"nested\":{\"b\":[1,\"x\"]}}}}", NULL, &c, &errs), 0);
	dump = json_dumps(c.endpoints.store_config, JSON_PRESERVE_ORDER | JSON_COMPACT);
	ck_assert_str_eq(dump, "{\"protocol\":\"rdma\",\"global_segment_size\":\"100GB\","
	    "\"another_new_field\":42,\"device_name\":\"mlx5_0\",\"local_buffer_size\":1073741824,"
	    "\"nested\":{\"b\":[1,\"x\"]}}");
	free(dump);
	cfg_free(&c);
}
END_TEST

START_TEST(test_gpus_per_node_from_env)
{
	struct cfg c;
	struct strv errs = { 0 };
	const char *g = "{\"job\":{\"gpus_per_node\":0},\"workers\":{\"groups\":[{\"command\":[\"x\"]}]}}";
	unsetenv("SLURM_GPUS_ON_NODE");
	setenv("CUDA_VISIBLE_DEVICES", "0,1,2", 1);
	ck_assert_int_eq(cfg_load_string(g, NULL, &c, &errs), 0);
	ck_assert_int_eq(c.job.gpus_per_node, 3);
	cfg_free(&c);
	setenv("SLURM_GPUS_ON_NODE", "8", 1);
	ck_assert_int_eq(cfg_load_string(g, NULL, &c, &errs), 0);
	ck_assert_int_eq(c.job.gpus_per_node, 8);
	cfg_free(&c);
	unsetenv("SLURM_GPUS_ON_NODE");
	unsetenv("CUDA_VISIBLE_DEVICES");
	ck_assert_int_eq(cfg_load_string(g, NULL, &c, &errs), -1);
	ck_assert_str_eq(errs.v[0], "job.gpus_per_node: 0 means SLURM_GPUS_ON_NODE or "
	    "CUDA_VISIBLE_DEVICES, and neither is set");
	strv_free(&errs);
	cfg_free(&c);
}
END_TEST

/* What the kernel refuses at an exec is refused before it: one string over MAX_ARG_STRLEN (with its
 * NUL), or the whole over ARG_MAX with what every child inherits; each named by its key. */
START_TEST(test_exec_sizes)
{
	struct cfg c;
	struct strv errs = { 0 };
	size_t big = CFG_ARG_STRLEN_MAX;
	char *v = malloc(big + 1), *json = malloc(big + 256);
	memset(v, 'x', big);
	v[big] = '\0';
	snprintf(json, big + 256, "{\"master\":{\"env\":{\"K\":\"%s\"}}}", v + 3);	/* "K=", value, NUL: the limit */
	ck_assert_int_eq(cfg_load_string(json, NULL, &c, &errs), 0);
	cfg_check_exec(&c, 0, 0, &errs);
	ck_assert_uint_eq(errs.n, 0);
	cfg_free(&c);
	snprintf(json, big + 256, "{\"master\":{\"env\":{\"K\":\"%s\"}}}", v + 2);	/* one byte over */
	ck_assert_int_eq(cfg_load_string(json, NULL, &c, &errs), 0);
	cfg_check_exec(&c, 0, 0, &errs);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.v[0], "master.env.K: 131072 bytes; the kernel refuses to start a program with an "
	    "argument or an environment string over 131071 bytes (MAX_ARG_STRLEN), so every start would fail (E2BIG)");
	strv_free(&errs);
	cfg_free(&c);
	snprintf(json, big + 256, "{\"job\":{\"gpus_per_node\":1},\"workers\":{\"groups\":[{\"command\":[\"serve\",\"%s\"]}]}}", v);
	ck_assert_int_eq(cfg_load_string(json, NULL, &c, &errs), 0);
	cfg_check_exec(&c, 0, 0, &errs);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.v[0], "workers.groups[0].command[1]: 131072 bytes"));
	strv_free(&errs);
	cfg_free(&c);
	/* the whole: the sidecar's own environment counts; arg_max 0 checks nothing */
	ck_assert_int_eq(cfg_load_string("{\"master\":{\"env\":{\"A\":\"12345678\"}}}", NULL, &c, &errs), 0);
	cfg_check_exec(&c, 1000, 0, &errs);
	ck_assert_uint_eq(errs.n, 0);
	cfg_check_exec(&c, 1000, 1200, &errs);
	ck_assert_uint_eq(errs.n, 0);
	cfg_check_exec(&c, 1000, 1010, &errs);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.v[0], "master: its command line and environment"));
	ck_assert_ptr_nonnull(strstr(errs.v[0], "over the kernel's limit of 1010 (ARG_MAX)"));
	strv_free(&errs);
	cfg_free(&c);
	free(v);
	free(json);
}
END_TEST

START_TEST(test_hostport)
{
	char host[64];
	int fam;
	long port;
	ck_assert_int_eq(cfg_parse_hostport("127.0.0.1:80", host, sizeof host, &fam, &port), 0);
	ck_assert_int_eq(fam, AF_INET);
	ck_assert_int_eq(port, 80);
	ck_assert_int_eq(cfg_parse_hostport("[::]:9103", host, sizeof host, &fam, &port), 0);
	ck_assert_str_eq(host, "::");
	ck_assert_int_eq(cfg_parse_hostport("1.2.3.4:", host, sizeof host, &fam, &port), -1);
	ck_assert_int_eq(cfg_parse_hostport("1.2.3.4:12x", host, sizeof host, &fam, &port), -1);
	ck_assert_int_eq(cfg_parse_hostport("[::1]9103", host, sizeof host, &fam, &port), -1);
	ck_assert_int_eq(cfg_parse_hostport(":9103", host, sizeof host, &fam, &port), -1);
	ck_assert_int_eq(cfg_parse_hostport("127.0.0.1:0", host, sizeof host, &fam, &port), 0);	/* any free port */
	ck_assert_int_eq(port, 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cfg");
	TCase *tc = tcase_create("cfg");
	tcase_add_loop_test(tc, test_bad_config, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, test_every_error_reported);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_health_defaults);
	tcase_add_test(tc, test_expand);
	tcase_add_test(tc, test_overrides_and_nodes);
	tcase_add_test(tc, test_store_config_verbatim);
	tcase_add_test(tc, test_sizes_accepted);
	tcase_add_test(tc, test_store_used);
	tcase_add_test(tc, test_gpus_per_node_from_env);
	tcase_add_test(tc, test_hostport);
	tcase_add_test(tc, test_exec_sizes);
	tcase_add_test(tc, test_ha_resolved);
	tcase_add_test(tc, test_snapshot_resolved);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
