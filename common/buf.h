#ifndef COMMON_BUF_H
#define COMMON_BUF_H
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/* A growable NUL-terminated byte buffer. */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	buf_grow(struct buf *, size_t);	/* room for n more bytes and a NUL */

/* buf_grow, with the test that mostly finds the room there already inline. */
static inline void
buf_room(struct buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap)
		buf_grow(b, n);
}

/* Inline: JSON and HTTP writers append a byte or a few at a time. */
static inline void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_room(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}
void	buf_puts(struct buf *, const char *);
void	buf_printf(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string: quoted, with ", \ and control characters escaped (UTF-8 kept as it is). */
void	buf_json_string(struct buf *, const char *);
/* v in decimal, as printf's %ld writes it, without printf. */
void	buf_long(struct buf *, long);
#define LONG_STR_MAX	24
size_t	long_str(long, char [LONG_STR_MAX]);	/* NUL-terminated; returns the length */
void	buf_free(struct buf *);
/* Hand the bytes over; the buffer is empty afterwards. */
char	*buf_take(struct buf *, size_t *);
#endif
