#ifndef DAEMON_HALEASE_H
#define DAEMON_HALEASE_H
/*
 * An HA master's leadership as its backend holds it: Redis (0.3.12's Redis backend: the hash
 * mooncake-store/{<cluster id>}/master_view with leader_address and owner_token, under a 5 s lease),
 * or etcd (the key mooncake-store/<cluster id>/master_view, the leader's address under an etcd lease
 * it keeps alive; asked through etcd's JSON gateway). An HA master killed, or stopped (0.3.12
 * installs no signal handler under HA: SIGTERM ends it at once), leaves its lease behind, and no
 * other master can lead until it lapses. The sidecar that saw its own master die releases that
 * lease at once, as the master itself does when it steps down: on Redis only while the owner token
 * is the one the dead process held, on etcd by revoking the lease ID read while it led (never
 * reused): never a newer leader's. Every request is non-blocking, in the loop, with a deadline;
 * callbacks run from the loop.
 */
#include <event2/event.h>
#include "cfg.h"
#include "httptarget.h"

struct halease;

/* The lease of the master cfg describes (--enable_ha with --ha_backend_type redis, or etcd, the
 * default), or NULL (no HA, another backend, or its host does not resolve: err says so). Resolves the
 * backend's hosts: before the loop. */
struct halease	*halease_new(struct event_base *, const struct cfg *, char **master_args, char *err, size_t);
void		 halease_free(struct halease *);
/* The master leads (warmup or serving): learn the owner token it holds, once per process
 * (spawn counts the processes). */
void		 halease_learn(struct halease *, unsigned spawn);
/* That process has exited: release its lease if it still holds it. */
void		 halease_exited(struct halease *, unsigned spawn);
/* Who leads now, from the backend: cb(arg, leader) with "host:port", "" for none (or a master still
 * warming up), or NULL when the backend did not answer (why). */
typedef void (*halease_leader_cb)(void *, const char *leader, const char *why);
void		 halease_leader(struct halease *, halease_leader_cb, void *);
const char	*halease_self(const struct halease *);	/* this master's leader_address */

/* Switchover (POST /control/switchover): the master c, the leader, steps down (held stopped: under
 * HA 0.3.12 ends at SIGTERM at once), its lease is released, and once Redis names another leader
 * it starts again, as that leader's standby; after timeout_ms without one it starts again anyway
 * (and may lead again). Returns the HTTP status of the answer, msg saying what happens. */
struct child;
int		 halease_switchover(struct halease *, struct child *, long timeout_ms, char *msg, size_t);
int		 halease_switching(const struct halease *);	/* one runs */
/* A release is on its way (each ends within 1 s): a stop of the sidecar waits for it. */
int		 halease_releasing(const struct halease *);
/* cb(arg) once each release has ended, whatever its outcome (the daemon decides again). */
void		 halease_on_release(struct halease *, void (*)(void *), void *);
/* Its part of the view (NULL: none): the releases, how long the last took, the last failure. */
struct view;
void		 halease_view(const struct halease *, struct view *);
#endif
