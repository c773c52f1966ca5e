/*
 * A stand-in for mooncake_master 0.3.12: the same flags, port order, start-up delay, routes, bodies,
 * exit codes and log lines, on libevent. Fault knobs come from MC_STANDIN_* environment variables
 * (see tests/standin/README.md).
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#define MASTER_VERSION	"0.3.12.post1"

enum ftype { T_INT, T_BOOL, T_STR, T_ANY };
struct flag {
	const char	*name;
	enum ftype	 type;
	const char	*value;
};

/* Flags the stand-in acts on, then every other flag the real master accepts (taken and ignored). */
static struct flag flags[] = {
	{ "rpc_port", T_INT, "0" }, { "port", T_INT, "50051" },
	{ "rpc_address", T_STR, "0.0.0.0" },
	{ "enable_http_metadata_server", T_BOOL, "false" },
	{ "http_metadata_server_port", T_INT, "8080" },
	{ "http_metadata_server_host", T_STR, "0.0.0.0" },
	{ "metrics_port", T_INT, "9003" }, { "metrics_host", T_STR, "0.0.0.0" },
	{ "enable_metric_reporting", T_BOOL, "true" }, { "enable_ha", T_BOOL, "false" },
	{ "rpc_thread_num", T_INT, "0" }, { "max_threads", T_INT, "16" },
	{ "rpc_interface", T_STR, "" }, { "rpc_conn_timeout_seconds", T_INT, "0" },
	{ "rpc_enable_tcp_no_delay", T_BOOL, "true" },
	{ "enable_metadata_cleanup_on_timeout", T_BOOL, "false" }, { "config_path", T_STR, "" },
	{ "default_kv_lease_ttl", T_STR, "10000" }, { "default_kv_soft_pin_ttl", T_STR, "1800000" },
	{ "max_kv_soft_pin_ttl", T_STR, "86400000" }, { "allow_evict_soft_pinned_objects", T_BOOL, "true" },
	{ "client_ttl", T_INT, "10" }, { "eviction_ratio", T_ANY, "0.05" },
	{ "eviction_high_watermark_ratio", T_ANY, "0.9" }, { "nof_eviction_ratio", T_ANY, "0.05" },
	{ "nof_eviction_high_watermark_ratio", T_ANY, "0.9" }, { "enable_disk_eviction", T_BOOL, "true" },
	{ "quota_bytes", T_INT, "0" }, { "ha_backend_type", T_STR, "etcd" },
	{ "ha_backend_connstring", T_STR, "" }, { "etcd_endpoints", T_STR, "" },
	{ "cluster_id", T_STR, "mooncake_cluster" }, { "enable_oplog", T_BOOL, "false" },
	{ "oplog_poll_interval_ms", T_INT, "1000" }, { "oplog_batch_max_entries", T_INT, "1024" },
	{ "batch_oplog_retry_timeout_sec", T_INT, "180" }, { "pod_name", T_STR, "" },
	{ "pod_namespace", T_STR, "" }, { "memory_allocator", T_STR, "offset" },
	{ "allocation_strategy", T_STR, "random" }, { "enable_offload", T_BOOL, "false" },
	{ "offload_on_evict", T_BOOL, "false" }, { "offload_force_evict", T_BOOL, "false" },
	{ "offloading_queue_limit", T_INT, "50000" }, { "offload_cap_ratio", T_ANY, "0.5" },
	{ "promotion_on_hit", T_BOOL, "false" }, { "promotion_admission_threshold", T_INT, "2" },
	{ "promotion_queue_limit", T_INT, "50000" }, { "promotion_max_per_heartbeat", T_INT, "1" },
	{ "dynamic_replication_mode", T_STR, "off" }, { "enable_kv_events", T_BOOL, "false" },
	{ "kv_events_bind_endpoint", T_STR, "" }, { "kv_events_backend_id", T_STR, "" },
	{ "root_fs_dir", T_STR, "" }, { "global_file_segment_size", T_ANY, "" },
	{ "enable_snapshot", T_BOOL, "false" }, { "enable_snapshot_restore", T_BOOL, "false" },
	{ "snapshot_interval_seconds", T_INT, "600" }, { "snapshot_backup_dir", T_STR, "" },
	{ "enable_multi_tenants", T_BOOL, "false" }, { "max_total_finished_tasks", T_INT, "10000" },
	{ "max_total_pending_tasks", T_INT, "10000" }, { "max_total_processing_tasks", T_INT, "10000" },
	{ "pending_task_timeout_sec", T_INT, "300" }, { "processing_task_timeout_sec", T_INT, "300" },
	{ "max_retry_attempts", T_INT, "10" }, { "enable_cxl", T_BOOL, "false" },
	{ "cxl_path", T_STR, "/dev/dax0.0" }, { "cxl_size", T_INT, "8589934592" },
	{ "log_dir", T_STR, "" }, { "logtostderr", T_BOOL, "false" }, { "minloglevel", T_INT, "0" },
	{ "v", T_INT, "0" },
	{ NULL, 0, NULL }
};

