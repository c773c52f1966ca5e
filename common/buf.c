#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "xalloc.h"

void
buf_grow(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = (b->len + more + 1) * 2;
	b->p = xrealloc(b->p, b->cap);
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	buf_grow(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* 1 for the bytes a JSON string cannot hold as they are: control characters, " and \. */
static const unsigned char json_escaped[256] = {
	1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
	0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
	0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

/* Eight bytes at a time: nonzero when one of them is below 0x20, '"' or '\\' (the zero-byte and
 * less-than tests of the bit-twiddling literature: exact as to whether any byte matches). */
static inline uint64_t
word_escaped(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & highs;
}

void
buf_json_string(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s), i = 0, run = 0;
	buf_room(b, n + 2);
	buf_add(b, "\"", 1);
	for (;;) {
		uint64_t w;
		while (i + 8 <= n && (memcpy(&w, s + i, 8), word_escaped(w) == 0))
			i += 8;
		while (i < n && !json_escaped[(unsigned char)s[i]])
			i++;
		if (i >= n)
			break;
		unsigned char c = (unsigned char)s[i];
		buf_add(b, s + run, i - run);
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			buf_add(b, e, 2);
		} else if (c == '\n')
			buf_add(b, "\\n", 2);
		else if (c == '\t')
			buf_add(b, "\\t", 2);
		else {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			buf_add(b, e, 6);
		}
		run = ++i;
	}
	buf_add(b, s + run, n - run);
	buf_add(b, "\"", 1);
}

size_t
long_str(long v, char out[LONG_STR_MAX])
{
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v, t = u;
	size_t n = v < 0, len;
	do	/* the digits counted first: written in place, with no copy */
		n++;
	while ((t /= 10) != 0);
	len = n;
	out[n] = '\0';
	do
		out[--n] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		out[0] = '-';
	return len;
}

void
buf_long(struct buf *b, long v)
{
	buf_room(b, LONG_STR_MAX);
	b->len += long_str(v, b->p + b->len);
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *
buf_take(struct buf *b, size_t *len)
{
	char *p;
	if (b->p == NULL)
		buf_add(b, "", 0);
	p = b->p;
	if (len != NULL)
		*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}
