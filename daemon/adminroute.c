/*
 * The admin server's routing and auth: a request from its first call (method, body, path, mutual
 * TLS and admin.auth checked) to the route that answers it: the master's (adminproxy.c) or the
 * sidecar's own, answered now or held (adminhold.c).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "admin_int.h"
#include "auth.h"
#include "clock.h"
#include "query.h"
#include "tls.h"
#include "xalloc.h"

/* A query argument of the sidecar's own routes, decoded into buf; NULL when absent or too long. */
const char *
adm_own_arg(struct request *r, const char *key, char *buf, size_t len)
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
	if (v == NULL || strlen(v) >= len)
		return NULL;
	memcpy(buf, v, strlen(v) + 1);
	query_unescape(buf);
	return buf;
}

/* A response from one of the source's answers (its body copied), with its ETag and Retry-After. */
struct MHD_Response *
adm_answer_response(const struct admin_answer *ans)
{
	struct MHD_Response *m = adm_response(ans->ctype, ans->body, ans->len);
	if (ans->etag[0] != '\0')
		MHD_add_response_header(m, MHD_HTTP_HEADER_ETAG, ans->etag);
	if (ans->retry_after != NULL)
		MHD_add_response_header(m, MHD_HTTP_HEADER_RETRY_AFTER, ans->retry_after);
	return m;
}

/* The source's answer for path: 0, or -1 when it has no such route. */
int
adm_ask(const struct admin *a, const char *path, struct admin_answer *ans)
{
	memset(ans, 0, sizeof *ans);
	ans->ctype = "text/plain; charset=utf-8";
	return a->p.source.answer(a->p.source.arg, path, ans);
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *val)
{
	struct kvlist *l = cls;
	char *k = xstrdup(key), *v = xstrdup(val ? val : "");
	(void)kind;
	query_unescape(k);
	query_unescape(v);
	if (!query_has_control(k, strlen(k)) && !query_has_control(v, strlen(v)))
		kvlist_set(l, k, v);
	free(k);
	free(v);
	return MHD_YES;
}

/* The query of a request to one of the source's routes, told to it (again: of a stream still open). */
void
adm_tell(struct request *r, const char *url, int again)
{
	struct kvlist args = { 0 };
	if (r->a->p.source.heard == NULL || MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, NULL, NULL) == 0)
		return;
	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	r->a->p.source.heard(r->a->p.source.arg, url, &args, again);
	kvlist_clear(&args);
}

/* ans, answered now; its body freed. */
enum MHD_Result
adm_answer_now(struct request *r, struct admin_answer *ans)
{
	struct MHD_Response *m = adm_answer_response(ans);
	enum MHD_Result ret;
	r->code = ans->code;
	ret = MHD_queue_response(r->conn, (unsigned)ans->code, m);
	MHD_destroy_response(m);
	free(ans->body);
	return ret;
}

enum MHD_Result
adm_busy_answer(struct request *r)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%ld long-polls are waiting already (admin.max_waiters); retry later",
	    r->a->nwaiters);
	return adm_retry_later(r, msg, 1);
}

/* One of the source's own routes: answered now, or held until its ETag differs from ?since=. */
static enum MHD_Result
own_route(struct request *r, const char *url)
{
	struct admin *a = r->a;
	struct admin_answer ans;
	char sbuf[64], tag[40];
	const char *since = adm_own_arg(r, "since", sbuf, sizeof sbuf);
	enum MHD_Result ret;
	adm_tell(r, url, 0);
	if (adm_stream_start(r, url, since, &ret) == 0)
		return ret;
	/* a long-poll for what is already known is held without an answer being made */
	if (since != NULL && a->p.source.tag(a->p.source.arg, url, tag, sizeof tag) == 0 && strcmp(since, tag) == 0) {
		r->route = r->path;
		goto held;
	}
	if (adm_ask(a, url, &ans) != 0) {
		json_t *o = json_pack("{s:s, s:s}", "error", "not found", "path", url);
		char *s = json_dumps(o, JSON_COMPACT);
		r->route = "other";
		ret = adm_respond(r, MHD_HTTP_NOT_FOUND, "application/json", s, strlen(s));
		json_decref(o);
		free(s);
		return ret;
	}
	r->route = r->path;
	if (since != NULL && ans.etag[0] != '\0' && strcmp(since, ans.etag) == 0) {
		free(ans.body);
held:
		if (a->nwaiters >= a->p.cfg->admin.max_waiters)
			return adm_busy_answer(r);
		snprintf(r->since, sizeof r->since, "%s", since);
		MHD_suspend_connection(r->conn);
		adm_hold(r, &a->waiters, 60000);
		return MHD_YES;
	}
	return adm_answer_now(r, &ans);
}

