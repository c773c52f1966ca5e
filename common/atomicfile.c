#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int
atomic_write(const char *path, const void *buf, size_t len, mode_t mode, int flags, char *err,
    size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd, rc = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fchmod(fd, mode) != 0 || write_all(fd, buf, len) != 0 || ((flags & ATOMIC_FSYNC) && fsync(fd) != 0)) {
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
mkdir_p(const char *path, mode_t mode, char *err, size_t errlen)
{
	char *p = xstrdup(path);
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
