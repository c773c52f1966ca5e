#ifndef COMMON_ATOMICFILE_H
#define COMMON_ATOMICFILE_H
#include <stddef.h>
#include <sys/types.h>

/* Replace path with buf so that a reader sees the old or the new content, never a mix:
 * temp file in the same directory, write, fsync (when durable), rename, fsync the directory.
 * Returns 0, or -1 with err filled. */
int	atomic_write(const char *, const void *, size_t, mode_t, int, char *, size_t);
/* mkdir -p with mode. */
int	mkdir_p(const char *, mode_t, char *, size_t);
/* Read a whole small file; NULL on error. */
char	*file_read(const char *, size_t *);
#endif
