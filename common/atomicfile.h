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
#endif
