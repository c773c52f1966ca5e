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

struct flag {
	const char	*name;
	const char	*type;		/* gflags' words: bool, int32, uint32, int64, uint64, double, string */
	const char	*value;
};

/* Every flag the real master accepts, with its type and default. */
#include "flags.h"
#include "gflags.h"
#include "metrics.h"

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
	unsigned long		 get_nums, get_found, nkeys;
	struct key { char *name; unsigned long size; } *keys;	/* MC_STANDIN_KEYS, sorted */
	const char		*events;
	struct metadata { char *key, *value; struct metadata *next; } *store;
	/* MC_STANDIN_CLIENTS: that many clients pinging once a second; a freeze (MC_STANDIN_FREEZE_AFTER_MS,
	 * or freeze=1 in the control file) stops their pings and the routes that take the metadata
	 * locks, as a sweep under the shards' write locks does, while /health stays green */
	long			 clients;
	int			 frozen;
	double			 ping_base, ping_t0;
} S;

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
set_frozen(int on)
{
	if (on == S.frozen)
		return;
	if (on)
		S.ping_base += (double)S.clients * (mono_s() - S.ping_t0);
	else
		S.ping_t0 = mono_s();
	S.frozen = on;
}

static unsigned long
pings(void)
{
	return (unsigned long)(S.ping_base + (S.frozen ? 0 : (double)S.clients * (mono_s() - S.ping_t0)));
}

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
		if (strcmp(name, "helpxml") == 0) {
			/* gflags' XML: every flag with its type and default, one <flag> a line */
			printf("<?xml version=\"1.0\"?>\n<AllFlags>\n<program>mooncake_master</program>\n"
			    "<usage>Mooncake master service (stand-in)</usage>\n");
			for (struct flag *h = flags; h->name; h++)
				printf("<flag><file>master.cpp</file><name>%s</name><meaning></meaning><default>%s</default>"
				    "<current>%s</current><type>%s</type></flag>\n", h->name, h->value, h->value, h->type);
			printf("</AllFlags>\n");
			exit(1);
		}
		if (strcmp(name, "help") == 0 || strcmp(name, "helpshort") == 0 ||
		    strcmp(name, "helpfull") == 0) {
			/* gflags' layout, flag by flag, without the descriptions */
			printf("mooncake_master: Mooncake master service (stand-in)\n\n"
			    "  Flags from master.cpp:\n");
			for (struct flag *h = flags; h->name; h++)
				printf("    -%s () type: %s default: %s%s%s\n", h->name, h->type,
				    strcmp(h->type, "string") ? "" : "\"", h->value,
				    strcmp(h->type, "string") ? "" : "\"");
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
			neg = f->name != NULL && strcmp(f->type, "bool") == 0;
			if (!neg)
				f = &flags[sizeof flags / sizeof flags[0] - 1];
		}
		if (f->name == NULL) {
			fprintf(stderr, "ERROR: unknown command line flag '%s'\n", name);
			exit(1);
		}
		if (strcmp(f->type, "bool") == 0) {
			if (val == NULL)
				val = neg ? "false" : "true";
		} else if (val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ERROR: flag '%s' is missing its argument\n", f->name);
				exit(1);
			}
			val = argv[++i];
		}
		if (!gflags_value_ok(f->type, val)) {
			fprintf(stderr, "ERROR: illegal value '%s' specified for %s flag '%s'\n", val,
			    f->type, f->name);
			exit(1);
		}
		f->value = val;
		if (eq == NULL)
			free(name);	/* else the value lives in it, for the process's life */
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
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		/* cinatra tells a HEAD the length of the body it does not send; libevent would not */
		char n[24];
		snprintf(n, sizeof n, "%zu", strlen(body));
		evhttp_add_header(h, "Content-Length", n);
	}
	evbuffer_add(b, body, strlen(body));
	evhttp_send_reply(req, code, code == 200 ? "OK" : code == 404 ? "Not Found" :
	    code == 400 ? "Bad Request" : code == 503 ? "Service Unavailable" : code == 409 ? "Conflict" :
	    code == 500 ? "Internal Server Error" : "Error", b);
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

/* The real master's families in its order, each 0 but the few the stand-in counts. */
static unsigned long
metric_value(const char *name)
{
	if (strcmp(name, "master_get_replica_list_requests_total") == 0 ||
	    strcmp(name, "total_get_nums_") == 0)
		return S.get_nums;
	if (strcmp(name, "master_get_replica_list_failures_total") == 0)
		return S.get_nums - S.get_found;
	if (strcmp(name, "valid_get_nums_") == 0)
		return S.get_found;
	if (strcmp(name, "master_key_count") == 0)
		return S.nkeys;
	if (strcmp(name, "master_active_clients") == 0)
		return (unsigned long)S.clients;
	if (strcmp(name, "master_ping_requests_total") == 0)
		return pings();
	return 0;
}

