/*
 * The admin server's proxy to the master: the master's GET routes forwarded with the query as the
 * client sent it, an identical GET in flight joined instead of sent again, answers up to 16 MiB
 * (504 when the master is late, 502 when it cannot be reached), /metrics with the sidecar's part
 * first, and the master's mutating routes with their bodies when admin.write_routes is on.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "admin_int.h"
#include "counters.h"
#include "prom.h"
#include "query.h"
#include "xalloc.h"

/* Every GET route of the master's admin API but /metrics (which the sidecar's own /metrics
 * carries), forwarded with the query as the client sent it. Those after the first NULL list keys,
 * segments, tenants or jobs of the whole store: debug routes, 404 unless admin.debug_routes. */
static const char *const proxied[] = {
	"/health", "/role", "/leader", "/ha_status", "/metrics/summary", "/kv_events/status", NULL,
	"/query_key", "/batch_query_keys", "/get_all_keys", "/get_all_segments", "/get_segments_detail",
	"/query_segment", "/api/v1/drain_jobs/query", "/api/v1/segments/status", "/api/v1/tenant_quotas",
	NULL
};

static const struct write_route write_routes[] = {
	{ "POST", "/api/v1/drain_jobs" },
	{ "POST", "/api/v1/drain_jobs/cancel" },
	{ "PUT", "/api/v1/tenant_quotas" },
	{ "DELETE", "/api/v1/tenant_quotas" },
	{ "POST", "/api/v1/remove_all" },
};

#define WRITE_MAX_BODY	(1024 * 1024)

const struct write_route *
adm_write_route_of(const char *method, const char *url)
{
	size_t n = strcspn(url, "?");
	for (size_t i = 0; i < sizeof write_routes / sizeof write_routes[0]; i++)
		if (strcmp(method, write_routes[i].method) == 0 && strlen(write_routes[i].path) == n &&
		    strncmp(url, write_routes[i].path, n) == 0)
			return &write_routes[i];
	return NULL;
}

/* One upstream GET and every request waiting for its answer: a request for the same path (and
 * query) that arrives while it is in flight joins it instead of sending its own, so that a
 * scrape storm costs the master one request, and no answer is older than one round trip. */
struct flight {
	struct admin		*a;
	char			*path;
	httpc_cb		 cb;		/* what each waiter does with the answer */
	struct httpc_req	*up;
	struct request		*waiters;
	struct flight		*next;
};

static void
proxy_done(const struct httpc_response *pr, void *arg)
{
	struct request *r = arg;
	struct admin *a = r->a;
	struct MHD_Response *resp;
	int code;
	char msg[512];

	counters_observe(OP_PROXY, pr->outcome == HTTPC_OK ? ST_OK :
	    pr->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR, pr->seconds);
	if (pr->outcome == HTTPC_OK) {
		code = pr->status;
		resp = adm_response(pr->content_type ? pr->content_type : "text/plain", pr->body,
		    pr->len);
		MHD_add_response_header(resp, "X-Mooncake-Sidecar-Upstream", httpc_upstream(a->proxy));
	} else {
		char *s;
		code = pr->outcome == HTTPC_TIMEOUT ? MHD_HTTP_GATEWAY_TIMEOUT : MHD_HTTP_BAD_GATEWAY;
		if (pr->outcome == HTTPC_TIMEOUT)
			snprintf(msg, sizeof msg, "the master did not answer within %ld ms",
			    a->p.cfg->admin.upstream_timeout_ms);
		else if (pr->outcome == HTTPC_TOO_LARGE)
			snprintf(msg, sizeof msg, "the master's answer is larger than %d bytes",
			    PROXY_MAX_BODY);
		else if (pr->outcome == HTTPC_BAD_RESPONSE)
			snprintf(msg, sizeof msg, "the master's admin port %s sent a bad answer: %s",
			    httpc_upstream(a->proxy), pr->detail);
		else if (pr->outcome == HTTPC_LOCAL)
			snprintf(msg, sizeof msg, "the sidecar cannot open a connection: %s", pr->detail);
		else
			snprintf(msg, sizeof msg, "cannot reach the master's admin port %s: %s",
			    httpc_upstream(a->proxy), pr->detail);
		s = adm_error_json(a, msg);
		resp = adm_response("application/json", s, strlen(s));
		free(s);
	}
	adm_resume(r, code, resp);
}

