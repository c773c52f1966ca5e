#ifndef COMMON_STALL_H
#define COMMON_STALL_H
#include <stddef.h>

/*
 * Whether a running master is stalled under its metadata locks (Mooncake #3395: a mass client
 * expiry sweeps the table under the shards' write locks and the RPC layer freezes while /health
 * stays green and the RPC port keeps accepting). Two signs, from two checks the daemon runs:
 *  - the lock probe, a request that takes a shard lock (/batch_query_keys), unanswered for longer
 *    than its timeout;
 *  - the master's own counters: master_ping_requests_total not moving over the window while
 *    master_active_clients says clients are there to ping (they ping every second).
 * Pure: times in seconds, as the daemon's monotonic clock counts them.
 */

struct stall_in {
	double	 now;
	double	 probe_since;	/* the lock probe in flight was sent then (0: none in flight) */
	double	 probe_timeout;	/* seconds it may take */
	double	 flat_since;	/* the ping counter has not moved since then, with clients (0: it moves) */
	double	 window;	/* seconds it may stay flat */
	double	 restart_after;	/* seconds stalled before the master is restarted (0: never) */
};

struct stall_out {
	int	 stalled;
	double	 since;		/* when the stall began (the sign that came first) */
	int	 restart;	/* stalled long enough: restart it now */
	char	 why[300];	/* "the lock probe (/batch_query_keys) has not answered for 2.1 s" */
};

void	stall_check(const struct stall_in *, struct stall_out *);

/* The value of a sample without labels, "name value", in Prometheus text; 0 with *v, -1 when the
 * text holds none. */
int	stall_metric(const char *, size_t, const char *, double *);
#endif
