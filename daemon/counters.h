#ifndef DAEMON_COUNTERS_H
#define DAEMON_COUNTERS_H
#include "buf.h"

/*
 * The counters sink, at the bottom of the daemon: any file may feed it (an operation's duration and
 * outcome, an admin request's route and status) and it knows nothing of who does. /metrics renders
 * it with the rest.
 */

enum counters_op { OP_PROBE_RPC, OP_PROBE_METADATA, OP_PROBE_ADMIN, OP_PROXY, OP_SPAWN,
	OP_WRITE_ENDPOINTS, OP_HEALTH_CHECK, OP_PROBE_LOCK, OP_COUNT };
enum counters_status { ST_OK, ST_ERROR, ST_TIMEOUT, ST_COUNT };

void	counters_free(void);
void	counters_observe(int, int, double);
void	counters_http(const char *, int);
/* Their families in Prometheus text: the operations' histogram and totals; the HTTP requests. */
void	counters_render_ops(struct buf *);
void	counters_render_http(struct buf *);
#endif
