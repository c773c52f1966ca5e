/*
 * One supervised process, carrying out what common/lifecycle.c decides: spawned in its own process
 * group (clone with a pipe for its output, PDEATHSIG), its output logged with rotation and a tail
 * kept for messages, stopped with SIGTERM then SIGKILL, restarted after its backoff, and every pid
 * the sidecar ever started tracked so that nothing is orphaned. Over 600 lines: the spawn, the log
 * and the timers all act on the one struct child and its state, and read best together.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <dirent.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>
#include "atomicfile.h"
#include "backoff.h"
#include "child.h"
#include "child_int.h"
#include "clock.h"
#include "log.h"
#include "counters.h"
#include "xalloc.h"

#define DRAIN_BUDGET	(64 * 1024)	/* bytes of a child's output read per loop turn */
#define DRAIN_AT_EXIT	(1024 * 1024)	/* after its exit (an escaped grandchild may still write) */

extern char **environ;

/* Every live child, for dispatching SIGCHLD by pid. */
static struct child **children;
static size_t nchildren;
/* supervision paused by the operator (POST /control/pause): see struct lc_ctx */
static int paused;

static void apply(struct child *, int, const char *);
static void backoff_cb(evutil_socket_t, short, void *);
static void timer_clear(struct child *);
static void set_state(struct child *, int, const char *, ...) __attribute__((format(printf, 3, 4)));

const char *
child_state_name(int s)
{
	return lc_state_name(s);
}

int
child_running(const struct child *c)
{
	return c->pid > 0;
}

static void
set_state(struct child *c, int st, const char *fmt, ...)
{
	int old = c->state;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof c->reason, fmt, ap);
	va_end(ap);
	c->state = c->lc.state = st;
	c->state_at = mono_now();
	if (old != st)
		log_msg(st == CHILD_FATAL ? LOG_LVL_ERR : LOG_LVL_NOTICE, "%s: %s -> %s%s%s", c->name,
		    lc_state_name(old), lc_state_name(st), c->reason[0] ? ": " : "", c->reason);
	if (c->ops->changed != NULL)
		c->ops->changed(c, old);
}

void
child_init(struct child *c, struct event_base *base, const char *name, char **argv, char **envp,
    const char *log_path, const char *pid_path, const struct restart_cfg *restart, long stop_ms,
    const struct child_ops *ops, void *arg)
{
	memset(c, 0, sizeof *c);
	c->base = base;
	c->name = xstrdup(name);
	c->argv = argv;
	c->envp = envp;
	c->log_path = xstrdup(log_path);
	c->pid_path = pid_path ? xstrdup(pid_path) : NULL;
	c->restart = restart;
	c->stop_timeout_ms = stop_ms;
	c->ops = ops;
	c->arg = arg;
	c->log_fd = c->pipe_fd = c->timer_fd = -1;
	c->last_code = c->last_signal = -1;
	c->state_at = mono_now();
	childlog_open(c);
	children = xrealloc(children, (nchildren + 1) * sizeof *children);
	children[nchildren++] = c;
}

void
child_free(struct child *c)
{
	for (size_t i = 0; i < nchildren; i++)
		if (children[i] == c) {
			memmove(children + i, children + i + 1, (nchildren - i - 1) * sizeof *children);
			nchildren--;
			break;
		}
	if (nchildren == 0) {
		free(children);
		children = NULL;
	}
	if (c->pipe_ev != NULL)
		event_free(c->pipe_ev);
	timer_clear(c);
	if (c->pipe_fd >= 0)
		close(c->pipe_fd);
	if (c->log_fd >= 0)
		close(c->log_fd);
	strv_freev(c->argv);
	strv_freev(c->envp);
	burst_free(&c->burst);
	free(c->name);
	free(c->log_path);
	free(c->pid_path);
}

/* Copy what the child wrote to its log file; returns 0 at EOF or error. */
static int
drain(struct child *c, size_t budget)
{
	char buf[16384];
	/* A budget per loop turn: a child writing as fast as it can must not hold the loop. The event
	 * is level-triggered, so what is left is read on the next turn. */
	for (size_t done = 0; done < budget; ) {
		ssize_t r = read(c->pipe_fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN;
		if (r == 0)
			return 0;
		done += (size_t)r;
		childlog_tail_add(c, buf, (size_t)r);
		childlog_write(c, buf, (size_t)r);
		if (c->ops->output != NULL)
			c->ops->output(c, buf, (size_t)r);
	}
	return 1;
}

static void
close_pipe(struct child *c)
{
	if (c->pipe_ev != NULL) {
		event_free(c->pipe_ev);
		c->pipe_ev = NULL;
	}
	if (c->pipe_fd >= 0) {
		close(c->pipe_fd);
		c->pipe_fd = -1;
	}
}

static void
pipe_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	if (!drain(c, DRAIN_BUDGET))
		close_pipe(c);
}

