#ifndef COMMON_ATOMICFILE_H
#define COMMON_ATOMICFILE_H
#include <stddef.h>
#include <sys/types.h>

/* Replace path with buf so that a reader sees the old or the new content, never a mix:
 * temp file in the same directory, write, fsync, rename, fsync the directory (each fsync when
 * its flag is given). Returns 0, or -1 with err filled. */
#define ATOMIC_FSYNC		1
#define ATOMIC_FSYNC_DIR	2
int	atomic_write(const char *, const void *, size_t, mode_t, int, char *, size_t);
/* fsync a file's directory, so that renames into it are durable. */
void	fsync_dir(const char *);
/* Is an existing directory safe to write endpoint files in: a directory (or a link to one) owned
 * by this user or root, and not group- or world-writable unless sticky? A missing one is (it is
 * created). Returns 0, or -1 with err saying why not. */
int	dir_safe(const char *, char *, size_t);
/* mkdir -p with mode. */
int	mkdir_p(const char *, mode_t, char *, size_t);
/* Read a whole small file; NULL on error. */
char	*file_read(const char *, size_t *);
/* Read name (below the directory dirfd, or a path with AT_FDCWD) whole when it is a regular file of
 * at most max bytes, without ever blocking on what it is: opened once, with O_NONBLOCK (a FIFO's or
 * a device's open returns at once, and is refused), checked with fstat before any read, read at
 * most max + 1 bytes (a file that grew meanwhile is refused too); FILE_NOFOLLOW: a symbolic link is
 * refused (ELOOP). NUL-terminated, its length in *lenp; NULL with errno: EINVAL not a regular file,
 * EFBIG larger than max, or the call's own. */
#define FILE_NOFOLLOW	1
char	*file_read_at(int dirfd, const char *name, size_t max, int flags, size_t *lenp);
/* What file_read_at's errno means, for a message ("not a regular file", "larger than N bytes", ...). */
const char *file_read_error(int err, size_t max, char *buf, size_t len);
#endif
