/*
 * A supervised process's output, kept by daemon/childlog.c for daemon/child.c (one module: nothing
 * else includes this): its log file with rotation, and the tail kept for messages.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "child.h"
#include "child_int.h"
#include "log.h"

static long long log_max_bytes = 64LL * 1024 * 1024;
static int log_keep = 5;

void
child_log_rotation(long long max_bytes, int keep)
{
	log_max_bytes = max_bytes;
	log_keep = keep;
}

void
childlog_open(struct child *c)
{
	struct stat st;
	if (c->log_fd >= 0)
		close(c->log_fd);
	c->log_fd = open(c->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (c->log_fd < 0)
		log_warn("%s: cannot open log %s: %s", c->name, c->log_path, strerror(errno));
	c->log_size = c->log_fd >= 0 && fstat(c->log_fd, &st) == 0 ? (long long)st.st_size : 0;
}

/* name.log.<keep-1> -> .<keep>, ..., name.log -> name.log.1, and a new name.log: the sidecar owns
 * the pipe, so no line is lost or split between two processes. With keep 0 the log starts over. */
static void
rotate_log(struct child *c)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	for (int k = log_keep - 1; k >= 1; k--) {
		snprintf(from, sizeof from, "%s.%d", c->log_path, k);
		snprintf(to, sizeof to, "%s.%d", c->log_path, k + 1);
		(void)rename(from, to);
	}
	if (log_keep > 0) {
		snprintf(to, sizeof to, "%s.1", c->log_path);
		if (rename(c->log_path, to) != 0)
			log_warn("%s: cannot rotate %s: %s", c->name, c->log_path, strerror(errno));
	} else if (c->log_fd >= 0 && ftruncate(c->log_fd, 0) != 0)
		log_warn("%s: cannot truncate %s: %s", c->name, c->log_path, strerror(errno));
	childlog_open(c);
}

void
child_reopen_log(struct child *c)
{
	childlog_open(c);
}

void
childlog_tail_add(struct child *c, const char *p, size_t n)
{
	if (n >= CHILD_TAIL) {
		p += n - CHILD_TAIL;
		n = CHILD_TAIL;
	}
	if (c->tail_len + n > CHILD_TAIL) {
		size_t drop = c->tail_len + n - CHILD_TAIL;
		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, p, n);
	c->tail_len += n;
}

static void
log_put(struct child *c, const char *p, size_t n)
{
	if (n > 0 && c->log_fd >= 0 && write(c->log_fd, p, n) < 0)
		log_debug("%s: log write: %s", c->name, strerror(errno));
	c->log_size += (long long)n;
}

/* Append to the log; past log.max_bytes, rotate after the last whole line, so that every file
 * starts with a line of its own (a chunk without a newline goes whole, then the rotation). */
void
childlog_write(struct child *c, const char *p, size_t n)
{
	const char *nl;
	if (log_max_bytes <= 0 || c->log_size + (long long)n < log_max_bytes) {
		log_put(c, p, n);
		return;
	}
	nl = memrchr(p, '\n', n);
	if (nl == NULL) {
		log_put(c, p, n);
		rotate_log(c);
		return;
	}
	log_put(c, p, (size_t)(nl + 1 - p));
	rotate_log(c);
	log_put(c, nl + 1, n - (size_t)(nl + 1 - p));
}

void
childlog_tail(struct child *c, int lines)
{
	const char *end = c->tail + c->tail_len, *p = end;
	if (c->tail_len == 0) {
		log_err("%s: it wrote nothing to %s", c->name, c->log_path);
		return;
	}
	if (p > c->tail && p[-1] == '\n')
		p--;
	for (int n = 0; p > c->tail && n < lines; n += (*p == '\n'))
		p--;
	if (*p == '\n')
		p++;
	log_err("%s: last lines of %s:", c->name, c->log_path);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		log_err("%s: | %.*s", c->name, (int)(len > 400 ? 400 : len), p);
		p += len + 1;
	}
}

