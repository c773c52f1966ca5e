#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include "auth.h"
#include "httpc.h"
#include "oneshot.h"
#include "tls.h"
#include "url.h"
#include "xalloc.h"

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

int
oneshot_open(struct oneshot *o, const char *url, const char *socket, const char *token_file, const char *cacert,
    int *usage, char *err, size_t errlen)
{
	char why[512];
	memset(o, 0, sizeof *o);
	*usage = 0;
	if (token_file != NULL && auth_token_read(token_file, o->token, sizeof o->token, why, sizeof why) != 0) {
		snprintf(err, errlen, "--token-file %s", why);
		*usage = 1;
		return -1;
	}
	if (url == NULL) {
		snprintf(o->where, sizeof o->where, "%s", socket);
		if (httpc_unix(socket, &o->t) != 0) {
			snprintf(err, errlen, "%s: a socket path is at most 107 bytes", socket);
			*usage = 2;
			return -1;
		}
		return 0;
	}
	char *full = strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0 ? xstrdup(url) :
	    xasprintf("http://%s", url);
	struct url u;
	int rc = url_parse(full, &u, err, errlen);
	snprintf(o->where, sizeof o->where, "%s", full);
	free(full);
	if (rc != 0) {
		*usage = 2;
		return -1;
	}
	if (httpc_resolve(u.host, u.port, &o->t, err, errlen) != 0)
		return -1;
	o->tls = u.tls;
	snprintf(o->host, sizeof o->host, "%s", u.host);
	if (u.tls && tls_client_cred("--cacert", cacert, &o->cred, err, errlen) != 0) {
		*usage = 2;
		return -1;
	}
	return 0;
}

void
oneshot_close(struct oneshot *o)
{
	tls_client_cred_free(o->cred);
	o->cred = NULL;
	explicit_bzero(o->token, sizeof o->token);
}

char *
oneshot_call(struct oneshot *o, const char *method, const char *path, long timeout_ms, int *code, char *err,
    size_t errlen)
{
	struct event_base *base = event_base_new();
	struct httpc *c = httpc_new(base, &o->t, 1, 16 * 1024 * 1024, timeout_ms);
	struct answer a = { 0 };
	httpc_set_bearer(c, o->token);
	if (o->tls)
		httpc_set_tls(c, o->cred, o->host);
	if (strcmp(method, "GET") == 0)
		httpc_get(c, path, 0, got, &a);
	else
		httpc_request(c, method, path, NULL, "", 0, timeout_ms, got, &a);
	while (!a.done)
		event_base_loop(base, EVLOOP_ONCE);
	httpc_free(c);
	event_base_free(base);
	if (a.outcome != HTTPC_OK) {
		snprintf(err, errlen, "%.300s: %.200s", o->where, a.detail);
		return NULL;
	}
	*code = a.code;
	return a.body;
}
