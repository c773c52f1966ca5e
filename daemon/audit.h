#ifndef DAEMON_AUDIT_H
#define DAEMON_AUDIT_H
#include <stddef.h>
#include "buf.h"

/*
 * The operator's actions as recorded, a sink at the bottom of the daemon like the counters: the
 * last AUDIT_KEEP (what /status shows), how many by action, target kind and outcome (what /metrics
 * counts), and since when supervision is paused. daemon/control.c feeds it; it knows nothing else.
 */

#define AUDIT_KEEP	32

struct audit_entry {
	double	 at;		/* wall clock */
	char	 who[96];	/* "token", "basic:USER", "uid:N", "anonymous" */
	char	 action[24];
	char	 target[160];	/* "" when the verb takes none */
	char	 kind[16];	/* master, worker, gang, workers, sidecar, unknown */
	char	 outcome[16];	/* ok, noop, conflict, invalid, refused, error */
	int	 code;		/* the HTTP status answered */
	char	 message[400];
};

void	audit_record(const struct audit_entry *);
/* The i-th of the kept entries, the oldest first; NULL past the last. */
const struct audit_entry *audit_get(size_t);
/* Supervision paused (on) or resumed: since when, wall clock (0: not paused). */
void	audit_paused(int on, double wall);
double	audit_paused_since(void);
/* Its part of the view: paused (as the caller knows it), since when, the kept entries copied. */
struct view;
void	audit_view(struct view *, int paused);
/* mooncake_sidecar_control_actions_total, in Prometheus text. */
void	audit_render(struct buf *);
void	audit_free(void);
#endif