static void
send_metrics(struct evhttp_request *req)
{
	struct evbuffer *b = evbuffer_new();
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	for (int i = 0; real_metrics[i][0] != NULL; i++)
		evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %lu\n", real_metrics[i][0],
		    real_metrics[i][2], real_metrics[i][0], real_metrics[i][1], real_metrics[i][0],
		    metric_value(real_metrics[i][0]));
	evhttp_add_header(h, "Server", "cinatra");
	evhttp_add_header(h, "Content-Type", "text/plain; version=0.0.4");
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

/* The one-line summary of /metrics/summary and the periodic log line; while starting, the real
 * master reports itself as a standby that is not ready. */
static const char *
summary(char *buf, size_t len, int starting)
{
	snprintf(buf, len, "role=%s, state=%s, service_ready=%s, master={Mem Storage: 0 B / 0 B | "
	    "NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: %lu (soft-pinned: 0) | Clients: 0 | "
	    "Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, "
	    "Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=0.00/0.00, "
	    "CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, "
	    "MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per "
	    "sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, "
	    "Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, "
	    "Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, "
	    "Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, "
	    "Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), "
	    "QueryTask:(Req=0.00/0.00), FetchTasks:(Req=0.00/0.00), MarkTaskToComplete:(Req=0.00/0.00) | "
	    "Eviction: Success/Attempts=0/0, AllocFail=0, PartialAlloc=0, keys=0, size=0 B | "
	    "Mem Eviction: Success/Attempts=0/0, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, "
	    "keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Promotion: in_flight=0, "
	    "admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, "
	    "rejected(freq/wm/cap)=0/0/0 | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: "
	    "last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, "
	    "sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}",
	    starting ? "standby" : S.role, starting ? "starting" : ha_state(),
	    !starting && service_ready() ? "true" : "false", S.nkeys);
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

/* cinatra's query lookup: the first "key=value" whose key matches byte for byte, the value raw
 * (the real /query_key uses it so) or decoded, '+' as a space (every other route). */
static char *
query_value(struct evhttp_request *req, const char *key, int decode)
{
	const char *q = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	size_t kl = strlen(key);
	if (q == NULL)
		return NULL;
	for (const char *p = q; *p; ) {
		size_t n = strcspn(p, "&");
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			char *raw = strndup(p + kl + 1, n - kl - 1), *d;
			if (!decode)
				return raw;
			d = evhttp_uridecode(raw, 1, NULL);
			free(raw);
			return d;
		}
		p += n + (p[n] == '&');
	}
	return NULL;
}

static const struct key *
find_key(const char *name)
{
	for (unsigned long i = 0; i < S.nkeys; i++)
		if (strcmp(S.keys[i].name, name) == 0)
			return &S.keys[i];
	return NULL;
}

static void
json_str(struct evbuffer *b, const char *s)
{
	evbuffer_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			evbuffer_add_printf(b, "\\%c", c);
		else if (c < 0x20)
			evbuffer_add_printf(b, "\\u%04x", c);
		else
			evbuffer_add(b, s, 1);
	}
	evbuffer_add(b, "\"", 1);
}

/* A memory replica's buffer descriptor, as struct_json writes AllocatedBuffer::Descriptor. */
static void
descriptor(struct evbuffer *b, const struct key *k)
{
	evbuffer_add_printf(b, "{\"size_\":%lu,\"buffer_address_\":%lu,\"protocol_\":\"tcp\","
	    "\"transport_endpoint_\":\"127.0.0.1:17001\"}", k->size,
	    140000000000UL + (unsigned long)(k - S.keys) * 1048576UL);
}

