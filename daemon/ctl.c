/*
 * mooncake-sidecar ctl: one POST /control/VERB?target=T, its answer printed, and with --wait a poll
 * of /status every 100 ms until the target is back (or stopped, or the drain ended). Exit codes:
 * 0 done, 64 usage, 65 invalid (unknown target, an invalid configuration to reload), 69 the sidecar
 * cannot be reached, 75 busy (409) or --wait timed out, 77 not allowed (401, 403), 70 otherwise.
 */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <jansson.h>
#include "buf.h"
#include "cfg.h"
#include "clock.h"
#include "ctl.h"
#include "log.h"
#include "oneshot.h"
#include "query.h"
#include "status.h"
#include "xalloc.h"

#define CTL_TIMEOUT_MS		10000
#define CTL_POLL_MS		100
#define CTL_DEFAULT_CONFIG	"/etc/mooncake-sidecar/sidecar.json"
#define CTL_DEFAULT_WAIT_S	120

static const char *const verbs[] = { "restart", "stop", "start", "pause", "resume", "reload", "drain", "switchover",
	"status", NULL };

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: mooncake-sidecar ctl VERB [TARGET] [--wait[=SECONDS]] [-c FILE] [--socket PATH | --url URL]\n"
	    "                            [--token-file FILE] [--cacert FILE]\n"
	    "  VERB:   restart, stop, start (TARGET: master, workers, worker:NAME, gang:NAME for restart),\n"
	    "          pause, resume, reload, drain, switchover (on the HA leader's sidecar), status\n"
	    "  --wait  until the target is ready again (stopped, the drain ended, another leader serves);\n"
	    "          exit 75 when it is not\n"
	    "          within SECONDS (default %d)\n", CTL_DEFAULT_WAIT_S);
}

/* Where the control socket is: --socket, else the configuration's admin.control_socket. */
static int
socket_of(const char *path, int given, char *out, size_t len)
{
	struct cfg c;
	struct strv errs = { 0 };
	FILE *f = fopen(path, "r");
	int rc = 0;
	/* a socket path is resolved even when the job is not; no configuration here: the defaults' */
	if (f == NULL && !given)
		(void)cfg_load_string("{}", NULL, &c, &errs);
	else
		(void)cfg_load_file(path, NULL, &c, &errs);
	if (f != NULL)
		fclose(f);
	if (c.admin.control_socket == NULL || c.admin.control_socket[0] != '/') {
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: %s: %s", path, errs.n ? errs.v[0] :
		    "admin.control_socket is off: use --url with --token-file");
		rc = -1;
	} else
		snprintf(out, len, "%s", c.admin.control_socket);
	cfg_free(&c);
	strv_free(&errs);
	return rc;
}

static int
exit_for(int code)
{
	if (code >= 200 && code < 300)
		return 0;
	if (code == 401 || code == 403)
		return EX_NOPERM;
	if (code == 400 || code == 404 || code == 422)
		return EX_DATAERR;
	if (code == 409 || code == 503)
		return EX_TEMPFAIL;
	return EX_SOFTWARE;
}

static json_t *
get_status(struct oneshot *o)
{
	char err[512];
	int code = 0;
	char *b = oneshot_call(o, "GET", "/status", CTL_TIMEOUT_MS, &code, err, sizeof err);
	json_t *j = b != NULL && code == 200 ? json_loads(b, 0, NULL) : NULL;
	free(b);
	return j;
}

/* The target's processes in /status: [{name, state, pid, restarts}], for --wait. */
static json_t *
members(json_t *st, const char *target)
{
	json_t *out = json_array(), *e;
	size_t i;
	if (strcmp(target, "master") == 0) {
		json_t *m = json_object_get(st, "master");
		if (json_is_object(m))
			json_array_append_new(out, json_pack("{s:s, s:O, s:O, s:O}", "name", "master", "state",
			    json_object_get(m, "state"), "pid", json_object_get(m, "pid"), "restarts",
			    json_object_get(m, "restarts")));
		return out;
	}
	if (strncmp(target, "gang:", 5) == 0) {
		json_array_foreach(json_object_get(st, "gangs"), i, e)
			if (json_is_string(json_object_get(e, "name")) &&
			    strcmp(json_string_value(json_object_get(e, "name")), target + 5) == 0)
				json_array_append_new(out, json_pack("{s:s, s:O, s:i, s:O}", "name", target + 5, "state",
				    json_object_get(e, "state"), "pid", 0, "restarts", json_object_get(e, "restarts")));
		return out;
	}
	json_array_foreach(json_object_get(st, "workers"), i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n == NULL || (strncmp(target, "worker:", 7) == 0 && strcmp(n, target + 7) != 0))
			continue;
		json_array_append_new(out, json_pack("{s:s, s:O, s:O, s:O}", "name", n, "state",
		    json_object_get(e, "state"), "pid", json_object_get(e, "pid"), "restarts",
		    json_object_get(e, "restarts")));
	}
	return out;
}