static void
timer_clear(struct child *c)
{
	if (c->timer != NULL) {
		event_free(c->timer);
		c->timer = NULL;
	}
	if (c->timer_fd >= 0) {
		close(c->timer_fd);
		c->timer_fd = -1;
	}
}

static void
timer_set(struct child *c, event_callback_fn fn, long ms)
{
	struct timeval tv = ms_tv(ms);
	timer_clear(c);
	c->timer = evtimer_new(c->base, fn, c);
	evtimer_add(c->timer, &tv);
}

/* The restart backoff runs on a timerfd: libevent's own timers wait in epoll_wait, whose timeout
 * is whole milliseconds rounded up, and a restart is due at its backoff, not up to 1 ms later. The
 * stop timeout needs no such precision. After a death (now), a backoff of 0 is an event made
 * active at once: it runs in this loop pass, after the events already active (the reconcile step
 * that marks the endpoint files not ready, which the caller's state change has queued), not a loop
 * pass later. A start that failed before its process existed waits for the next pass instead, so
 * that failing starts never keep the loop from everything else. */
static void
backoff_set(struct child *c, long ms, int now)
{
	struct itimerspec its = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000000L } };
	timer_clear(c);
	if (ms <= 0 && now) {
		c->timer = evtimer_new(c->base, backoff_cb, c);
		event_active(c->timer, EV_TIMEOUT, 0);
		return;
	}
	if (ms > 0 && (c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) >= 0) {
		if (timerfd_settime(c->timer_fd, 0, &its, NULL) == 0) {
			c->timer = event_new(c->base, c->timer_fd, EV_READ, backoff_cb, c);
			event_add(c->timer, NULL);
			return;
		}
		close(c->timer_fd);
		c->timer_fd = -1;
	}
	timer_set(c, backoff_cb, ms);
}

static void
backoff_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	timer_clear(c);
	apply(c, LC_BACKOFF_DONE, NULL);
}

/* sig to the child's process group; before the child's setsid() has run there is no such group
 * (ESRCH), and the signal goes to the child itself instead of being lost. */
static void
signal_child(const struct child *c, int sig)
{
	if (kill(-c->pid, sig) != 0 && errno == ESRCH)
		kill(c->pid, sig);
}

static void
kill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	timer_clear(c);
	if (c->pid > 0) {
		log_warn("%s: pid %ld still running %ld ms after SIGTERM; sending SIGKILL", c->name,
		    (long)c->pid, c->stop_timeout_ms);
		signal_child(c, SIGKILL);
	}
}

/*
 * The new process, from clone(CLONE_VM | CLONE_VFORK) on a stack of its own: it shares the
 * sidecar's memory until it execs (the sidecar waits, with every signal blocked), so it only makes
 * system calls, and copies nothing of the sidecar's address space the way fork would. Its own
 * session and process group; SIGKILL when the sidecar dies, and not at all if it already has;
 * default dispositions and an empty mask; stdin /dev/null, stdout and stderr the log pipe; no other
 * descriptor.
 */
struct spawn_args {
	const struct child	*c;
	int			 out;
	pid_t			 parent;
};

/* Every descriptor from 3 up, without allocating (close_range, else the /proc listing read with
 * getdents64 into a buffer on this stack). */
static void
close_from_3(void)
{
	char buf[1024];
	long n;
	int dir;
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	if ((dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			struct { unsigned long long ino; long long off; unsigned short reclen; unsigned char type;
			    char name[]; } *d = (void *)(buf + off);
			int fd = atoi(d->name);
			if (fd >= 3 && fd != dir)
				close(fd);
			off += d->reclen;
		}
	close(dir);
}

__attribute__((no_sanitize("address")))
static int
spawn_main(void *arg)
{
	const struct spawn_args *a = arg;
	struct sigaction dfl;
	sigset_t none;
	int null;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &dfl, NULL);
	setsid();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(1);
	null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(a->out, STDOUT_FILENO);
	dup2(a->out, STDERR_FILENO);
	close_from_3();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvpe(a->c->argv[0], a->c->argv, a->c->envp ? a->c->envp : environ);
	dprintf(STDERR_FILENO, "mooncake-sidecar: cannot run %s: %s\n", a->c->argv[0], strerror(errno));
	_exit(127);
}

