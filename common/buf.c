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
	size_t n = strlen(s), i = 0;
	char *d;
	buf_room(b, n + 2);	/* the string as it is, quoted: more only once a byte needs escaping */
	d = b->p + b->len;
	*d++ = '"';
	while (i < n) {
		uint64_t w;
		unsigned char c;
		if (i + 8 <= n) {
			memcpy(&w, s + i, 8);
			if (word_escaped(w) == 0) {
				memcpy(d, &w, 8);
				d += 8;
				i += 8;
				continue;
			}
		} else if (n >= 8) {
			/* The last word of the string, over bytes already written: clean, it covers the tail
			 * and where those bytes went (nothing escaped among them). */
			memcpy(&w, s + n - 8, 8);
			if (word_escaped(w) == 0) {
				memcpy(d - (i - (n - 8)), &w, 8);
				d += n - i;
				break;
			}
		} else if (i == 0 && n >= 4) {
			/* Four to seven bytes: the first four and the last four, which overlap. */
			uint32_t lo, hi;
			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			if (word_escaped(lo | (uint64_t)hi << 32) == 0) {
				memcpy(d, &lo, 4);
				memcpy(d + n - 4, &hi, 4);
				d += n;
				break;
			}
		}
		c = (unsigned char)s[i++];
		if (!json_escaped[c]) {
			*d++ = (char)c;
			continue;
		}
		b->len = (size_t)(d - b->p);
		buf_room(b, 6 + (n - i) + 1);	/* this escape, the rest as it is, the closing quote */
		d = b->p + b->len;
		*d++ = '\\';
		if (c == '"' || c == '\\')
			*d++ = (char)c;
		else if (c == '\n')
			*d++ = 'n';
		else if (c == '\t')
			*d++ = 't';
		else {
			memcpy(d, "u00", 3);
			d[3] = hex[c >> 4];
			d[4] = hex[c & 15];
			d += 5;
		}
	}
	*d++ = '"';
	*d = '\0';
	b->len = (size_t)(d - b->p);
}

/* Two decimal digits at a time (ports, ranks and sizes have four or five). */
static const char digit_pairs[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t
long_str(long v, char out[LONG_STR_MAX])
{
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v, t = u;
	size_t n = 1 + (v < 0), len;
	while (t >= 10000) {	/* the digits counted first: written in place, with no copy */
		t /= 10000;
		n += 4;
	}
	n += (t >= 10) + (t >= 100) + (t >= 1000);
	len = n;
	out[n] = '\0';
	while (u >= 100) {
		n -= 2;
		memcpy(out + n, digit_pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10)
		memcpy(out + n - 2, digit_pairs + 2 * u, 2);
	else
		out[n - 1] = (char)('0' + u);
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