static const char *const master_label[] = { "target", "master", NULL };

static void
metrics_done(const struct httpc_response *pr, void *arg)
{
	struct request *r = arg;
	counters_observe(OP_PROXY, pr->outcome == HTTPC_OK ? ST_OK :
	    pr->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR, pr->seconds);
	/* This scrape of the master, as exporters report theirs; then the master's families, unchanged,
	 * when it answers; the sidecar's own always. */
	prom_family(&r->own, "mooncake_sidecar_upstream_scrape_duration_seconds",
	    "How long this scrape waited for the master's /metrics (admin.metrics_timeout_ms at most).", "gauge");
	prom_sample(&r->own, "mooncake_sidecar_upstream_scrape_duration_seconds", master_label, pr->seconds);
	prom_family(&r->own, "mooncake_sidecar_upstream_scrape_up",
	    "1 when this scrape got the master's /metrics (its families follow), 0 when not.", "gauge");
	prom_sample(&r->own, "mooncake_sidecar_upstream_scrape_up", master_label,
	    pr->outcome == HTTPC_OK && pr->status == 200);
	if (pr->outcome == HTTPC_OK && pr->status == 200) {
		buf_add(&r->own, pr->body, pr->len);
		if (pr->len > 0 && pr->body[pr->len - 1] != '\n')
			buf_puts(&r->own, "\n");
	}
	adm_resume(r, 200, adm_response("text/plain; version=0.0.4; charset=utf-8", r->own.p, r->own.len));
}

static void
flight_free(struct flight *f)
{
	struct flight **pp;
	for (pp = &f->a->flights; *pp != NULL && *pp != f; pp = &(*pp)->next)
		;
	if (*pp == f)
		*pp = f->next;
	free(f->path);
	free(f);
}

static void
flight_done(const struct httpc_response *pr, void *arg)
{
	struct flight *f = arg;
	struct request *r = f->waiters, *next;
	f->up = NULL;
	f->waiters = NULL;
	for (; r != NULL; r = next) {
		next = r->fnext;
		r->flight = NULL;
		r->fnext = NULL;
		f->cb(pr, r);
	}
	flight_free(f);
}

/* Send GET path upstream for r, or join the identical one in flight. */
static void
upstream_get(struct request *r, const char *path, long timeout_ms, httpc_cb cb)
{
	struct admin *a = r->a;
	struct flight *f;
	for (f = a->flights; f != NULL; f = f->next)
		if (f->cb == cb && strcmp(f->path, path) == 0)
			break;
	if (f != NULL)
		a->coalesced++;
	else {
		f = xcalloc(1, sizeof *f);
		f->a = a;
		f->path = xstrdup(path);
		f->cb = cb;
		f->next = a->flights;
		a->flights = f;
		f->up = httpc_get(a->proxy, path, timeout_ms, flight_done, f);
	}
	r->flight = f;
	r->fnext = f->waiters;
	f->waiters = r;
}

/* A waiting request whose client left: out of its flight; the last one out cancels the GET. */
void
adm_flight_leave(struct request *r)
{
	struct flight *f = r->flight;
	struct request **pp;
	if (f == NULL)
		return;
	for (pp = &f->waiters; *pp != NULL && *pp != r; pp = &(*pp)->fnext)
		;
	if (*pp == r)
		*pp = r->fnext;
	r->flight = NULL;
	if (f->waiters == NULL) {
		httpc_cancel(f->up);
		flight_free(f);
	}
}

