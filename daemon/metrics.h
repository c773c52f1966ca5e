#ifndef DAEMON_METRICS_H
#define DAEMON_METRICS_H
#include "buf.h"
#include "view.h"

/* The sidecar's own /metrics, rendered from a view (daemon/view.h) and nothing else. */
void	 render_metrics(const struct view *, struct buf *);
#endif
