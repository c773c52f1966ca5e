#ifndef DAEMON_MASTERHA_H
#define DAEMON_MASTERHA_H
/* What a master says of its HA, and what follows for clients: the role, leader and phase of its
 * /health (common/mhealth.c), whether the leader it names as a standby serves (a connect to its RPC
 * port), and what its log says of its snapshots and of a promotion it refuses. One per master
 * process the sidecar runs; the master's probes feed it, daemon/master.c acts on it. */
#include <stddef.h>
#include <event2/event.h>
#include "httpc.h"
#include "url.h"

/* How long a probe of a master that is not ready yet, or of the leader a standby names, may take. */
#define READINESS_PROBE_TIMEOUT_MS	1000

/* An HA leader's snapshots, from its log, over every process the sidecar started. */
struct master_snapshots {
	unsigned long	 ok, failed;
	unsigned	 failing_for;	/* failed in a row since the last that persisted */
	double		 last_ok;	/* wall clock; 0: none */
	char		 last_error[300];	/* of the last failure, while failing */
};

/* HA (--enable_ha): what its /health last said and what follows for clients. */
struct master_ha {
	int		 on;
	int		 answered;	/* it runs and answered /health with its HA state */
	int		 phase;		/* enum mh_phase */
	const char	*ha_state;	/* its own word ("serving", "leader_warmup", "standby", ...) */
	double		 phase_s;	/* in that phase for */
	const char	*leader;	/* the leader it names, "" none */
	int		 leader_serving;	/* a standby: that leader's RPC port accepts */
	const char	*leader_detail;	/* the last answer of that leader's RPC port */
	const char	*problem;	/* what its log says keeps it from serving, or NULL */
	int		 serving_leader;	/* a leader serves: itself, or the one it names */
	struct master_snapshots snap;
	/* master.snapshot: what the running process's restore came to (its log) */
	int		 restore;	/* MH_RESTORE_*: NONE not said (yet) */
	const char	*restore_what;	/* the snapshot restored, or the last unusable one and why */
	unsigned	 restore_unusable;	/* candidates it could not use */
	double		 restore_keys;	/* restored: its master_key_count at the first reading once ready; <0 not read */
};

struct mha {
	struct event_base	*base;
	const char		*name;		/* the child's, for the log */
	void			(*changed)(void *);	/* something shown changed */
	void			*arg;
	int			 on;		/* --enable_ha */
	char			 role[16];
	char			 leader[URL_HOST_MAX + 8];
	int			 phase;
	char			 ha_state[24];
	double			 phase_since;
	struct httpc		*leader_h;
	char			 leader_h_for[URL_HOST_MAX + 8];
	struct httpc_req	*leader_req;
	double			 leader_asked;
	int			 leader_serving;
	char			 leader_detail[400];
	char			 problem[300];	/* what its log says keeps it from serving, or "" */
	char			 line[512];	/* its log line by line */
	size_t			 line_len;
	struct master_snapshots	 snap;
	char			 snap_why[300];	/* the child's reason, until its parent says it failed */
	int			(*verify)(void *, const char *id, char *why, size_t);	/* a snapshot said persisted */
	void			*verify_arg;
	int			 restore;
	char			 restore_what[300];
	unsigned		 restore_unusable;
	double			 restore_keys;
};

void	 mha_init(struct mha *, struct event_base *, const char *name, int on, void (*changed)(void *), void *);
void	 mha_free(struct mha *);
/* A new process: what the last one said is dropped, except the problem and the snapshots. */
void	 mha_spawned(struct mha *);
/* The process is gone or starting again: its role, leader and phase go with it. */
void	 mha_forget(struct mha *, int keep_problem);
/* Its /health answer: returns whether the master can be pointed at (under HA: it answered with its
 * state; without: ready itself, or a standby naming a leader). said: a change is logged. */
int	 mha_health(struct mha *, const char *body, size_t len, int said);
/* A standby: ask its leader's RPC port, at most every 200 ms. */
void	 mha_leader_probe(struct mha *);
/* A chunk of its output: returns 1 when a line says its HA state changed (ask /health now). */
int	 mha_output(struct mha *, const char *, size_t);
int	 mha_standby(const struct mha *);
/* Its first /metrics answer once ready: a restored master's key count is kept from it. */
void	 mha_first_metrics(struct mha *, const char *body, size_t len);
void	 mha_get(const struct mha *, int answered, struct master_ha *);
#endif