static struct {
	struct event_base	*base;
	struct evhttp		*admin, *meta;
	struct evconnlistener	*rpc;
	int			 rpc_port, meta_port, admin_port, meta_on, ha, reporting;
	const char		*rpc_addr, *admin_host, *meta_host;
	char			 role[16], leader[128];
	int			 hang_admin, slow_ms, ignore_term, stopping;
	int			 rpc_bind_failed;	/* admin still claims ready until exit */
	long			 view_version;
	unsigned long		 get_nums;
	const char		*events;
	struct metadata { char *key, *value; struct metadata *next; } *store;
} S;

static const char *
flag(const char *name)
{
	for (struct flag *f = flags; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f->value;
	return "";
}

static int
flag_bool(const char *name)
{
	const char *v = flag(name);
	return strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 ||
	    strcmp(v, "y") == 0 || strcmp(v, "t") == 0;
}

static long
env_long(const char *name, long def)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : def;
}

/* A glog line: "I20261130 22:48:32.389328 18036 master.cpp:1522] msg". */
static void
glog(char sev, const char *where, const char *fmt, ...)
{
	struct timeval tv;
	struct tm tm;
	va_list ap;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	fprintf(stderr, "%c%04d%02d%02d %02d:%02d:%02d.%06ld %d %s] ", sev, tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec,
	    (int)getpid(), where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void
event_record(const char *what)
{
	struct timespec ts;
	FILE *f;
	if (S.events == NULL || (f = fopen(S.events, "a")) == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(f, "%s %d %lld\n", what, (int)getpid(), (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	fclose(f);
}

static int
parse_flags(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *name, *eq, *val = NULL;
		struct flag *f;
		int neg = 0;
		if (a[0] != '-')
			continue;	/* gflags leaves positional arguments alone */
		name = a + (a[1] == '-' ? 2 : 1);
		if (strcmp(name, "version") == 0) {
			printf("mooncake_master version " MASTER_VERSION "\n");
			exit(0);
		}
		if (strcmp(name, "help") == 0 || strcmp(name, "helpshort") == 0) {
			printf("mooncake_master: Mooncake master service (stand-in)\n");
			exit(1);
		}
		name = strdup(name);
		if ((eq = strchr(name, '=')) != NULL) {
			*eq = '\0';
			val = eq + 1;
		}
		for (f = flags; f->name && strcmp(f->name, name) != 0; f++)
			;
		if (f->name == NULL && strncmp(name, "no", 2) == 0 && val == NULL) {
			for (f = flags; f->name && strcmp(f->name, name + 2) != 0; f++)
				;
			neg = f->name != NULL && f->type == T_BOOL;
			if (!neg)
				f = &flags[sizeof flags / sizeof flags[0] - 1];
		}
		if (f->name == NULL) {
			fprintf(stderr, "ERROR: unknown command line flag '%s'\n", name);
			exit(1);
		}
		if (f->type == T_BOOL) {
			if (val == NULL)
				val = neg ? "false" : "true";
			if (strcmp(val, "true") && strcmp(val, "false") && strcmp(val, "1") &&
			    strcmp(val, "0") && strcmp(val, "yes") && strcmp(val, "no")) {
				fprintf(stderr, "ERROR: illegal value '%s' specified for bool flag '%s'\n",
				    val, f->name);
				exit(1);
			}
		} else if (val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ERROR: flag '%s' is missing its argument\n", f->name);
				exit(1);
			}
			val = argv[++i];
		}
		if (f->type == T_INT) {
			char *end;
			errno = 0;
			long v = strtol(val, &end, 10);
			if (*val == '\0' || *end != '\0' || errno || v < -2147483648L ||
			    (v > 2147483647L && strcmp(f->name, "cxl_size") != 0 &&
			    strcmp(f->name, "quota_bytes") != 0)) {
				fprintf(stderr, "ERROR: illegal value '%s' specified for int32 flag '%s'\n",
				    val, f->name);
				exit(1);
			}
		}
		f->value = val;
	}
	return 0;
}

/* ---------------------------------------------------------------- admin server */

static int
service_ready(void)
{
	return strcmp(S.role, "leader") == 0 && (S.rpc != NULL || S.rpc_bind_failed);
}

static const char *
ha_state(void)
{
	return strcmp(S.role, "leader") == 0 ? "serving" : "standby";
}

static void
reply(struct evhttp_request *req, int code, const char *ctype, const char *body)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	struct evbuffer *b = evbuffer_new();
	evhttp_add_header(h, "Server", "cinatra");
	if (ctype != NULL)
		evhttp_add_header(h, "Content-Type", ctype);
	evbuffer_add(b, body, strlen(body));
	evhttp_send_reply(req, code, code == 200 ? "OK" : code == 404 ? "Not Found" :
	    code == 400 ? "Bad Request" : code == 503 ? "Service Unavailable" : "Error", b);
	evbuffer_free(b);
}

static char *
query_param(struct evhttp_request *req, const char *key)
{
	struct evkeyvalq q;
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req)), *v;
	char *out = NULL;
	if (query == NULL)
		return NULL;
	if (evhttp_parse_query_str(query, &q) != 0)
		return NULL;
	if ((v = evhttp_find_header(&q, key)) != NULL && *v)
		out = strdup(v);
	evhttp_clear_headers(&q);
	return out;
}