/* Start the process (signals blocked by the caller); its pid, or -1 with errno. */
static pid_t
spawn(const struct child *c, int out, pid_t parent)
{
	static _Alignas(64) char stack[64 * 1024];
	struct spawn_args a = { c, out, parent };
	return clone(spawn_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
}

/* Start its process: SPAWNED once it exists, SPAWN_FAILED with why when it could not be started. */
static void
spawn_process(struct child *c)
{
	char why[256];
	int pfd[2];
	sigset_t all, old;
	pid_t parent = getpid(), pid;
	double now = mono_now();

	c->ready_at = 0;
	if (c->ops->prepare != NULL && c->ops->prepare(c, why, sizeof why) != 0) {
		log_err("%s: not starting: %s", c->name, why);
		apply(c, LC_SPAWN_FAILED, why);
		return;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(why, sizeof why, "pipe: %s", strerror(errno));
		apply(c, LC_SPAWN_FAILED, why);
		return;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = spawn(c, pfd[1], parent);
	sigprocmask(SIG_SETMASK, &old, NULL);
	counters_observe(OP_SPAWN, pid < 0 ? ST_ERROR : ST_OK, mono_now() - now);
	close(pfd[1]);
	if (pid < 0) {
		snprintf(why, sizeof why, "clone: %s", strerror(errno));
		close(pfd[0]);
		apply(c, LC_SPAWN_FAILED, why);
		return;
	}
	/* The new process runs where the sidecar ran, and its exec woke the sidecar, which the kernel
	 * then runs first: its own follow-up (the pid file, log lines, STATUS=, the first probe round)
	 * would delay the dynamic linking of a master everything waits for by about 0.15 ms here. */
	if (c->yield)
		sched_yield();
	c->pid = pid;
	c->spawned_at = now;
	c->tail_len = 0;
	if (c->spawns++ > 0)
		c->restarts++;
	c->pipe_fd = pfd[0];
	evutil_make_socket_nonblocking(c->pipe_fd);
	c->pipe_ev = event_new(c->base, c->pipe_fd, EV_READ | EV_PERSIST, pipe_cb, c);
	event_add(c->pipe_ev, NULL);
	if (c->pid_path != NULL) {
		char buf[32], err[256];
		int n = snprintf(buf, sizeof buf, "%ld\n", (long)pid);
		if (atomic_write(c->pid_path, buf, (size_t)n, 0644, 0, err, sizeof err) != 0)
			log_warn("%s: %s", c->name, err);
	}
	log_info("%s: started pid %ld: %s%s", c->name, (long)pid, c->argv[0],
	    c->argv[1] ? " ..." : "");
	apply(c, LC_SPAWNED, NULL);
}

static void
send_stop(struct child *c, int now)
{
	if (now || c->stop_timeout_ms == 0) {
		signal_child(c, SIGKILL);
		timer_clear(c);
		return;
	}
	signal_child(c, SIGTERM);
	timer_set(c, kill_cb, c->stop_timeout_ms);
}

/* The new state's words: what the table says happened, with this child's details. */
static void
enter(struct child *c, int state, int why, const char *d)
{
	char last[sizeof c->reason];
	const char *w = d ? d : "";
	switch (why) {
	case LC_WHY_PID:
		set_state(c, state, "pid %ld", (long)c->pid);
		break;
	case LC_WHY_READY:
		set_state(c, state, "pid %ld ready after %.3f s", (long)c->pid, c->ready_at - c->spawned_at);
		break;
	case LC_WHY_BURST:
		snprintf(last, sizeof last, "%s", c->reason);
		set_state(c, state, "more than %ld starts in %ld ms; not restarting (last: %s)", c->restart->burst,
		    c->restart->burst_window_ms, last);
		break;
	case LC_WHY_NOT_STARTED:
	case LC_WHY_RESTARTING:
		set_state(c, state, "%s; restarting in %ld ms", w, c->backoff_ms);
		break;
	case LC_WHY_GANG_DELAY:
		if (c->lc.asked)	/* the operator's restart */
			set_state(c, state, "%s; starting again now", w);
		else
			set_state(c, state, "%s; restarting in %ld ms with its gang", w, c->backoff_ms);
		break;
	case LC_WHY_GANG_DECIDES:
		set_state(c, state, "%s; its gang decides", w);
		break;
	case LC_WHY_POLICY:
		set_state(c, state, "%s; restart policy %s", w, cfg_policy_name(c->restart->policy));
		break;
	case LC_WHY_SHUTDOWN:
		set_state(c, state, "shutting down");
		break;
	case LC_WHY_PAUSED:
		set_state(c, state, "%s; not restarted: supervision is paused", w);
		break;
	case LC_WHY_ASKED:
		if (state == CHILD_BACKOFF)
			set_state(c, state, "%s; starting now", w);
		else
			set_state(c, state, "%s", w);
		break;
	case LC_WHY_HELD:
		set_state(c, state, "stopped by the operator%s%s", d ? ": " : "", w);
		break;
	default:	/* LC_WHY_FAILED, LC_WHY_EXIT, LC_WHY_GANG: the detail as it is */
		set_state(c, state, "%s", w);
		break;
	}
}

/* One event through the lifecycle table (common/lifecycle.c), and its actions carried out: the
 * state change first (it queues the reconcile step, so that the endpoint files are marked not
 * ready ahead of a backoff of 0), then the timers and signals, then a spawn. */
static void
apply(struct child *c, int ev, const char *detail)
{
	double now = mono_now();
	struct lc_ctx ctx = { c->restart->policy, c->managed, c->pid > 0,
		burst_exceeded(&c->burst, now, c->restart->burst_window_ms), paused };
	struct lc_actions a;
	c->lc.state = c->state;
	lc_next(&c->lc, ev, &ctx, &a);
	if (a.cancel_timer)
		timer_clear(c);
	if (a.backoff == LC_BACKOFF_OWN) {
		/* doubling from the initial delay, reset after a healthy run */
		if (backoff_reset_due(c->ready_at, now, c->restart->reset_after_ms))
			c->failures = 0;
		c->failures++;
		c->backoff_ms = backoff_delay(c->restart->backoff_initial_ms, c->restart->backoff_max_ms, c->failures);
	} else if (a.backoff == LC_BACKOFF_GANG)
		c->backoff_ms = c->gang_delay_ms;
	if (a.why == LC_WHY_READY) {
		c->ready_at = now;
		c->ready_wall = wall_now();
		c->ready_seconds = c->ready_at - c->spawned_at;
	}
	if (a.why != LC_WHY_NONE)
		enter(c, c->lc.state, a.why, detail);
	/* A longer backoff runs from now: the reconcile step overlaps it instead of adding to it. A
	 * start that failed before its process existed waits for the next loop pass. */
	if (a.backoff != LC_BACKOFF_NONE)
		backoff_set(c, c->backoff_ms, ev != LC_SPAWN_FAILED);
	if (a.term || a.kill)
		send_stop(c, a.kill);
	if (a.record_start)
		burst_record(&c->burst, (unsigned)c->restart->burst, now);
	if (a.spawn)
		spawn_process(c);
	if (ev == LC_SPAWNED && c->state == CHILD_STARTING) {
		if (c->ops->spawned != NULL)
			c->ops->spawned(c);
		else
			apply(c, LC_PROBED_READY, NULL);	/* nothing to probe: running is ready */
	}
}

void
child_start(struct child *c)
{
	apply(c, LC_START, NULL);
}

void
child_ready(struct child *c)
{
	apply(c, LC_PROBED_READY, NULL);
}

void
child_fail(struct child *c, const char *why)
{
	apply(c, LC_FAIL, why);
}

void
child_restart_in(struct child *c, const char *why, long delay_ms)
{
	c->gang_delay_ms = delay_ms;
	apply(c, LC_GANG_RESTART, why);
}

void
child_restart_asked(struct child *c, const char *why)
{
	/* the operator's restart starts afresh: no backoff, no burst carried over */
	c->failures = 0;
	burst_free(&c->burst);
	c->gang_delay_ms = 0;
	apply(c, LC_RESTART, why);
}

void
child_hold(struct child *c)
{
	apply(c, LC_HOLD, NULL);
}

int
child_held(const struct child *c)
{
	return c->lc.held;
}

void
child_pause(int on)
{
	paused = on;
}

int
child_paused(void)
{
	return paused;
}

void
child_resume(void)
{
	paused = 0;
	for (size_t i = 0; i < nchildren; i++)
		if (children[i]->lc.paused_out && children[i]->state == CHILD_STOPPED)
			child_start(children[i]);
}

void
child_stop(struct child *c, int now)
{
	apply(c, now ? LC_STOP_NOW : LC_STOP, NULL);
}

int
child_shutting_down(const struct child *c)
{
	return c->lc.shutting_down;
}

static void
describe_exit(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
}

static void
child_exited(struct child *c, int status)
{
	char how[128];
	double now = mono_now();
	int was = c->state;

	/* Whatever the process left in its group goes with it. */
	kill(-c->pid, SIGKILL);
	if (c->pipe_fd >= 0)
		drain(c, DRAIN_AT_EXIT);
	close_pipe(c);
	timer_clear(c);
	if (c->pid_path != NULL)
		unlink(c->pid_path);
	describe_exit(status, how, sizeof how);
	c->last_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	c->last_signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
	log_msg(c->lc.shutting_down ? LOG_LVL_NOTICE : LOG_LVL_WARN, "%s: pid %ld %s after %.3f s",
	    c->name, (long)c->pid, how, now - c->spawned_at);
	c->pid = 0;
	if (was == CHILD_STARTING)
		childlog_tail(c, 20);

	apply(c, WIFEXITED(status) && WEXITSTATUS(status) == 0 ? LC_EXITED : LC_DIED, how);
}

size_t
child_list(struct child ***list)
{
	*list = children;
	return nchildren;
}

void
child_reap(void)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		size_t i;
		for (i = 0; i < nchildren; i++)
			if (children[i]->pid == pid)
				break;
		if (i < nchildren)
			child_exited(children[i], status);
		else
			log_debug("reaped orphan pid %ld", (long)pid);
	}
}

