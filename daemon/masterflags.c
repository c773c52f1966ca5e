/*
 * The master's flags, checked against the binary before anything starts: gflags aborts a program
 * on an unknown flag or a value of the wrong type, so an extra_args written for another Mooncake
 * version would otherwise be found only as a crash loop on the head node. The binary is asked once
 * (--helpxml, --version) and its answer cached by its path, size and mtime. The argv the master
 * runs with and where its command is found are here too.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "atomicfile.h"
#include "buf.h"
#include "clock.h"
#include "gflags.h"
#include "log.h"
#include "child.h"
#include "masterflags.h"
#include "xalloc.h"

#define ASK_MS		5000		/* for each question; a gflags program answers in milliseconds */
#define ASK_MAX		(4 << 20)	/* the real master's --helpxml is 45 KB */

extern char **environ;

/* Reap pid (its process group killed first when kill_it), waiting until deadline at most: its status
 * into *st, 0; -1 when it is still there (a process in the kernel's uninterruptible sleep: left to
 * the SIGCHLD reaper). */
static int
reap_by(pid_t pid, int kill_it, double deadline, int *st)
{
	if (kill_it)
		kill(-pid, SIGKILL);
	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return r == pid ? 0 : -1;
		if (mono_now() >= deadline) {
			if (kill_it)
				return -1;
			kill(-pid, SIGKILL);	/* it closed its output but did not exit */
			kill_it = 1;
			deadline = mono_now() + 1.0;
		}
		poll(NULL, 0, 5);
	}
}

/* Run cmd with one more argument, its stdout into out (at most ASK_MAX bytes), all of it within
 * ASK_MS: the pipe is read non-blocking, and a child still there at the deadline (silent, or done
 * writing but not exiting) is killed with its process group and reaped. The exit status does not
 * matter (gflags exits 1 after --helpxml). 0, or -1 with why. */
static int
ask(char *const *cmd, const char *flag, char **envp, struct buf *out, char *why, size_t len)
{
	int p[2], st = 0, n = 0, done = 0, reaped;
	double deadline = mono_now() + ASK_MS / 1000.0;
	char **argv;
	pid_t pid;
	while (cmd[n] != NULL)
		n++;
	argv = xcalloc((size_t)n + 2, sizeof *argv);
	memcpy(argv, cmd, (size_t)n * sizeof *argv);
	argv[n] = (char *)flag;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		free(argv);
		return -1;
	}
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR);
		setpgid(0, 0);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(null, 2);
		fcntl(1, F_SETFL, 0);	/* its end blocks, as a pipe a program is given does */
		execvpe(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	free(argv);
	close(p[1]);
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(p[0]);
		return -1;
	}
	setpgid(pid, pid);	/* both sides: the kill below reaches its group whichever runs first */
	while (!done) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		int left = (int)((deadline - mono_now()) * 1000.0);
		ssize_t r;
		if (left <= 0) {
			snprintf(why, len, "it did not answer %s within %d ms", flag, ASK_MS);
			break;
		}
		if (out->len > ASK_MAX) {
			snprintf(why, len, "its answer to %s is longer than %d bytes", flag, ASK_MAX);
			break;
		}
		if (poll(&pf, 1, left) <= 0)
			continue;	/* EINTR, or the deadline: checked above */
		buf_room(out, 65536);
		if ((r = read(p[0], out->p + out->len, 65536)) > 0) {
			out->len += (size_t)r;
			out->p[out->len] = '\0';
		} else if (r == 0)
			done = 1;
		else if (errno != EINTR && errno != EAGAIN) {
			snprintf(why, len, "reading its answer to %s: %s", flag, strerror(errno));
			break;
		}
	}
	close(p[0]);
	/* its output ended: it has until the deadline to exit; otherwise, or when it was cut off, its
	 * process group is killed */
	reaped = reap_by(pid, !done, done ? deadline : mono_now() + 1.0, &st) == 0;
	if (done && (!reaped || (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))) {
		snprintf(why, len, "it did not exit within %d ms after answering %s", ASK_MS, flag);
		return -1;
	}
	if (done && WIFEXITED(st) && WEXITSTATUS(st) == 127 && out->len == 0) {
		snprintf(why, len, "it could not be run");
		return -1;
	}
	return done ? 0 : -1;
}

/* Where the answers are kept: systemd's CacheDirectory, else the user's cache directory. */
static char *
cache_file(const char *path)
{
	const char *dir = getenv("CACHE_DIRECTORY"), *home = getenv("HOME");
	char *d, *f;
	unsigned long long h = 1469598103934665603ULL;	/* FNV-1a of the binary's path */
	char err[256];
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	if (dir != NULL && *dir != '\0')
		d = xasprintf("%.*s", (int)strcspn(dir, ":"), dir);
	else if (getenv("XDG_CACHE_HOME") != NULL && getenv("XDG_CACHE_HOME")[0] == '/')
		d = xasprintf("%s/mooncake-sidecar", getenv("XDG_CACHE_HOME"));
	else if (home != NULL && home[0] == '/')
		d = xasprintf("%s/.cache/mooncake-sidecar", home);
	else
		return NULL;
	if (mkdir_p(d, 0700, err, sizeof err) != 0) {
		log_debug("the master's flags are not cached: %s", err);
		free(d);
		return NULL;
	}
	f = xasprintf("%s/master-flags-%016llx", d, h);
	free(d);
	return f;
}

