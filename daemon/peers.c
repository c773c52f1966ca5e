/* Clients of the job's other sidecars (the head, gang peers, leaders asked for their address). */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "httpc.h"
#include "kvlist.h"
#include "peers.h"
#include "url.h"

struct httpc *
peers_client(const struct peers *p, const char *node, char *url, size_t len, size_t max_body,
    long timeout_ms, char *err, size_t errlen)
{
	const struct cfg *c = p->cfg;
	struct httpc_target t;
	struct httpc *h;
	struct url u;
	char why[400];
	const char *set = kvlist_get(&c->job.sidecars, node);
	if (set == NULL && strcmp(node, c->master.node) == 0 && c->master.url[0] != '\0')
		set = c->master.url;
	if (set != NULL) {
		if (url_parse(set, &u, why, sizeof why) != 0) {
			snprintf(err, errlen, "the sidecar of %s: %s", node, why);
			return NULL;
		}
		snprintf(url, len, "%s", set);
	} else {
		snprintf(u.host, sizeof u.host, "%s", node);
		u.port = (int)c->admin.port;
		u.tls = c->admin.tls_cert_file[0] != '\0';	/* the job's sidecars are configured alike */
		snprintf(url, len, strchr(u.host, ':') ? "%s://[%s]:%d" : "%s://%s:%d", u.tls ? "https" : "http",
		    u.host, u.port);
	}
	/* Before the loop runs, so a blocking lookup is allowed here. */
	if (httpc_resolve(u.host, u.port, &t, why, sizeof why) != 0) {
		snprintf(err, errlen, "the sidecar of %s at %s: %s", node, url, why);
		return NULL;
	}
	h = httpc_new(p->base, &t, 1, max_body, timeout_ms);
	httpc_set_bearer(h, p->token);	/* the job's sidecars share admin.auth */
	if (u.tls && p->cred == NULL) {
		snprintf(err, errlen, "the sidecar of %s at %s: https without credentials (master.ca_file)", node, url);
		httpc_free(h);
		return NULL;
	}
	if (u.tls)
		httpc_set_tls(h, p->cred, u.host);
	return h;
}
