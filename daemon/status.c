/* --status: a one-shot client on a loop of its own (it never runs inside the daemon's loop), with
 * the daemon's HTTP client. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <event2/event.h>
#include <jansson.h>
#include "httpc.h"
#include "log.h"
#include "auth.h"
#include "status.h"
#include "tls.h"
#include "url.h"
#include "xalloc.h"

#define STATUS_TIMEOUT_MS	3000

struct answer {
	int	 done, outcome, code;
	char	*body;
	char	 detail[400];
};

static void
got(const struct httpc_response *r, void *arg)
{
	struct answer *a = arg;
	a->done = 1;
	a->outcome = r->outcome;
	a->code = r->status;
	if (r->outcome == HTTPC_OK)
		a->body = xstrdup(r->body);
	snprintf(a->detail, sizeof a->detail, "%s", r->detail);
}

static char *
http_get(const char *url, const char *path, const char *token, const char *cacert, int *code, char *err,
    size_t errlen)
{
	struct event_base *base;
	struct httpc_target t;
	struct httpc *c;
	struct answer a = { 0 };
	struct url u;
	void *cred = NULL;
	char *full = strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0 ? xstrdup(url) :
	    xasprintf("http://%s", url);
	int rc = url_parse(full, &u, err, errlen);
	free(full);
	if (rc != 0 || httpc_resolve(u.host, u.port, &t, err, errlen) != 0)
		return NULL;
	if (u.tls && tls_client_cred("--cacert", cacert, &cred, err, errlen) != 0)
		return NULL;
	base = event_base_new();
	c = httpc_new(base, &t, 1, 16 * 1024 * 1024, STATUS_TIMEOUT_MS);
	httpc_set_bearer(c, token);
	if (u.tls)
		httpc_set_tls(c, cred, u.host);
	httpc_get(c, path, 0, got, &a);
	while (!a.done)
		event_base_loop(base, EVLOOP_ONCE);
	httpc_free(c);
	event_base_free(base);
	tls_client_cred_free(cred);
	if (a.outcome != HTTPC_OK) {
		snprintf(err, errlen, "%.300s: %.200s", t.name, a.detail);
		return NULL;
	}
	*code = a.code;
	return a.body;
}

static const char *
str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

int
status_main(const char *url, const char *token_file, const char *cacert)
{
	char err[512], token[4097] = "";
	int code = 0;
	char *body;

	if (token_file != NULL && auth_token_read(token_file, token, sizeof token, err, sizeof err) != 0) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar --status: --token-file %s", err);
		return EX_USAGE;
	}
	body = http_get(url, "/status", token, cacert, &code, err, sizeof err);
	json_t *root, *m, *w;
	json_error_t je;
	size_t i;

	if (body == NULL) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar --status: %s", err);
		return EX_UNAVAILABLE;
	}
	root = json_loads(body, 0, &je);
	free(body);
	if (code == 401) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar --status: %s/status answered HTTP 401: it wants a bearer "
		    "token (--token-file FILE)%s", url, token[0] ? ", and not the one given" : "");
		json_decref(root);
		return EX_NOPERM;
	}
	if (code != 200 || root == NULL) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar --status: %s/status answered HTTP %d%s", url, code,
		    root ? "" : " without JSON");
		json_decref(root);
		return EX_UNAVAILABLE;
	}
	m = json_object_get(root, "master");
	int ready = json_is_true(json_object_get(root, "ready"));
	printf("%s mooncake-sidecar %s on %s (job %s), up %.0f s\n", ready ? "●" : "○",
	    str(root, "version"), str(root, "node"), str(root, "job_id"),
	    json_number_value(json_object_get(root, "uptime_s")));
	if (!ready && json_is_string(json_object_get(root, "ready_reason")))
		printf("   %s\n", str(root, "ready_reason"));
	if (json_is_object(m)) {
		json_t *ports = json_object_get(m, "ports"), *le = json_object_get(m, "last_exit");
		printf("   master: %s", str(m, "state"));
		if (json_integer_value(json_object_get(m, "pid")) > 0)
			printf(", pid %" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(m, "pid")));
		printf(", %" JSON_INTEGER_FORMAT " restarts",
		    json_integer_value(json_object_get(m, "restarts")));
		if (json_is_string(json_object_get(m, "ready_since")))
			printf(", ready since %s", str(m, "ready_since"));
		printf("\n");
		if (json_is_string(json_object_get(m, "reason")) && *str(m, "reason"))
			printf("   reason: %s\n", str(m, "reason"));
		if (json_is_object(le))
			printf("   last exit: %s %" JSON_INTEGER_FORMAT "\n",
			    json_object_get(le, "code") ? "code" : "signal",
			    json_integer_value(json_object_get(le, "code") ? json_object_get(le, "code") :
			    json_object_get(le, "signal")));
		if (json_is_object(ports))
			printf("   ports: rpc %" JSON_INTEGER_FORMAT ", metadata %" JSON_INTEGER_FORMAT
			    ", admin %" JSON_INTEGER_FORMAT "\n",
			    json_integer_value(json_object_get(ports, "rpc")),
			    json_integer_value(json_object_get(ports, "metadata")),
			    json_integer_value(json_object_get(ports, "admin")));
	} else
		printf("   master: not on this node\n");
	w = json_object_get(root, "workers");
	if (json_array_size(w) > 0) {
		json_t *e;
		printf("   %-28s %-8s %-9s %8s %8s %-20s %s\n", "WORKER", "ROLE", "STATE", "PID", "RESTARTS",
		    "CUDA_VISIBLE_DEVICES", "HEALTH");
		json_array_foreach(w, i, e) {
			json_t *h = json_object_get(e, "health");
			printf("   %-28s %-8s %-9s %8" JSON_INTEGER_FORMAT " %8" JSON_INTEGER_FORMAT " %-20s %s%s%s\n",
			    str(e, "name"), str(e, "role"), str(e, "state"),
			    json_integer_value(json_object_get(e, "pid")),
			    json_integer_value(json_object_get(e, "restarts")),
			    str(e, "cuda_visible_devices"), str(h, "check"), *str(h, "last") ? ": " : "",
			    str(h, "last"));
		}
	}
	w = json_object_get(root, "gangs");
	if (json_array_size(w) > 0) {
		json_t *e;
		printf("   %-28s %-12s %10s %8s %-9s %s\n", "GANG", "LEADER", "GENERATION", "RESTARTS", "STATE",
		    "LAST CAUSE");
		json_array_foreach(w, i, e)
			printf("   %-28s %-12s %10" JSON_INTEGER_FORMAT " %8" JSON_INTEGER_FORMAT " %-9s %s\n",
			    str(e, "name"), str(e, "leader"), json_integer_value(json_object_get(e, "generation")),
			    json_integer_value(json_object_get(e, "restarts")), str(e, "state"), str(e, "last_cause"));
	}
	json_decref(root);
	return ready ? 0 : 3;
}