static const char *const metric_gauges[] = {
	"master_allocated_bytes Total memory bytes currently allocated across all segments",
	"master_total_capacity_bytes Total memory capacity across all mounted segments",
	"master_allocated_file_size_bytes Total bytes currently allocated for file storage in 3fs/nfs",
	"master_total_file_capacity_bytes Total capacity for file storage in 3fs/nfs",
	"master_key_count Total number of keys managed by the master",
	"master_soft_pin_key_count Total number of soft-pinned keys managed by the master",
	"master_active_clients Total number of active clients",
	"mem_cache_nums_ Number of objects cached in memory",
	"file_cache_nums_ Number of objects cached in files",
	"ha_standby_state Current state of the Standby service (0=STOPPED, 1=CONNECTING, 2=SYNCING, "
	    "3=WATCHING, 4=RECOVERING, 5=RECONNECTING, 6=PROMOTING, 7=PROMOTED, 8=FAILED)",
	NULL
};
static const char *const metric_ops[] = {
	"put_start", "put_end", "put_revoke", "get_replica_list", "exist_key", "remove", "remove_all",
	"mount_segment", "unmount_segment", "ping", NULL
};

static void
send_metrics(struct evhttp_request *req)
{
	struct evbuffer *b = evbuffer_new();
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	for (int i = 0; metric_gauges[i]; i++) {
		int n = (int)strcspn(metric_gauges[i], " ");
		evbuffer_add_printf(b, "# HELP %s\n# TYPE %.*s gauge\n%.*s 0\n", metric_gauges[i], n,
		    metric_gauges[i], n, metric_gauges[i]);
	}
	for (int i = 0; metric_ops[i]; i++) {
		evbuffer_add_printf(b, "# HELP master_%s_requests_total Total number of %s requests "
		    "received\n# TYPE master_%s_requests_total counter\nmaster_%s_requests_total 0\n",
		    metric_ops[i], metric_ops[i], metric_ops[i], metric_ops[i]);
		evbuffer_add_printf(b, "# HELP master_%s_failures_total Total number of failed %s "
		    "requests\n# TYPE master_%s_failures_total counter\nmaster_%s_failures_total 0\n",
		    metric_ops[i], metric_ops[i], metric_ops[i], metric_ops[i]);
	}
	evbuffer_add_printf(b, "# HELP total_get_nums_ Total number of Get requests\n"
	    "# TYPE total_get_nums_ counter\ntotal_get_nums_ %lu\n", S.get_nums);
	evhttp_add_header(h, "Server", "cinatra");
	evhttp_add_header(h, "Content-Type", "text/plain; version=0.0.4");
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

static const char *
summary(char *buf, size_t len)
{
	snprintf(buf, len, "role=%s, state=%s, service_ready=%s, master={Mem Storage: 0 B / 0 B | "
	    "NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 0 (soft-pinned: 0) | Clients: 0 | "
	    "Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, "
	    "Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=0.00/0.00 | "
	    "Eviction: Success/Attempts=0/0, AllocFail=0, PartialAlloc=0, keys=0, size=0 B | "
	    "Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, "
	    "pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, "
	    "etcd_fail=0, watch_disconn=0, state=0}", S.role, ha_state(),
	    service_ready() ? "true" : "false");
	return buf;
}

static void
leader_json(char *buf, size_t len, const char *lead)
{
	if (lead[0] == '\0')
		snprintf(buf, len, "\"leader_address\":null,\"view_version\":null");
	else
		snprintf(buf, len, "\"leader_address\":\"%s\",\"view_version\":%ld", lead, S.view_version);
}

static const char *
current_leader(char *buf, size_t len)
{
	buf[0] = '\0';
	if (!S.ha)
		return buf;
	if (strcmp(S.role, "leader") == 0)
		snprintf(buf, len, "%s:%d", strcmp(S.rpc_addr, "0.0.0.0") ? S.rpc_addr : "127.0.0.1",
		    S.rpc_port);
	else
		snprintf(buf, len, "%s", S.leader);
	return buf;
}

static void
admin_route(struct evhttp_request *req)
{
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	char buf[4096], lj[256], lead[160];
	static const char *const json = "application/json; charset=utf-8";
	static const char *const text = "text/plain; charset=utf-8";
	static const char *const prom = "text/plain; version=0.0.4";
	static const char *const inactive =
	    "{\"success\":false,\"error_code\":-1011,\"error_message\":\"service plane is not active\"}";

	if (path == NULL || evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		reply(req, 404, NULL, "404 Not Found");
		return;
	}
	leader_json(lj, sizeof lj, current_leader(lead, sizeof lead));
	if (strcmp(path, "/health") == 0) {
		snprintf(buf, sizeof buf, "{\"status\":\"ok\",\"role\":\"%s\",\"ha_state\":\"%s\","
		    "\"service_ready\":%s,%s}", S.role, ha_state(), service_ready() ? "true" : "false", lj);
		reply(req, 200, json, buf);
	} else if (strcmp(path, "/role") == 0)
		reply(req, 200, text, S.role);
	else if (strcmp(path, "/ha_status") == 0)
		reply(req, 200, text, ha_state());
	else if (strcmp(path, "/leader") == 0) {
		snprintf(buf, sizeof buf, "{\"present\":%s,%s}", lead[0] ? "true" : "false", lj);
		reply(req, 200, json, buf);
	} else if (strcmp(path, "/metrics") == 0)
		send_metrics(req);
	else if (strcmp(path, "/metrics/summary") == 0)
		reply(req, 200, prom, summary(buf, sizeof buf));
	else if (strcmp(path, "/query_key") == 0 || strcmp(path, "/batch_query_keys") == 0 ||
	    strcmp(path, "/get_all_keys") == 0 || strcmp(path, "/get_all_segments") == 0 ||
	    strcmp(path, "/get_segments_detail") == 0) {
		if (!service_ready()) {
			reply(req, 503, json, inactive);
			return;
		}
		if (strcmp(path, "/query_key") == 0) {
			S.get_nums++;
			reply(req, 404, json,
			    "{\"success\":false,\"error_code\":-704,\"error_message\":\"OBJECT_NOT_FOUND\"}");
		} else if (strcmp(path, "/batch_query_keys") == 0) {
			char *keys = query_param(req, "keys");
			if (keys == NULL) {
				reply(req, 400, json, "{\"success\":false,\"error\":\"No keys provided. "
				    "Use ?keys=key1,key2,...\"}");
				return;
			}
			int n = snprintf(buf, sizeof buf, "{\"success\":true,\"data\":{");
			char *save = NULL, *k;
			int first = 1;
			for (k = strtok_r(keys, ",", &save); k && n < 3500; k = strtok_r(NULL, ",", &save)) {
				n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\"%.200s\":{\"ok\":false,"
				    "\"error\":\"OBJECT_NOT_FOUND\",\"values\":[]}", first ? "" : ",", k);
				first = 0;
			}
			snprintf(buf + n, sizeof buf - (size_t)n, "}}");
			free(keys);
			reply(req, 200, json, buf);
		} else if (strcmp(path, "/get_segments_detail") == 0)
			reply(req, 200, json, "{\"total_segments\":0,\"segments\":[]}");
		else
			reply(req, 200, prom, "");
	} else if (strcmp(path, "/kv_events/status") == 0)
		reply(req, 200, json, "{\"enabled\":false,\"published_batches\":0,\"published_events\":0,"
		    "\"dropped_events\":0,\"skipped_unparsed_keys\":0}");
	else
		reply(req, 404, NULL, "404 Not Found");
}

