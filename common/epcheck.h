#ifndef COMMON_EPCHECK_H
#define COMMON_EPCHECK_H
#include <stddef.h>
#include "url.h"

/* What a follower takes from the head sidecar's /endpoints, once checked against the schema the head
 * writes. */
struct ep_view {
	long long	 generation;		/* 1 .. 2^31-1 */
	int		 ready;
	char		 instance[40];		/* the head's run ("" from a head that does not say) */
	char		 job_id[256];		/* the head's job */
	char		 rpc_host[URL_HOST_MAX];
	int		 rpc_port;
	char		 meta_host[URL_HOST_MAX];	/* "" when the master has no metadata server */
	int		 meta_port;
	char		 entry[512];		/* master.client_address when it is an HA entry (has "://"), or "" */
};

/* Check the head's endpoints.json: "generation" a positive 32-bit integer, "ready" a boolean,
 * "job_id" a string, "master" with "rpc" HOST:PORT, "metadata_url" null or http://HOST:PORT/metadata,
 * "admin_url" an http URL, "pid" null or a positive integer, "restarts" a non-negative integer;
 * "instance" (optional) up to 32 hex digits; "master.client_address" (optional) a string
 * of up to 511 bytes without control characters. Returns 0, or -1 with err naming the field. */
int	epcheck(const char *, size_t, struct ep_view *, char *, size_t);
#endif