/* The flags of the binary last asked or read, in this process: a reload finds them here when no
 * cache directory is writable (the shipped unit). gflags_cache_render's text, under its key. */
static char	*known;
static size_t	 known_len;

static void
remember(const struct gflags *g, const char *key)
{
	free(known);
	known = gflags_cache_render(g, key, &known_len);
}

/* The binary's flags: from this process's memory or the cache when either holds this binary, else
 * asked (and cached) when may_ask, else none (why says so). */
static int
flags_of(const struct cfg *c, const char *path, int may_ask, struct gflags *g, char *why, size_t len)
{
	struct stat st = { 0 };
	struct buf out = { 0 }, ver = { 0 };
	const struct kvlist *env[] = { &c->master.env };
	char **envp = c->master.env.n ? child_env(env, 1) : NULL, *key, *file = NULL, *text;
	size_t n;
	int rc = -1;
	/* a wrapper (["numactl", ..., "mooncake_master"]) is asked each time: its own file says nothing
	 * of the binary behind it */
	int named = c->master.command[1] == NULL && stat(path, &st) == 0;
	key = xasprintf("%s %lld %lld.%09ld", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
	    (long)st.st_mtim.tv_nsec);
	if (named && known != NULL && gflags_cache_parse(known, known_len, key, g) == 0) {
		rc = 0;
		goto out;
	}
	if (named)
		file = cache_file(path);
	if (file != NULL && (text = file_read(file, &n)) != NULL) {
		rc = gflags_cache_parse(text, n, key, g);
		free(text);
		if (rc == 0) {
			log_debug("%s: its flags from %s", path, file);
			remember(g, key);
			goto out;
		}
	}
	if (!may_ask) {
		snprintf(why, len, "%s, and a reload does not run it", !named ? "master.command is a wrapper" :
		    "this binary is not the one the sidecar asked at its start");
		goto out;
	}
	if (ask(c->master.command, "--helpxml", envp, &out, why, len) != 0 ||
	    gflags_parse(out.p ? out.p : "", out.len, g, why, len) != 0)
		goto out;
	if (ask(c->master.command, "--version", envp, &ver, why, len) == 0)
		gflags_version(ver.p ? ver.p : "", ver.len, g);
	rc = 0;
	if (named)
		remember(g, key);
	if (file != NULL) {
		char err[256];
		text = gflags_cache_render(g, key, &n);
		if (atomic_write(file, text, n, 0600, 0, err, sizeof err) != 0)
			log_debug("the master's flags are not cached: %s", err);
		free(text);
	}
out:
	buf_free(&out);
	buf_free(&ver);
	free(key);
	free(file);
	if (envp != NULL)
		strv_freev(envp);
	return rc;
}

void
master_flags_check(const struct cfg *c, int may_ask, struct strv *errs, struct strv *warns)
{
	char path[PATH_MAX], why[512], who[2 * PATH_MAX + 200];
	char **argv, **own;
	struct gflags g;
	size_t ncmd = 0, nextra = 0, nall = 0;
	if (command_path(c->master.command[0], path, sizeof path) != 0)
		return;		/* said at start, where PATH may differ */
	if (flags_of(c, path, may_ask, &g, why, sizeof why) != 0) {
		strv_pushf(warns, "master.command: cannot ask %s for its flags (%s): its arguments are not checked",
		    path, why);
		return;
	}
	snprintf(who, sizeof who, "%s%s%s at %s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
	    g.version[0] ? " " : "", g.version[0] ? g.version : " (version unknown)", path);
	/* the sidecar's own flags (between the command and extra_args), then extra_args, each under its key */
	argv = master_argv(c);
	while (c->master.command[ncmd] != NULL)
		ncmd++;
	while (c->master.extra_args[nextra] != NULL)
		nextra++;
	while (argv[nall] != NULL)
		nall++;
	own = xcalloc(nall - ncmd - nextra + 1, sizeof *own);
	memcpy(own, argv + ncmd, (nall - ncmd - nextra) * sizeof *own);
	gflags_check(&g, own, "the sidecar's own flags for the master", who, errs);
	gflags_check(&g, c->master.extra_args, "master.extra_args", who, errs);
	free(own);
	strv_freev(argv);
	gflags_free(&g);
}

char **
master_argv(const struct cfg *cfg)
{
	struct strv sv = { 0 };
	for (char **a = cfg->master.command; *a != NULL; a++)
		strv_push(&sv, *a);
	strv_pushf(&sv, "--rpc_port=%ld", cfg->master.rpc_port);
	if (cfg->master.http_metadata_port != 0) {
		strv_push(&sv, "--enable_http_metadata_server=true");
		strv_pushf(&sv, "--http_metadata_server_port=%ld", cfg->master.http_metadata_port);
	}
	strv_push(&sv, "--enable_metric_reporting=true");
	strv_pushf(&sv, "--metrics_port=%ld", cfg->master.metrics_port);
	for (char **a = cfg->master.extra_args; *a != NULL; a++)
		strv_push(&sv, *a);
	return sv.v;
}

int
command_path(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;
	if (strchr(cmd, '/') != NULL) {
		snprintf(out, len, "%s", cmd);
		return access(cmd, X_OK) == 0 ? 0 : -1;
	}
	copy = xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *dir ? dir : ".", cmd);
		found = access(out, X_OK) == 0;
	}
	free(copy);
	return found ? 0 : -1;
}