static int
tracked(pid_t pid)
{
	for (size_t i = 0; i < nchildren; i++)
		if (children[i]->pid == pid)
			return 1;
	return 0;
}

/* Our parent-less descendants: the sidecar is a subreaper, so a process that escaped its group
 * (setsid, double fork) and outlived its parent is now a child of ours that no child struct tracks. */
int
child_is_orphan(pid_t pid)
{
	char path[64], buf[512], *p = NULL, state = 'Z';
	FILE *f;
	long ppid = -1;
	if (pid <= 0 || tracked(pid))
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof buf, f) != NULL && (p = strrchr(buf, ')')) != NULL)
		sscanf(p + 2, "%c %ld", &state, &ppid);
	fclose(f);
	return ppid == (long)getpid() && state != 'Z';
}

size_t
child_signal_orphans(int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char *end, comm[64] = "?", path[64];
		long pid = strtol(de->d_name, &end, 10);
		FILE *f;
		if (*end != '\0' || pid <= 0 || !child_is_orphan((pid_t)pid))
			continue;
		snprintf(path, sizeof path, "/proc/%ld/comm", pid);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(comm, sizeof comm, f) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		log_warn("escaped process pid %ld (%s) outlived its parent: %s", pid, comm,
		    sig == SIGKILL ? "SIGKILL" : "SIGTERM");
		kill((pid_t)pid, sig);
		n++;
	}
	closedir(d);
	return n;
}