static void
slow_cb(evutil_socket_t fd, short what, void *arg)
{
	admin_route(arg);
}

/* MC_STANDIN_CHUNKED=1: /metrics/summary?bytes=N answers with a chunked body of N bytes, sent as
 * chunks of 1,000 (a fault knob: the real master sends Content-Length). */
static int
send_chunked(struct evhttp_request *req)
{
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	char *bytes;
	struct evbuffer *b;
	long n;
	if (env_long("MC_STANDIN_CHUNKED", 0) != 1 || path == NULL || strcmp(path, "/metrics/summary") != 0 ||
	    (bytes = query_param(req, "bytes")) == NULL)
		return 0;
	n = atol(bytes);
	free(bytes);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/plain");
	evhttp_send_reply_start(req, 200, "OK");
	b = evbuffer_new();
	for (long sent = 0; sent < n; sent += 1000) {
		long c = n - sent < 1000 ? n - sent : 1000;
		for (long i = 0; i < c; i++)
			evbuffer_add(b, &"abcdefghijklmnopqrstuvwxyz\n"[(sent + i) % 27], 1);
		evhttp_send_reply_chunk(req, b);
	}
	evbuffer_free(b);
	evhttp_send_reply_end(req);
	return 1;
}

static void
admin_cb(struct evhttp_request *req, void *arg)
{
	if (S.hang_admin)
		return;		/* accept, read, never answer */
	if (send_chunked(req))
		return;
	if (S.slow_ms > 0) {
		struct timeval tv = { S.slow_ms / 1000, (S.slow_ms % 1000) * 1000 };
		event_base_once(S.base, -1, EV_TIMEOUT, slow_cb, req, &tv);
		return;
	}
	admin_route(req);
}