static void
reply_buf(struct evhttp_request *req, int code, const char *ctype, struct evbuffer *b)
{
	size_t n = evbuffer_get_length(b);
	char *s = malloc(n + 1);
	evbuffer_remove(b, s, n);
	s[n] = '\0';
	reply(req, code, ctype, s);
	free(s);
	evbuffer_free(b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* /batch_query_keys: the keys split at every ',', answered in byte order, each once (a std::map). */
static void
batch_query(struct evhttp_request *req)
{
	static const char *const json = "application/json; charset=utf-8";
	char *keys = query_value(req, "keys", 1), *p, **v;
	size_t n = 1, m = 0;
	struct evbuffer *b;
	if (keys == NULL || *keys == '\0') {
		free(keys);
		reply(req, 400, json, "{\"success\":false,\"error\":\"No keys provided. Use ?keys=key1,key2,...\"}");
		return;
	}
	for (p = keys; *p; p++)
		n += *p == ',';
	v = calloc(n, sizeof *v);
	for (p = keys; ; p++) {
		v[m++] = p;
		if ((p = strchr(p, ',')) == NULL)
			break;
		*p = '\0';
	}
	qsort(v, m, sizeof *v, cmp_str);
	b = evbuffer_new();
	evbuffer_add_printf(b, "{\"success\":true,\"data\":{");
	for (size_t i = 0; i < m; i++) {
		const struct key *k = find_key(v[i]);
		if (i > 0 && strcmp(v[i], v[i - 1]) == 0)
			continue;
		if (i > 0)
			evbuffer_add(b, ",", 1);
		json_str(b, v[i]);
		if (k != NULL) {
			evbuffer_add_printf(b, ":{\"ok\":true,\"error\":null,\"values\":[");
			descriptor(b, k);
			evbuffer_add_printf(b, "],");
		} else
			evbuffer_add_printf(b, ":{\"ok\":false,\"error\":\"OBJECT_NOT_FOUND\",\"values\":null,");
		evbuffer_add_printf(b, "\"disk_values\":null,\"local_disk_values\":null,\"nof_values\":null}");
	}
	evbuffer_add_printf(b, "}}");
	free(v);
	free(keys);
	reply_buf(req, 200, json, b);
}

/* The routes the real master answers only while its service plane is active (else 503), in
 * master_admin_service.cpp's words. Two check their arguments first. */
static void
service_route(struct evhttp_request *req, const char *path)
{
	static const char *const json = "application/json; charset=utf-8";
	static const char *const prom = "text/plain; version=0.0.4";
	char *arg;
	if (strcmp(path, "/api/v1/drain_jobs/query") == 0) {
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
		    "\"Missing or invalid job_id\"}");
		return;
	}
	if (strcmp(path, "/api/v1/segments/status") == 0) {
		arg = query_value(req, "segment", 1);
		if (arg == NULL || *arg == '\0') {
			free(arg);
			reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
			    "\"Missing segment query parameter\"}");
			return;
		}
		free(arg);
	}
	if (strcmp(path, "/query_key") && strcmp(path, "/batch_query_keys") &&
	    strcmp(path, "/get_all_keys") && strcmp(path, "/get_all_segments") &&
	    strcmp(path, "/get_segments_detail") && strcmp(path, "/query_segment") &&
	    strcmp(path, "/kv_events/status") && strcmp(path, "/api/v1/segments/status") &&
	    strcmp(path, "/api/v1/tenant_quotas")) {
		reply(req, 404, NULL, "404 Not Found");
		return;
	}
	if (!service_ready()) {
		reply(req, 503, json, "{\"success\":false,\"error_code\":-1011,\"error_message\":"
		    "\"service plane is not active\"}");
		return;
	}
	if (strcmp(path, "/query_key") == 0) {
		const struct key *k;
		arg = query_value(req, "key", 0);
		k = find_key(arg ? arg : "");
		free(arg);
		S.get_nums++;
		if (k != NULL) {
			struct evbuffer *b = evbuffer_new();
			S.get_found++;
			evbuffer_add_printf(b, "{\"success\":true,\"data\":[");
			descriptor(b, k);
			evbuffer_add_printf(b, "]}");
			reply_buf(req, 200, json, b);
		} else
			reply(req, 404, json,
			    "{\"success\":false,\"error_code\":-704,\"error_message\":\"OBJECT_NOT_FOUND\"}");
	} else if (strcmp(path, "/batch_query_keys") == 0)
		batch_query(req);
	else if (strcmp(path, "/get_all_keys") == 0) {
		struct evbuffer *b = evbuffer_new();
		for (unsigned long i = 0; i < S.nkeys; i++)
			evbuffer_add_printf(b, "%s\n", S.keys[i].name);
		reply_buf(req, 200, prom, b);
	} else if (strcmp(path, "/get_all_segments") == 0)
		reply(req, 200, prom, "");
	else if (strcmp(path, "/get_segments_detail") == 0)
		reply(req, 200, json, "{\"total_segments\":0,\"segments\":[]}");
	else if (strcmp(path, "/query_segment") == 0)
		reply(req, 500, prom, "Failed to query segment");
	else if (strcmp(path, "/kv_events/status") == 0)
		reply(req, 200, json, "{\"enabled\":false,\"published_batches\":0,\"published_events\":0,"
		    "\"dropped_events\":0,\"skipped_unparsed_keys\":0}");
	else if (strcmp(path, "/api/v1/segments/status") == 0)
		reply(req, 404, json, "{\"success\":false,\"error_code\":-101,\"error_message\":"
		    "\"SEGMENT_NOT_FOUND\"}");
	else
		reply(req, 409, json, "{\"success\":false,\"error_code\":-1011,\"error_message\":"
		    "\"UNAVAILABLE_IN_CURRENT_MODE\"}");
}

