#ifndef COMMON_BUF_H
#define COMMON_BUF_H
#include <stdarg.h>
#include <stddef.h>

/* A growable NUL-terminated byte buffer. */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	buf_add(struct buf *, const void *, size_t);
void	buf_puts(struct buf *, const char *);
void	buf_printf(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string: quoted, with ", \ and control characters escaped (UTF-8 kept as it is). */
void	buf_json_string(struct buf *, const char *);
void	buf_free(struct buf *);
/* Hand the bytes over; the buffer is empty afterwards. */
char	*buf_take(struct buf *, size_t *);
#endif
