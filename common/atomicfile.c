#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomicfile.h"
#include "xalloc.h"

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What a temporary name is made of: this process's pid and 48 random bits, drawn once per process
 * (a fork draws again), then counted up: unique across processes and nodes that share a directory,
 * without a system call per file. */
static struct {
	pid_t			 pid;
	unsigned long long	 next;
	mode_t			 umask;
} names;

static void
names_init(void)
{
	unsigned char r[6];
	pid_t pid = getpid();
	if (names.pid == pid)
		return;
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		for (size_t i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)(random() >> 8);
	names.pid = pid;
	names.next = 0;
	for (size_t i = 0; i < sizeof r; i++)
		names.next = names.next << 8 | r[i];
	names.umask = umask(022);
	umask(names.umask);
}

int
atomic_write(const char *path, const void *buf, size_t len, mode_t mode, int flags, char *err,
    size_t errlen)
{
	char *tmp = NULL;
	int fd = -1, rc = -1;

	/* A name nobody else uses, created here and now: never an existing file, never through a
	 * symbolic link (two nodes with the same pid may share a run directory). */
	names_init();
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		free(tmp);
		tmp = xasprintf("%s.tmp.%ld.%012llx", path, (long)names.pid, names.next++ & 0xffffffffffffULL);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", tmp, strerror(errno));
		goto out;
	}
	/* the mode asked for, whatever the umask took away (a fchmod only when it took something) */
	if (((mode & names.umask) != 0 && fchmod(fd, mode) != 0) || write_all(fd, buf, len) != 0 ||
	    ((flags & ATOMIC_FSYNC) && fsync(fd) != 0)) {
		snprintf(err, errlen, "write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		snprintf(err, errlen, "rename %s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (flags & ATOMIC_FSYNC_DIR)
		fsync_dir(path);
	rc = 0;
out:
	free(tmp);
	return rc;
}

void
fsync_dir(const char *path)
{
	char *copy = xstrdup(path);
	int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(copy);
}

int
dir_safe(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1);
	if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: a symbolic link to nothing: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", path);
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "%s: owned by uid %ld, not by this user (uid %ld) or root: another user "
		    "could replace the files in it", path, (long)st.st_uid, (long)geteuid());
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen, "%s: writable by %s without the sticky bit (mode %04o): another user could "
		    "replace the files in it", path, st.st_mode & S_IWOTH ? "everyone" : "its group",
		    (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int
mkdir_p(const char *path, mode_t mode, char *err, size_t errlen)
{
	char *p;
	/* Mostly it is there already (every publish of the endpoint files asks): one call then. */
	if (mkdir(path, mode) == 0 || errno == EEXIST)
		return 0;
	p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, mode) != 0 && errno != EEXIST) {
				snprintf(err, errlen, "mkdir %s: %s", p, strerror(errno));
				free(p);
				return -1;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return 0;
}

char *
file_read(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return buf;
}

char *
file_read_at(int dirfd, const char *name, size_t max, int flags, size_t *lenp)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
	    (flags & FILE_NOFOLLOW ? O_NOFOLLOW : 0));
	struct stat st;
	size_t n = 0;
	char *buf;
	int err;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_size >= 0 && (size_t)st.st_size > max)) {
		err = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		close(fd);
		errno = err;
		return NULL;
	}
	buf = xmalloc(max + 2);
	for (;;) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			free(buf);
			close(fd);
			errno = err;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			close(fd);
			errno = EFBIG;
			return NULL;
		}
	}
	close(fd);
	buf[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return buf;
}

const char *
file_read_error(int err, size_t max, char *buf, size_t len)
{
	if (err == EINVAL)
		snprintf(buf, len, "not a regular file");
	else if (err == EFBIG)
		snprintf(buf, len, "larger than %zu bytes", max);
	else if (err == ELOOP)
		snprintf(buf, len, "a symbolic link");
	else
		snprintf(buf, len, "%s", strerror(err));
	return buf;
}
