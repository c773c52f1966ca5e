#ifndef DAEMON_CHILD_H
#define DAEMON_CHILD_H
#include "backoff.h"
#include <sys/types.h>
#include <event2/event.h>
#include "cfg.h"
#include "lifecycle.h"

/* The states are the lifecycle table's (common/lifecycle.h), which decides every transition. */
enum child_state { CHILD_STOPPED = LC_STOPPED, CHILD_STARTING = LC_STARTING, CHILD_READY = LC_READY,
	CHILD_BACKOFF = LC_BACKOFF, CHILD_STOPPING = LC_STOPPING, CHILD_FATAL = LC_FATAL, CHILD_NSTATES = LC_NSTATES };

struct child;
struct child_ops {
	int	(*prepare)(struct child *, char *, size_t);	/* -1: do not spawn, why */
	void	(*spawned)(struct child *);		/* a new process runs: start probing */
	void	(*changed)(struct child *, int);	/* after every transition (old state) */
	void	(*output)(struct child *, const char *, size_t);	/* what it wrote, as read */
};

#define CHILD_TAIL	8192

struct child {
	char			*name;
	char			**argv;
	char			**envp;		/* NULL: the sidecar's own environment */
	char			*log_path;
	char			*pid_path;	/* NULL: no pid file */
	const struct restart_cfg *restart;
	long			 stop_timeout_ms;
	struct event_base	*base;
	const struct child_ops	*ops;
	void			*arg;

	int			 state;		/* enum child_state: lc.state, for its readers */
	struct lc		 lc;		/* the state and what it remembers (lifecycle.h) */
	pid_t			 pid;
	int			 log_fd;
	long long		 log_size;	/* bytes in log_path, for rotation */
	int			 pipe_fd;
	struct event		*pipe_ev;
	struct event		*timer;		/* backoff, or SIGKILL after the stop timeout */
	int			 timer_fd;	/* the backoff's timerfd, or -1 */
	int			 managed;	/* a gang member: its gang decides each restart */
	int			 yield;		/* give the CPU to the new process right after its start */
	long			 gang_delay_ms;	/* its gang restarts it after this long */
	unsigned		 restarts;	/* spawns after the first */
	unsigned		 spawns;
	unsigned		 failures;	/* consecutive, for the backoff */
	long			 backoff_ms;
	int			 last_code, last_signal;	/* -1 when none */
	double			 spawned_at, ready_at, state_at;	/* monotonic */
	double			 ready_wall;
	double			 ready_seconds;	/* from the last spawn to ready, the last time it was */
	struct burst		 burst;		/* the last restart.burst start times */
	char			 reason[1024];
	char			 tail[CHILD_TAIL];
	size_t			 tail_len;
};

void		 child_init(struct child *, struct event_base *, const char *, char **, char **,
		     const char *, const char *, const struct restart_cfg *, long,
		     const struct child_ops *, void *);
void		 child_free(struct child *);
void		 child_start(struct child *);
void		 child_ready(struct child *);
void		 child_fail(struct child *, const char *);
/* A gang member (managed): its own exit or failure leaves it stopped ("its gang decides"); the gang
 * restarts it with child_restart_in: a running process is stopped first, and it starts delay_ms
 * after it has exited (or after now, when it is not running). */
void		 child_restart_in(struct child *, const char *, long);
void		 child_stop(struct child *, int);
/* The operator's verbs (POST /control/...): a restart now (stopped first if it runs; its backoff
 * and burst start afresh; paused or not), a stop that holds it stopped until child_start. */
void		 child_restart_asked(struct child *, const char *);
void		 child_hold(struct child *);
int		 child_held(const struct child *);
/* Supervision paused (maintenance): nothing is restarted, stopped for a failure or backed off;
 * child_resume starts what ended meanwhile. */
void		 child_pause(int);
int		 child_paused(void);
void		 child_resume(void);
void		 child_reopen_log(struct child *);
/* Rotate each child's log when it reaches max_bytes (0: never), keeping name.log.1 .. name.log.keep. */
void		 child_log_rotation(long long, int);
int		 child_running(const struct child *);
/* It is being stopped for good (child_stop): its exit is no failure. */
int		 child_shutting_down(const struct child *);
const char	*child_state_name(int);
/* Every supervised child, in creation order. */
size_t		 child_list(struct child ***);
/* Reap every exited child and hand each status to its owner. */
void		 child_reap(void);
/* Build "KEY=value" vectors: the sidecar's environment with the list applied over it. */
char		**child_env(const struct kvlist *const *, size_t);
/* What the sidecar's own environment, which every child inherits, takes of the kernel's ARG_MAX. */
size_t		 child_environ_bytes(void);
/* Is pid a process that escaped a child's group and was re-parented to the sidecar (a subreaper)? */
int	child_is_orphan(pid_t);
/* Send sig to every such process; returns how many. */
size_t	child_signal_orphans(int);
#endif