/* ---------------------------------------------------------------- metadata server */

static void
meta_cb(struct evhttp_request *req, void *arg)
{
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct metadata **pp, *e;
	char *key;

	if (path != NULL && strcmp(path, "/health") == 0 && cmd == EVHTTP_REQ_GET) {
		reply(req, 200, NULL, "OK");
		return;
	}
	if (path == NULL || strcmp(path, "/metadata") != 0 ||
	    (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_PUT && cmd != EVHTTP_REQ_DELETE)) {
		reply(req, 404, NULL, "404 Not Found");
		return;
	}
	if ((key = query_param(req, "key")) == NULL) {
		reply(req, 400, NULL, "Missing key parameter");
		return;
	}
	for (pp = &S.store; *pp && strcmp((*pp)->key, key) != 0; pp = &(*pp)->next)
		;
	e = *pp;
	if (cmd == EVHTTP_REQ_GET) {
		if (e == NULL)
			reply(req, 404, NULL, "metadata not found");
		else
			reply(req, 200, "application/json", e->value);
	} else if (cmd == EVHTTP_REQ_DELETE) {
		if (e == NULL)
			reply(req, 404, NULL, "metadata not found");
		else {
			*pp = e->next;
			free(e->key);
			free(e->value);
			free(e);
			reply(req, 200, NULL, "metadata deleted");
		}
	} else {
		struct evbuffer *in = evhttp_request_get_input_buffer(req);
		size_t n = evbuffer_get_length(in);
		char *v = malloc(n + 1);
		evbuffer_remove(in, v, n);
		v[n] = '\0';
		if (e != NULL && strstr(key, "rpc_meta") != NULL) {
			reply(req, strcmp(e->value, v) == 0 ? 200 : 400, NULL, strcmp(e->value, v) == 0 ?
			    "metadata unchanged" : "Duplicate rpc_meta key not allowed");
			free(v);
		} else {
			if (e == NULL) {
				e = calloc(1, sizeof *e);
				e->key = strdup(key);
				e->next = S.store;
				S.store = e;
			} else
				free(e->value);
			e->value = v;
			reply(req, 200, NULL, "metadata updated");
		}
	}
	free(key);
}