struct query {
	struct buf	b;
	int		bad;
};

/* Forward every query argument as it came, in its order; a control character, decoded or not,
 * or a malformed escape makes the request a 400. */
static enum MHD_Result
query_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct query *q = cls;
	buf_puts(&q->b, q->b.len ? "&" : "?");
	if (query_forward(&q->b, key, klen) != 0 ||
	    (val != NULL && (buf_puts(&q->b, "="), query_forward(&q->b, val, vlen)) != 0)) {
		q->bad = 1;
		return MHD_NO;
	}
	return MHD_YES;
}

/* A request to pass on to the master: url with the query exactly as the client sent it. NULL when
 * it has been answered instead (a bad query, no master running). The caller sends it, then
 * suspends r for the answer: the request leaves before libmicrohttpd's epoll_ctl of the suspend. */
static char *
upstream_path(struct request *r, const char *url, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	struct query q = { { NULL, 0, 0 }, 0 };
	struct buf path = { NULL, 0, 0 };
	MHD_get_connection_values_n(r->conn, MHD_GET_ARGUMENT_KIND, query_arg, &q);
	if (q.bad) {
		buf_free(&q.b);
		*ret = adm_respond_error(r, MHD_HTTP_BAD_REQUEST, "control character or malformed percent-encoding in the query");
		return NULL;
	}
	struct admin_upstream u = adm_upstream(a);
	if (!u.running) {
		buf_free(&q.b);
		*ret = adm_respond_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, u.here ? "the master is not running" :
		    "no master runs on this node");
		return NULL;
	}
	buf_grow(&path, strlen(url) + q.b.len);
	buf_puts(&path, url);
	if (q.b.len > 0)
		buf_add(&path, q.b.p, q.b.len);
	buf_free(&q.b);
	*ret = MHD_YES;
	return buf_take(&path, NULL);
}

/* One of the master's routes, or /metrics: sent upstream (r suspended for the answer), or
 * answered at once when it cannot be. */
int
adm_proxy_route(struct request *r, const char *url, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	char *path;

	/* one of the master's mutating routes, with its body and Content-Type, sent once */
	if (r->write != NULL) {
		r->route = r->write->path;
		if (r->too_large) {
			*ret = adm_respond_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "bodies of the master's mutating "
			    "routes are accepted up to 1 MiB");
			return 0;
		}
		if ((path = upstream_path(r, url, ret)) != NULL) {
			r->up = httpc_request(a->proxy, r->write->method, path, MHD_lookup_connection_value(r->conn,
			    MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE), r->body.p, r->body.len, 0, proxy_done, r);
			adm_suspend(r);
		}
		free(path);
		return 0;
	}
	for (size_t i = 0; i < sizeof proxied / sizeof proxied[0]; i++) {
		if (proxied[i] == NULL && !a->p.cfg->admin.debug_routes)
			break;		/* the debug routes follow the first NULL */
		if (proxied[i] == NULL || strcmp(url, proxied[i]) != 0)
			continue;
		r->route = proxied[i];
		if ((path = upstream_path(r, url, ret)) != NULL) {
			upstream_get(r, path, 0, proxy_done);
			adm_suspend(r);
		}
		free(path);
		return 0;
	}
	if (strcmp(url, "/metrics") != 0)
		return 1;
	struct admin_answer own;
	struct admin_upstream u = adm_upstream(a);
	r->route = "/metrics";
	adm_ask(a, url, &own);
	buf_add(&r->own, own.body, own.len);
	free(own.body);
	/* A master whose admin port failed its last probe is not waited for at all. */
	if (!u.running || !u.metrics) {
		*ret = adm_respond(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", r->own.p, r->own.len);
		return 0;
	}
	upstream_get(r, "/metrics", a->p.cfg->admin.metrics_timeout_ms, metrics_done);
	adm_suspend(r);
	*ret = MHD_YES;
	return 0;
}