static enum MHD_Result
route(struct request *r, const char *url)
{
	enum MHD_Result ret;
	if (r->control)
		return adm_control_answer(r);
	if (adm_proxy_route(r, url, &ret) == 0)
		return ret;
	return own_route(r, url);
}

/* An error answered before the request is routed; a control route's is audited first. */
static enum MHD_Result
refuse_now(struct request *r, int code, const char *msg)
{
	adm_control_refused(r, code, msg);
	return adm_respond_error(r, code, msg);
}

static const char unauthorized_msg[] = "this route needs credentials (admin.auth): \"Authorization: Bearer "
    "<token>\" or \"Basic\" with a user of basic_auth_users";

/* A basic-auth password was checked (on the bcrypt thread): route the request, or answer 401. */
static void
basic_done(int ok, void *arg)
{
	struct request *r = arg;
	struct MHD_Response *resp = NULL;
	r->auth_req = NULL;
	if (!ok) {
		char *s = adm_error_json(r->a, unauthorized_msg);
		adm_control_refused(r, MHD_HTTP_UNAUTHORIZED, unauthorized_msg);
		resp = adm_response("application/json", s, strlen(s));
		free(s);
		adm_challenge(r->a, resp);
		r->route = "unauthorized";
	}
	adm_resume(r, ok ? 0 : MHD_HTTP_UNAUTHORIZED, resp);
}

/* admin.auth on a route that is not public: the bearer token now, a basic-auth password once the
 * bcrypt thread has checked it (or at once when it passed before). */
static enum MHD_Result
authorize(struct request *r, const char *header)
{
	char user[256], pass[512];
	int rc;
	if (r->a->p.token[0] != '\0' && auth_bearer_ok(header, r->a->p.token)) {
		snprintf(r->who, sizeof r->who, "token");
		return MHD_YES;
	}
	if (r->a->basic == NULL || auth_basic_parse(header, user, sizeof user, pass, sizeof pass) != 0) {
		adm_control_refused(r, MHD_HTTP_UNAUTHORIZED, unauthorized_msg);
		r->route = "unauthorized";
		return adm_respond_error(r, MHD_HTTP_UNAUTHORIZED, unauthorized_msg);
	}
	snprintf(r->who, sizeof r->who, "basic:%.80s", user);
	rc = basic_check(r->a->basic, user, pass, basic_done, r, &r->auth_req);
	explicit_bzero(pass, sizeof pass);
	if (rc == BASIC_OK)
		return MHD_YES;
	if (rc == BASIC_BUSY) {
		static const char busy[] = "too many passwords are being checked (admin.auth.basic_auth_users); "
		    "retry later";
		adm_control_refused(r, MHD_HTTP_SERVICE_UNAVAILABLE, busy);
		return adm_retry_later(r, busy, 0);
	}
	adm_suspend(r);
	return MHD_YES;
}