/* ---------------------------------------------------------------- RPC port */

static void
rpc_read_cb(evutil_socket_t fd, short what, void *arg)
{
	char buf[4096];
	/* Anything that is not coro_rpc framing (an HTTP request, say) gets the connection closed,
	 * whatever was read. */
	if (read(fd, buf, sizeof buf) < 0)
		buf[0] = '\0';
	event_free(arg);
	close(fd);
}

static void
rpc_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len, void *arg)
{
	struct event *ev = event_new(S.base, fd, EV_READ, rpc_read_cb, event_self_cbarg());
	event_add(ev, NULL);
}

static int
rpc_listen(void)
{
	char addr[160];
	struct sockaddr_storage ss;
	int sslen = sizeof ss;
	snprintf(addr, sizeof addr, strchr(S.rpc_addr, ':') ? "[%s]:%d" : "%s:%d", S.rpc_addr,
	    S.rpc_port);
	if (evutil_parse_sockaddr_port(addr, (struct sockaddr *)&ss, &sslen) != 0)
		return -1;
	S.rpc = evconnlistener_new_bind(S.base, rpc_accept_cb, NULL,
	    LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 4096,
	    (struct sockaddr *)&ss, sslen);
	return S.rpc ? 0 : -1;
}

/* ---------------------------------------------------------------- life cycle */

static void
exit_cb(evutil_socket_t fd, short what, void *arg)
{
	if (S.meta_on)
		glog('I', "http_metadata_server.cpp:137", "HTTP metadata server stopped");
	exit((int)(long)arg);
}

static void
later(long ms, event_callback_fn fn, void *arg)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	event_base_once(S.base, -1, EV_TIMEOUT, fn, arg, &tv);
}

static void
close_service_ports(evutil_socket_t fd, short what, void *arg)
{
	if (S.rpc != NULL)
		evconnlistener_free(S.rpc);
	S.rpc = NULL;
	if (S.admin != NULL)
		evhttp_free(S.admin);
	S.admin = NULL;
	glog('I', "master_service.cpp:2611", "Task cleanup thread stopped");
}

static void
term_cb(evutil_socket_t sig, short what, void *arg)
{
	long stop_ms = env_long("MC_STANDIN_STOP_MS", 1000);
	if (S.ignore_term || S.stopping)
		return;
	S.stopping = 1;
	glog('I', "master.cpp:1683", "Shutdown signal received, exiting gracefully");
	later(stop_ms / 10, close_service_ports, NULL);
	later(stop_ms, exit_cb, (void *)0L);
}

static void
crash_cb(evutil_socket_t fd, short what, void *arg)
{
	long sig = env_long("MC_STANDIN_CRASH_SIGNAL", 0);
	if (sig > 0) {
		signal((int)sig, SIG_DFL);
		raise((int)sig);
	}
	exit((int)env_long("MC_STANDIN_CRASH_EXIT", 1));
}

