#ifndef DAEMON_METRICS_H
#define DAEMON_METRICS_H
#include "buf.h"

enum metrics_op { OP_PROBE_RPC, OP_PROBE_METADATA, OP_PROBE_ADMIN, OP_PROXY, OP_SPAWN,
	OP_WRITE_ENDPOINTS, OP_HEALTH_CHECK, OP_COUNT };
enum metrics_status { ST_OK, ST_ERROR, ST_TIMEOUT, ST_COUNT };

struct sidecar;

void	metrics_init(void);
void	metrics_free(void);
void	metrics_observe(int, int, double);
void	metrics_http(const char *, int);
/* The sidecar's own families, in Prometheus text format. */
void	metrics_render(struct buf *, const struct sidecar *);
#endif