/* The master's mutating routes (POST /api/v1/drain_jobs[/cancel], PUT and DELETE
 * /api/v1/tenant_quotas, POST /api/v1/remove_all), as 0.3.12 answers them without tenancy or
 * drain support configured: arguments checked first, then the service plane. */
static void
write_route(struct evhttp_request *req, const char *path, enum evhttp_cmd_type cmd)
{
	static const char *const json = "application/json; charset=utf-8";
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t n = evbuffer_get_length(in);
	char *body = malloc(n + 1), *tenant = query_value(req, "tenant_id", 1), buf[160];
	int is_json;
	evbuffer_copyout(in, body, n);
	body[n] = '\0';
	is_json = n > 0 && body[strspn(body, " \t\r\n")] == '{';
	if (S.events != NULL) {
		snprintf(buf, sizeof buf, "write %s %zu", path, n);
		event_record(buf);
	}
	if (strcmp(path, "/api/v1/tenant_quotas") == 0 && (tenant == NULL || *tenant == '\0'))
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
		    "\"Missing or invalid tenant_id\"}");
	else if ((cmd == EVHTTP_REQ_PUT || strcmp(path, "/api/v1/drain_jobs") == 0) && !is_json)
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
		    "\"Invalid JSON body: Expected these: {\"}");
	else if (cmd == EVHTTP_REQ_PUT && (strstr(body, "\"requested_quota_bytes\"") == NULL ||
	    strstr(body, "\"requested_quota_bytes\":0") != NULL ||
	    strstr(body, "\"requested_quota_bytes\": 0") != NULL))
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
		    "\"Tenant quota must be in [1, 2^63 - 1] bytes\"}");
	else if (strcmp(path, "/api/v1/drain_jobs/cancel") == 0)
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":"
		    "\"Missing or invalid job_id\"}");
	else if (!service_ready())
		reply(req, 503, json, "{\"success\":false,\"error_code\":-1011,\"error_message\":"
		    "\"service plane is not active\"}");
	else if (strcmp(path, "/api/v1/drain_jobs") == 0)
		reply(req, 400, json, "{\"success\":false,\"error_code\":-600,\"error_message\":\"INVALID_PARAMS\"}");
	else if (strcmp(path, "/api/v1/remove_all") == 0) {
		snprintf(buf, sizeof buf, "{\"success\":true,\"removed_count\":%lu}", S.nkeys);
		S.nkeys = 0;
		reply(req, 200, json, buf);
	} else
		reply(req, 409, json, "{\"success\":false,\"error_code\":-1011,\"error_message\":"
		    "\"UNAVAILABLE_IN_CURRENT_MODE\"}");
	free(tenant);
	free(body);
}