static void
report_cb(evutil_socket_t fd, short what, void *arg)
{
	char buf[4096];
	glog('I', "master_admin_service.cpp:300", "Master Admin Metrics: %s", summary(buf, sizeof buf));
}

static void
hang_cb(evutil_socket_t fd, short what, void *arg)
{
	S.hang_admin = 1;
}

/* SIGUSR1: re-read the control file (role=, leader=, hang_admin=, slow_ms=) to change at run time. */
static void
control_cb(evutil_socket_t sig, short what, void *arg)
{
	const char *path = getenv("MC_STANDIN_CONTROL");
	char line[256];
	FILE *f;
	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		char *v = strchr(line, '=');
		if (v == NULL)
			continue;
		*v++ = '\0';
		v[strcspn(v, "\r\n")] = '\0';
		if (strcmp(line, "role") == 0 && strcmp(v, S.role) != 0) {
			snprintf(S.role, sizeof S.role, "%s", strcmp(v, "leader") ? "standby" : "leader");
			S.view_version++;
			if (strcmp(S.role, "leader") == 0 && S.rpc == NULL)
				rpc_listen();
			else if (strcmp(S.role, "standby") == 0 && S.rpc != NULL) {
				evconnlistener_free(S.rpc);
				S.rpc = NULL;
			}
			glog('I', "master_service_supervisor.cpp:88", "Master runtime state -> %s, role=%s",
			    ha_state(), S.role);
		} else if (strcmp(line, "leader") == 0) {
			snprintf(S.leader, sizeof S.leader, "%s", v);
			S.view_version++;
		} else if (strcmp(line, "hang_admin") == 0)
			S.hang_admin = atoi(v);
		else if (strcmp(line, "slow_ms") == 0)
			S.slow_ms = atoi(v);
	}
	fclose(f);
}

static void
serve_cb(evutil_socket_t fd, short what, void *arg)
{
	glog('I', "master_service.cpp:2588", "Task cleanup thread started");
	S.admin = evhttp_new(S.base);
	evhttp_set_default_content_type(S.admin, NULL);
	evhttp_set_allowed_methods(S.admin, 0x1ff);
	evhttp_set_gencb(S.admin, admin_cb, NULL);
	if (evhttp_bind_socket(S.admin, S.admin_host, (ev_uint16_t)S.admin_port) != 0) {
		glog('E', "master_admin_service.cpp:269", "Failed to start master admin server on %s:%d: "
		    "Address already in use", S.admin_host, S.admin_port);
		glog('E', "master.cpp:1651", "Failed to start master admin server");
		glog('I', "master_service.cpp:2611", "Task cleanup thread stopped");
		later(1000, exit_cb, (void *)1L);
		return;
	}
	glog('I', "master_admin_service.cpp:309", "Master admin server started on port %d",
	    S.admin_port);
	/* The real master installs its SIGTERM/SIGINT handlers only now, and never in HA mode. */
	if (!S.ha && !S.ignore_term) {
		event_add(evsignal_new(S.base, SIGTERM, term_cb, NULL), NULL);
		event_add(evsignal_new(S.base, SIGINT, term_cb, NULL), NULL);
	}
	if (strcmp(S.role, "leader") == 0 && rpc_listen() != 0) {
		/* The bind failure is reported nowhere; admin keeps saying ready for about 2 s. */
		S.rpc_bind_failed = 1;
		later(2000, close_service_ports, NULL);
		later(2050, exit_cb, (void *)1L);
		S.stopping = 1;
		return;
	}
	event_record("listening");
	if (S.reporting) {
		struct event *ev = event_new(S.base, -1, EV_PERSIST, report_cb, NULL);
		struct timeval tv = { 10, 0 };
		event_add(ev, &tv);
		report_cb(-1, 0, NULL);
	}
	if (getenv("MC_STANDIN_HANG_ADMIN_AFTER_MS") != NULL)
		later(env_long("MC_STANDIN_HANG_ADMIN_AFTER_MS", 0), hang_cb, NULL);
}