enum MHD_Result
adm_handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct request *r = *con_cls;
	const char *cl, *te;

	if (r == NULL) {
		struct admin *a = cls;
		if (a->p.cfg->admin.busy_poll_us > 0)
			a->hot = mono_now() - a->answered_at <= busy_poll_s(a);
		r = xcalloc(1, sizeof *r);
		r->a = a;
		r->conn = conn;
		r->route = "other";
		*con_cls = r;
		/* a request head over ADMIN_HEAD_MAX: 431, written here (libmicrohttpd would have too
		 * little of the connection's memory left to build any answer, and close it unanswered) */
		{
			const union MHD_ConnectionInfo *hs = MHD_get_connection_info(conn,
			    MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
			if (hs != NULL && hs->header_size > ADMIN_HEAD_MAX) {
				r->route = "other";
				return adm_head_too_large(r, hs->header_size);
			}
		}
		/* a connection let in past admin.max_connections serves the probes only */
		if (adm_conn_request(conn) && strcmp(url, "/livez") != 0 && strcmp(url, "/readyz") != 0) {
			a->conn_stats.reserve_refused++;
			r->route = "busy";
			return adm_retry_later(r, "admin.max_connections: every connection is busy; "
			    "the few past it are kept for /livez and /readyz", 0);
		}
		/* mutual TLS: a client certificate the client CA signed, on every route */
		if (r->a->p.tls->ca != NULL) {
			const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
			    MHD_CONNECTION_INFO_GNUTLS_SESSION);
			char why[300], msg[400];
			if (tls_client_verified(ci != NULL ? ci->tls_session : NULL, why, sizeof why) != 0) {
				snprintf(msg, sizeof msg, "admin.tls.client_ca_file: %s", why);
				r->route = "forbidden";
				return adm_respond_error(r, MHD_HTTP_FORBIDDEN, msg);
			}
		}
		/* the control socket's peer is who asks, trusted (only its owner can connect) */
		if ((r->local = adm_local(r))) {
			r->uid = adm_peer_uid(conn);
			snprintf(r->who, sizeof r->who, "uid:%ld", r->uid);
		}
		/* Errors answer at once (and the connection closes, as MHD does for early answers);
		 * a good request is routed on the next call, once MHD holds all of it, so that the
		 * connection stays alive. */
		if (adm_control_path(url)) {
			enum MHD_Result ret;
			r->path = xstrdup(url);
			query_unescape(r->path);
			if (adm_control_begin(r, method, &ret))
				return ret;
		} else if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
			r->write = r->a->p.cfg->admin.write_routes ? adm_write_route_of(method, url) : NULL;
			if (r->write == NULL)
				return refuse_now(r, MHD_HTTP_METHOD_NOT_ALLOWED, r->a->p.cfg->admin.write_routes ?
				    "only GET and HEAD, and the master's mutating routes with their methods" :
				    "only GET and HEAD are allowed (admin.write_routes is off)");
		}
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
		if (r->write == NULL && ((cl != NULL && strtol(cl, NULL, 10) != 0) || te != NULL))
			return refuse_now(r, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted");
		if (r->write != NULL && cl != NULL && strtoll(cl, NULL, 10) > WRITE_MAX_BODY)
			return refuse_now(r, MHD_HTTP_CONTENT_TOO_LARGE, "bodies of the master's mutating routes "
			    "are accepted up to 1 MiB");
		/* libmicrohttpd leaves the path and query as they came (see unescape()) */
		if (r->path == NULL) {
			r->path = xstrdup(url);
			query_unescape(r->path);
		}
		if (query_has_control(r->path, strlen(r->path)))
			return refuse_now(r, MHD_HTTP_BAD_REQUEST,
			    "control character or malformed percent-encoding in the path");
		if (!r->local && (r->a->p.token[0] != '\0' || r->a->basic != NULL) &&
		    (r->write != NULL || r->control || !auth_public(r->path, r->a->p.cfg->admin.public_routes)))
			return authorize(r, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			    MHD_HTTP_HEADER_AUTHORIZATION));
		return MHD_YES;
	}
	if (r->resp != NULL) {
		enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->code, r->resp);
		MHD_destroy_response(r->resp);
		r->resp = NULL;
		return ret;
	}
	if (r->shared != NULL) {
		enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->code, r->shared->resp);
		adm_shared_drop(r->shared);
		r->shared = NULL;
		return ret;
	}
	if (*upload_size != 0) {
		if (r->write != NULL && !r->too_large && r->body.len + *upload_size <= WRITE_MAX_BODY)
			buf_add(&r->body, upload_data, *upload_size);
		else if (r->write != NULL)
			r->too_large = 1;
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->up != NULL || r->wait_ev != NULL || r->auth_req != NULL)
		return MHD_YES;
	/* a request that arrives (or follows on a kept-alive connection) while the server closes is
	 * answered at once: libmicrohttpd cannot be stopped with a connection suspended */
	if (r->a->closing)
		return adm_respond_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the sidecar is stopping");
	return route(r, r->path);
}