static const char *
sget(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* Is what --wait waits for there? *why: what is not yet. */
static int
arrived(const char *verb, const char *target, json_t *before, json_t *st, char *why, size_t len)
{
	json_t *now, *e;
	size_t i;
	int ok = 1;
	if (strcmp(verb, "drain") == 0) {
		const char *d = sget(json_object_get(st, "drain"), "state");
		snprintf(why, len, "the drain is %s", d);
		return strcmp(d, "listing") != 0 && strcmp(d, "creating") != 0 && strcmp(d, "running") != 0;
	}
	if (strcmp(verb, "switchover") == 0) {
		json_t *sw = json_object_get(json_object_get(json_object_get(st, "master"), "ha"), "switchover");
		const char *state = sget(sw, "state");
		if (strcmp(state, "done") != 0) {
			snprintf(why, len, "the switchover is %s%s%s", state[0] ? state : "not in /status",
			    sget(sw, "message")[0] ? ": " : "", sget(sw, "message"));
			return 0;
		}
		snprintf(why, len, "%s (%s)", sget(sw, "message"), sget(st, "ready_reason"));
		return json_is_true(json_object_get(st, "ready"));	/* the new leader serves */
	}
	if (strcmp(verb, "reload") == 0 || target == NULL) {
		snprintf(why, len, "%s", sget(st, "ready_reason"));
		return json_is_true(json_object_get(st, "ready"));
	}
	now = members(st, target);
	if (json_array_size(now) == 0) {
		snprintf(why, len, "%s is not in /status", target);
		ok = 0;
	}
	json_array_foreach(now, i, e) {
		const char *s = sget(e, "state");
		json_t *b = json_array_get(before, i);
		int fresh = b == NULL || json_integer_value(json_object_get(e, "restarts")) >
		    json_integer_value(json_object_get(b, "restarts")) || (json_integer_value(json_object_get(e, "pid")) > 0 &&
		    json_integer_value(json_object_get(e, "pid")) != json_integer_value(json_object_get(b, "pid")));
		int there = strcmp(verb, "stop") == 0 ? strcmp(s, "stopped") == 0 || strcmp(s, "fatal") == 0 :
		    strcmp(s, "ready") == 0 && (strcmp(verb, "restart") != 0 || fresh);
		if (!there && ok) {
			snprintf(why, len, "%s is %s", sget(e, "name"), s);
			ok = 0;
		}
	}
	json_decref(now);
	return ok;
}

static int
wait_for(struct oneshot *o, const char *verb, const char *target, json_t *before, double seconds)
{
	double until = mono_now() + seconds, t0 = mono_now();
	char why[600] = "no answer from /status";
	for (;;) {
		json_t *st = get_status(o);
		int done = st != NULL && arrived(verb, target, before, st, why, sizeof why);
		json_decref(st);
		if (done) {
			printf("done after %.3f s\n", mono_now() - t0);
			return 0;
		}
		if (mono_now() >= until) {
			log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: not done within %.0f s: %s", seconds, why);
			return EX_TEMPFAIL;
		}
		struct timespec ts = { 0, CTL_POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static void
print_answer(int code, json_t *a)
{
	json_t *e;
	size_t i;
	const char *msg = sget(a, code < 300 ? "message" : "error");
	if (code < 300)
		printf("%s: %s%s%s%s\n", sget(a, "outcome"), msg, sget(a, "state")[0] ? " (state: " : "",
		    sget(a, "state"), sget(a, "state")[0] ? ")" : "");
	else
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: HTTP %d: %s", code, msg[0] ? msg : "no message");
	json_array_foreach(json_object_get(a, "errors"), i, e)
		log_print(LOG_LVL_ERR, "  %s", json_string_value(e));
	json_array_foreach(json_object_get(a, "needs_restart"), i, e)
		log_print(LOG_LVL_ERR, "  needs a restart of the sidecar: %s", json_string_value(e));
	json_array_foreach(json_object_get(a, "restarted"), i, e)
		printf("  restarted: %s\n", json_string_value(e));
}

int
ctl_main(int argc, char **argv)
{
	enum { OPT_WAIT = 256, OPT_SOCKET, OPT_URL, OPT_TOKEN_FILE, OPT_CACERT };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "wait", optional_argument, NULL, OPT_WAIT },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "url", required_argument, NULL, OPT_URL },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "cacert", required_argument, NULL, OPT_CACERT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *config = CTL_DEFAULT_CONFIG, *sock = NULL, *url = NULL, *token = NULL, *cacert = NULL;
	const char *verb, *target = NULL;
	char sockbuf[CFG_SOCKET_PATH_MAX], err[600];
	double wait_s = -1;
	int opt, config_given = 0, known = 0, usage_err, code = 0, rc;
	struct oneshot o;
	struct buf path = { 0 };
	json_t *before = NULL, *ans;
	char *body;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; config_given = 1; break;
		case OPT_WAIT:
			wait_s = optarg ? strtod(optarg, NULL) : CTL_DEFAULT_WAIT_S;
			if (wait_s <= 0) {
				log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: --wait takes a number of seconds > 0");
				return EX_USAGE;
			}
			break;
		case OPT_SOCKET: sock = optarg; break;
		case OPT_URL: url = optarg; break;
		case OPT_TOKEN_FILE: token = optarg; break;
		case OPT_CACERT: cacert = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EX_USAGE;
		}
	}
	if (optind >= argc || optind + 2 < argc) {
		usage(stderr);
		return EX_USAGE;
	}
	verb = argv[optind];
	target = optind + 1 < argc ? argv[optind + 1] : NULL;
	for (int i = 0; verbs[i] != NULL; i++)
		known |= strcmp(verb, verbs[i]) == 0;
	if (!known) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: no verb \"%s\" (restart, stop, start, pause, resume, "
		    "reload, drain, status)", verb);
		return EX_USAGE;
	}
	if (sock != NULL && url != NULL) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: --socket or --url, not both");
		return EX_USAGE;
	}
	if (url == NULL && sock == NULL) {
		if (socket_of(config, config_given, sockbuf, sizeof sockbuf) != 0)
			return EX_CONFIG;
		sock = sockbuf;
	}
	if (oneshot_open(&o, url, sock, token, cacert, &usage_err, err, sizeof err) != 0) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: %s", err);
		return usage_err ? EX_USAGE : EX_UNAVAILABLE;
	}
	if (strcmp(verb, "status") == 0) {
		rc = status_show(&o, "mooncake-sidecar ctl");
		oneshot_close(&o);
		return rc;
	}
	if (wait_s > 0 && target != NULL) {
		json_t *st = get_status(&o);
		before = st ? members(st, target) : NULL;
		json_decref(st);
	}
	buf_printf(&path, "/control/%s", verb);
	if (target != NULL) {
		buf_puts(&path, "?target=");
		query_escape(&path, target);
	}
	body = oneshot_call(&o, "POST", path.p, CTL_TIMEOUT_MS, &code, err, sizeof err);
	buf_free(&path);
	if (body == NULL) {
		log_print(LOG_LVL_ERR, "mooncake-sidecar ctl: %s", err);
		json_decref(before);
		oneshot_close(&o);
		return EX_UNAVAILABLE;
	}
	ans = json_loads(body, 0, NULL);
	free(body);
	print_answer(code, ans);
	rc = exit_for(code);
	if (rc == 0 && wait_s > 0 && strcmp(verb, "pause") != 0)
		rc = wait_for(&o, verb, target, before, wait_s);
	json_decref(ans);
	json_decref(before);
	oneshot_close(&o);
	return rc;
}