int
main(int argc, char **argv)
{
	long delay;
	S.events = getenv("MC_STANDIN_EVENTS");
	event_record("exec");
	parse_flags(argc, argv);
	if (env_long("MC_STANDIN_IGNORE_SIGTERM", 0)) {
		S.ignore_term = 1;
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
	}
	signal(SIGPIPE, SIG_IGN);
	S.rpc_port = atoi(flag("rpc_port"));
	if (S.rpc_port == 0)
		S.rpc_port = atoi(flag("port"));
	if (S.rpc_port != 50051 && strcmp(flag("port"), "50051") != 0)
		glog('W', "master.cpp:1490", "port is deprecated, use rpc_port instead");
	S.rpc_addr = flag("rpc_address");
	S.meta_on = flag_bool("enable_http_metadata_server");
	S.meta_port = atoi(flag("http_metadata_server_port"));
	S.meta_host = flag("http_metadata_server_host");
	S.admin_port = atoi(flag("metrics_port"));
	S.admin_host = flag("metrics_host");
	S.ha = flag_bool("enable_ha");
	S.reporting = flag_bool("enable_metric_reporting");
	S.hang_admin = (int)env_long("MC_STANDIN_HANG_ADMIN", 0);
	S.slow_ms = (int)env_long("MC_STANDIN_SLOW_MS", 0);
	snprintf(S.role, sizeof S.role, "%s", S.ha && getenv("MC_STANDIN_ROLE") &&
	    strcmp(getenv("MC_STANDIN_ROLE"), "standby") == 0 ? "standby" : "leader");
	snprintf(S.leader, sizeof S.leader, "%s", getenv("MC_STANDIN_LEADER") ? getenv("MC_STANDIN_LEADER") : "");
	S.view_version = 1;

	fprintf(stderr, "WARNING: Logging before InitGoogleLogging() is written to STDERR\n");
	glog('I', "master.cpp:1522", "Master service started on port %d, max_threads=%s, "
	    "enable_metric_reporting=%d, metrics_port=%d, metrics_host=%s, enable_ha=%d, "
	    "rpc_port=%d, rpc_address=%s, enable_http_metadata_server=%d, http_metadata_server_port=%d, "
	    "http_metadata_server_host=%s", S.rpc_port, flag("max_threads"), S.reporting, S.admin_port,
	    S.admin_host, S.ha, S.rpc_port, S.rpc_addr, S.meta_on, S.meta_port, S.meta_host);

	S.base = event_base_new();
	event_add(evsignal_new(S.base, SIGUSR1, control_cb, NULL), NULL);
	if (getenv("MC_STANDIN_CRASH_AFTER_MS") != NULL)
		later(env_long("MC_STANDIN_CRASH_AFTER_MS", 0), crash_cb, NULL);
	if (S.meta_on) {
		glog('I', "master.cpp:1374", "Starting C++ HTTP metadata server on %s:%d", S.meta_host,
		    S.meta_port);
		S.meta = evhttp_new(S.base);
		evhttp_set_default_content_type(S.meta, NULL);
		evhttp_set_allowed_methods(S.meta, 0x1ff);
		evhttp_set_gencb(S.meta, meta_cb, NULL);
		/* The real server ignores --http_metadata_server_host and binds every address. */
		if (evhttp_bind_socket(S.meta, "0.0.0.0", (ev_uint16_t)S.meta_port) != 0) {
			glog('E', "http_metadata_server.cpp:121", "Failed to start HTTP metadata server on "
			    "%s:%d", S.meta_host, S.meta_port);
			glog('E', "master.cpp:1386", "Failed to start C++ HTTP metadata server");
			glog('F', "master.cpp:1608", "Failed to start HTTP metadata server");
			fprintf(stderr, "*** Check failure stack trace: ***\n");
			abort();
		}
		glog('I', "http_metadata_server.cpp:126", "HTTP metadata server started on %s:%d",
		    S.meta_host, S.meta_port);
		glog('I', "master.cpp:1383", "C++ HTTP metadata server started successfully");
		delay = env_long("MC_STANDIN_START_DELAY_MS", 1000);
	} else
		delay = env_long("MC_STANDIN_START_DELAY_MS", 1000) / 40;
	later(delay, serve_cb, NULL);
	event_base_dispatch(S.base);
	return 0;
}
