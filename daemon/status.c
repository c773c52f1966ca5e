/* --status and ctl status: GET /status of a running sidecar, summed up. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <event2/event.h>
#include <jansson.h>
#include "log.h"
#include "oneshot.h"
#include "status.h"

#define STATUS_TIMEOUT_MS	3000

static const char *
str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

int
status_main(const char *url, const char *token_file, const char *cacert)
{
	struct oneshot o;
	char err[512];
	int usage, rc;
	if (oneshot_open(&o, url, NULL, token_file, cacert, &usage, err, sizeof err) != 0) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar --status: %s", err);
		return usage == 1 ? EX_USAGE : EX_UNAVAILABLE;
	}
	rc = status_show(&o, "mooncake-sidecar --status");
	oneshot_close(&o);
	return rc;
}

int
status_show(struct oneshot *o, const char *who)
{
	char err[512];
	int code = 0;
	char *body = oneshot_call(o, "GET", "/status", STATUS_TIMEOUT_MS, &code, err, sizeof err);
	json_t *root, *m, *w, *ctl;
	json_error_t je;
	size_t i;

	if (body == NULL) {
		log_print(LOG_LVL_ERR, "%s: %s", who, err);
		return EX_UNAVAILABLE;
	}
	root = json_loads(body, 0, &je);
	free(body);
	if (code == 401) {
		log_print(LOG_LVL_ERR, "%s: %s/status answered HTTP 401: it wants a bearer "
		    "token (--token-file FILE)%s", who, o->where, o->token[0] ? ", and not the one given" : "");
		json_decref(root);
		return EX_NOPERM;
	}
	if (code != 200 || root == NULL) {
		log_print(LOG_LVL_ERR, "%s: %s/status answered HTTP %d%s", who, o->where, code,
		    root ? "" : " without JSON");
		json_decref(root);
		return EX_UNAVAILABLE;
	}
	ctl = json_object_get(root, "control");
	m = json_object_get(root, "master");
	int ready = json_is_true(json_object_get(root, "ready"));
	printf("%s mooncake-sidecar %s on %s (job %s), up %.0f s\n", ready ? "●" : "○",
	    str(root, "version"), str(root, "node"), str(root, "job_id"),
	    json_number_value(json_object_get(root, "uptime_s")));
	if (!ready && json_is_string(json_object_get(root, "ready_reason")))
		printf("   %s\n", str(root, "ready_reason"));
	if (json_is_true(json_object_get(ctl, "paused")))
		printf("   supervision PAUSED (mooncake-sidecar ctl resume): nothing is restarted\n");
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
