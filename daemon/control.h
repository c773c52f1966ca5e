#ifndef DAEMON_CONTROL_H
#define DAEMON_CONTROL_H
#include "admin.h"

struct sidecar;

/*
 * The operator's verbs (POST /control/VERB?target=T, mooncake-sidecar ctl): restart, stop and start
 * of the master, a worker, a gang or every worker here; pause and resume of supervision; drain; reload.
 * Each is carried out at once (what follows happens on the loop, as any restart does), answered
 * with JSON, logged as one audit line, counted and kept in /status (daemon/audit.h).
 */
void	control_act(struct sidecar *, const struct admin_control *, struct admin_answer *);
/* Reopen the log files and rewrite the endpoint files on the next pass (SIGUSR1, and every reload). */
void	control_reopen(struct sidecar *);
#endif