static void
admin_route(struct evhttp_request *req)
{
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	char buf[4096], lj[256], lead[160];
	static const char *const json = "application/json; charset=utf-8";
	static const char *const text = "text/plain; charset=utf-8";
	static const char *const prom = "text/plain; version=0.0.4";

	if (path != NULL && ((cmd == EVHTTP_REQ_POST && (strcmp(path, "/api/v1/drain_jobs") == 0 ||
	    strcmp(path, "/api/v1/drain_jobs/cancel") == 0 || strcmp(path, "/api/v1/remove_all") == 0)) ||
	    ((cmd == EVHTTP_REQ_PUT || cmd == EVHTTP_REQ_DELETE) && strcmp(path, "/api/v1/tenant_quotas") == 0))) {
		write_route(req, path, cmd);
		return;
	}
	if (path == NULL || cmd != EVHTTP_REQ_GET) {
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
		reply(req, 200, prom, summary(buf, sizeof buf, 0));
	else if (!S.frozen)
		service_route(req, path);
	/* frozen: a route through the metadata locks is read and never answered */
}

/* MC_STANDIN_SLOW_MS: an admin request answered later; a client that leaves first takes the
 * timer with it (libevent frees the request with the connection). */
struct slow {
	struct evhttp_request	*req;
	struct event		*ev;
};

static void
slow_cb(evutil_socket_t fd, short what, void *arg)
{
	struct slow *sl = arg;
	evhttp_connection_set_closecb(evhttp_request_get_connection(sl->req), NULL, NULL);
	admin_route(sl->req);
	event_free(sl->ev);
	free(sl);
}

static void
slow_closed(struct evhttp_connection *conn, void *arg)
{
	struct slow *sl = arg;
	event_free(sl->ev);
	free(sl);
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
	if (S.events != NULL) {		/* each admin request, for the tests that count them */
		char what[600];
		snprintf(what, sizeof what, "admin %.580s", evhttp_request_get_uri(req));
		event_record(what);
	}
	if (S.hang_admin)
		return;		/* accept, read, never answer */
	if (send_chunked(req))
		return;
	if (S.slow_ms > 0) {
		struct timeval tv = { S.slow_ms / 1000, (S.slow_ms % 1000) * 1000 };
		struct slow *sl = calloc(1, sizeof *sl);
		sl->req = req;
		sl->ev = evtimer_new(S.base, slow_cb, sl);
		evtimer_add(sl->ev, &tv);
		evhttp_connection_set_closecb(evhttp_request_get_connection(req), slow_closed, sl);
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
report(int starting)
{
	char buf[4096], lead[160];
	current_leader(lead, sizeof lead);
	if (S.ha && !starting && lead[0])
		glog('I', "master_admin_service.cpp:300", "Master Admin Metrics: %s, leader=%s, "
		    "view_version=%ld", summary(buf, sizeof buf, 0), lead, S.view_version);
	else
		glog('I', "master_admin_service.cpp:300", "Master Admin Metrics: %s",
		    summary(buf, sizeof buf, starting));
}

static void
report_cb(evutil_socket_t fd, short what, void *arg)
{
	report(0);
}

static void
hang_cb(evutil_socket_t fd, short what, void *arg)
{
	S.hang_admin = 1;
}

static void
freeze_cb(evutil_socket_t fd, short what, void *arg)
{
	set_frozen(1);
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
		else if (strcmp(line, "freeze") == 0)
			set_frozen(atoi(v) != 0);
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
	/* The reporting thread starts, and logs the state of the moment, before the server is up. */
	if (S.reporting) {
		struct event *ev = event_new(S.base, -1, EV_PERSIST, report_cb, NULL);
		struct timeval tv = { 10, 0 };
		report(1);
		event_add(ev, &tv);
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
	if (getenv("MC_STANDIN_HANG_ADMIN_AFTER_MS") != NULL)
		later(env_long("MC_STANDIN_HANG_ADMIN_AFTER_MS", 0), hang_cb, NULL);
	S.clients = env_long("MC_STANDIN_CLIENTS", 0);
	S.ping_t0 = mono_s();
	if (getenv("MC_STANDIN_FREEZE_AFTER_MS") != NULL)
		later(env_long("MC_STANDIN_FREEZE_AFTER_MS", 0), freeze_cb, NULL);
}

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct key *)a)->name, ((const struct key *)b)->name);
}

/* MC_STANDIN_KEYS="name=size,...": objects the store holds, as if clients had put them. */
static void
load_keys(void)
{
	const char *env = getenv("MC_STANDIN_KEYS");
	char *list, *save = NULL;
	if (env == NULL || *env == '\0')
		return;
	list = strdup(env);
	for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(k, '=');
		S.keys = realloc(S.keys, (S.nkeys + 1) * sizeof *S.keys);
		S.keys[S.nkeys].size = eq ? strtoul(eq + 1, NULL, 10) : 1024;
		if (eq)
			*eq = '\0';
		S.keys[S.nkeys++].name = strdup(k);
	}
	free(list);
	qsort(S.keys, S.nkeys, sizeof *S.keys, cmp_key);
}

/* master.cpp's "Master service started" line: the effective port and thread count, then the
 * configuration in the real master's order (booleans as 0/1, doubles as C++ prints them). */