size_t
child_environ_bytes(void)
{
	size_t n = 0;
	for (char **e = environ; *e != NULL; e++)
		n += strlen(*e) + 1 + sizeof *e;
	return n;
}

char **
child_env(const struct kvlist *const *lists, size_t nlists)
{
	struct strv sv = { 0 };
	for (char **e = environ; *e != NULL; e++) {
		size_t klen = strcspn(*e, "=");
		int overridden = 0;
		for (size_t l = 0; l < nlists && !overridden; l++)
			for (size_t i = 0; i < lists[l]->n && !overridden; i++)
				overridden = strlen(lists[l]->v[i].key) == klen &&
				    strncmp(lists[l]->v[i].key, *e, klen) == 0;
		if (!overridden)
			strv_push(&sv, *e);
	}
	/* Later lists win over earlier ones. */
	for (size_t l = 0; l < nlists; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			int later = 0;
			for (size_t m = l + 1; m < nlists && !later; m++)
				for (size_t k = 0; k < lists[m]->n && !later; k++)
					later = strcmp(lists[m]->v[k].key, lists[l]->v[i].key) == 0;
			if (!later)
				strv_pushf(&sv, "%s=%s", lists[l]->v[i].key, lists[l]->v[i].value);
		}
	if (sv.v == NULL)
		sv.v = xcalloc(1, sizeof(char *));
	return sv.v;
}
