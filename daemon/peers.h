#ifndef DAEMON_PEERS_H
#define DAEMON_PEERS_H
#include <stddef.h>
#include <event2/event.h>
#include "cfg.h"

struct httpc;

/* What it takes to reach the job's other sidecars: their addresses (job.sidecars, master.url, the
 * admin port), admin.auth's token, and the credentials for https (master.ca_file). */
struct peers {
	struct event_base	*base;
	const struct cfg	*cfg;
	const char		*token;		/* "" without admin.auth */
	void			*cred;		/* https to other sidecars, or NULL */
};

/* A client of node's sidecar (the token sent with each request): job.sidecars' entry for it, else
 * master.url for the master's node when it is set, else node at this node's admin port; its URL
 * into url. Resolved here (blocking: before the loop). NULL with err naming it. */
struct httpc	*peers_client(const struct peers *, const char *node, char *url, size_t len, size_t max_body,
		    long timeout_ms, char *err, size_t errlen);
#endif