static const char *const started_keys[] = {
	"enable_metric_reporting", "metrics_port", "metrics_host", "default_kv_lease_ttl",
	"default_kv_soft_pin_ttl", "max_kv_soft_pin_ttl", "allow_evict_soft_pinned_objects",
	"eviction_ratio", "eviction_high_watermark_ratio", "enable_ha", "enable_oplog",
	"enable_offload", "enable_kv_events", "kv_events_bind_endpoint", "kv_events_backend_id",
	"offload_on_evict", "offload_force_evict", "offloading_queue_limit", "offload_cap_ratio",
	"ha_backend_type", "ha_backend_connstring", "etcd_endpoints", "client_ttl", "rpc_thread_num",
	"rpc_port", "rpc_address", "rpc_interface", "rpc_conn_timeout_seconds",
	"rpc_enable_tcp_no_delay", "rpc protocol", "cluster_id", "root_fs_dir",
	"global_file_segment_size", "memory_allocator", "enable_http_metadata_server",
	"http_metadata_server_port", "http_metadata_server_host", "enable_metadata_cleanup_on_timeout",
	"put_start_discard_timeout_sec", "put_start_release_timeout_sec", "max_total_finished_tasks",
	"max_total_pending_tasks", "max_total_processing_tasks", "pending_task_timeout_sec",
	"processing_task_timeout_sec", "enable_snapshot", "enable_snapshot_restore",
	"snapshot_interval_seconds", "snapshot_backup_dir", "snapshot_object_store_type",
	"snapshot_catalog_store_type", "snapshot_retention_count", "max_retry_attempts", "enable_cxl",
	"cxl_path", "cxl_size", NULL
};

static void
started_line(void)
{
	char line[8192], v[64];
	long threads = atol(flag("rpc_thread_num")), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n;
	if (threads == 0)
		threads = atol(flag("max_threads")) < ncpu ? atol(flag("max_threads")) : ncpu;
	n = (size_t)snprintf(line, sizeof line, "Master service started on port %d, max_threads=%ld",
	    S.rpc_port, threads);
	for (int i = 0; started_keys[i] != NULL && n < sizeof line; i++) {
		const char *k = started_keys[i], *val;
		struct flag *f;
		for (f = flags; f->name && strcmp(f->name, k) != 0; f++)
			;
		if (strcmp(k, "rpc protocol") == 0)
			val = getenv("MC_RPC_PROTOCOL") && strcmp(getenv("MC_RPC_PROTOCOL"), "rdma") == 0 ?
			    "rdma" : "tcp";
		else if (strcmp(k, "rpc_thread_num") == 0)
			val = (snprintf(v, sizeof v, "%ld", threads), v);
		else if (strcmp(k, "rpc_port") == 0)
			val = (snprintf(v, sizeof v, "%d", S.rpc_port), v);
		else if (f->name != NULL && strcmp(f->type, "bool") == 0)
			val = flag_bool(k) ? "1" : "0";
		else if (f->name != NULL && strcmp(f->type, "double") == 0)
			val = (snprintf(v, sizeof v, "%g", strtod(f->value, NULL)), v);
		else
			val = f->name != NULL ? f->value : "";
		n += (size_t)snprintf(line + n, sizeof line - n, ", %s=%s", k, val);
	}
	glog('I', "master.cpp:1522", "%s", line);
}

int
main(int argc, char **argv)
{
	long delay;
	int query = 0;
	S.events = getenv("MC_STANDIN_EVENTS");
	/* asked for its flags or version (the sidecar's flag check): not a start of the master */
	for (int i = 1; i < argc; i++)
		query |= strcmp(argv[i], "--helpxml") == 0 || strcmp(argv[i], "--version") == 0 ||
		    strcmp(argv[i], "-helpxml") == 0 || strcmp(argv[i], "-version") == 0;
	if (!query)
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
	S.rpc_addr = flag("rpc_address");
	load_keys();
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
	if (atoi(flag("max_threads")) != 16)
		glog('W', "master.cpp:741", "max_threads is deprecated, use rpc_thread_num instead");
	if (atoi(flag("port")) != 50051)
		glog('W', "master.cpp:744", "port is deprecated, use rpc_port instead");
	if (atoi(flag("rpc_thread_num")) > 0 && atoi(flag("max_threads")) != 16)
		glog('W', "master.cpp:757", "Both rpc_thread_num and max_threads are set. Using "
		    "rpc_thread_num=%s. Please migrate to use rpc_thread_num only.", flag("rpc_thread_num"));
	if (atoi(flag("rpc_port")) > 0 && atoi(flag("port")) != 50051)
		glog('W', "master.cpp:773", "Both rpc_port and port are set. Using rpc_port=%s. Please "
		    "migrate to use rpc_port only.", flag("rpc_port"));
	started_line();

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
