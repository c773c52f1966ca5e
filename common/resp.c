#include "config.h"
#include <stdio.h>
#include <string.h>
#include "resp.h"

#define ARRAY_MAX	(1L << 20)	/* elements; more is no reply of the commands the sidecar sends */

void
resp_command(struct buf *b, int argc, const char *const *argv, const size_t *len)
{
	buf_printf(b, "*%d\r\n", argc);
	for (int i = 0; i < argc; i++) {
		size_t n = len != NULL ? len[i] : strlen(argv[i]);
		buf_printf(b, "$%zu\r\n", n);
		buf_add(b, argv[i], n);
		buf_add(b, "\r\n", 2);
	}
}

/* The line at p (to its CRLF): its length, -2 when the CRLF has not arrived, -1 when a CR or LF
 * stands alone in it. */
static long
line_len(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n')
			return -1;
		if (p[i] == '\r')
			return i + 1 == n ? -2 : p[i + 1] == '\n' ? (long)i : -1;
	}
	return -2;
}

static int
integer(const char *p, size_t n, long long *v)
{
	size_t i = 0;
	int neg = 0;
	unsigned long long u = 0;
	if (n > 0 && p[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n || n - i > 19)
		return -1;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		u = u * 10 + (unsigned)(p[i] - '0');
	}
	if (u > (unsigned long long)9223372036854775807LL)
		return -1;
	*v = neg ? -(long long)u : (long long)u;
	return 0;
}

static long
fail(char *err, size_t len, const char *why, char type)
{
	snprintf(err, len, "%s (reply type '%c')", why, type >= 0x20 && type < 0x7f ? type : '?');
	return -1;
}

/* One value at p: fills e; an array's elements go into r when r is not NULL (the top level). */
static long
value(const char *p, size_t n, size_t max, int depth, struct resp_elem *e, struct resp_reply *r, char *err,
    size_t errlen)
{
	long l, at, k;
	long long v = 0;
	if (n == 0)
		return 0;
	l = line_len(p + 1, n - 1);
	if (l == -2)
		return 0;
	if (l == -1)
		return fail(err, errlen, "a CR or LF alone in a line", p[0]);
	at = l + 3;	/* the type byte, the line, CRLF */
	memset(e, 0, sizeof *e);
	switch (p[0]) {
	case '+':
	case '-':
		e->type = p[0] == '+' ? RESP_SIMPLE : RESP_ERROR;
		e->s = p + 1;
		e->len = (size_t)l;
		return at;
	case ':':
		if (integer(p + 1, (size_t)l, &v) != 0)
			return fail(err, errlen, "not an integer", p[0]);
		e->type = RESP_INTEGER;
		e->integer = v;
		return at;
	case '$':
		if (integer(p + 1, (size_t)l, &v) != 0 || v < -1 || v > RESP_BULK_MAX)
			return fail(err, errlen, "not a bulk length", p[0]);
		if (v > (long long)max) {	/* said at once: never waited for, never buffered */
			snprintf(err, errlen, "a bulk string of %lld bytes: more than the answer to this question "
			    "can be (%zu bytes)", v, max);
			return -1;
		}
		if (v == -1) {
			e->type = RESP_NIL;
			return at;
		}
		if ((size_t)at + (size_t)v + 2 > n)
			return 0;
		if (p[at + v] != '\r' || p[at + v + 1] != '\n')
			return fail(err, errlen, "a bulk string not ended by CRLF", p[0]);
		e->type = RESP_BULK;
		e->s = p + at;
		e->len = (size_t)v;
		return at + (long)v + 2;
	case '*':
		if (integer(p + 1, (size_t)l, &v) != 0 || v < -1 || v > ARRAY_MAX)
			return fail(err, errlen, "not an array length", p[0]);
		if (v == -1) {
			e->type = RESP_NIL;
			e->integer = -1;
			return at;
		}
		if (depth >= RESP_DEPTH)
			return fail(err, errlen, "arrays nested too deep", p[0]);
		e->type = RESP_ARRAY;
		e->integer = v;
		for (long long i = 0; i < v; i++) {
			struct resp_elem sub;
			k = value(p + at, n - (size_t)at, max, depth + 1, &sub, NULL, err, errlen);
			if (k <= 0)
				return k;
			if (r != NULL && r->nelem < RESP_ELEMS)
				r->elem[r->nelem++] = sub;
			at += k;
		}
		return at;
	default:
		return fail(err, errlen, "not a RESP type", p[0]);
	}
}

long
resp_parse(const char *p, size_t n, size_t max, struct resp_reply *r, char *err, size_t errlen)
{
	struct resp_elem e;
	long k;
	memset(r, 0, sizeof *r);
	k = value(p, n, max, 0, &e, r, err, errlen);
	if (k == 0 && n > max)
		k = -1, snprintf(err, errlen, "more than %zu bytes without a whole reply: more than the answer to "
		    "this question can be", max);
	else if (k > 0 && (size_t)k > max)
		k = -1, snprintf(err, errlen, "a reply of %ld bytes: more than the answer to this question can be "
		    "(%zu bytes)", k, max);
	if (k <= 0) {
		memset(r, 0, sizeof *r);
		return k;
	}
	r->type = e.type;
	r->s = e.s;
	r->len = e.len;
	r->integer = e.integer;
	return k;
}

int
resp_elem_is(const struct resp_reply *r, size_t i, const char *s)
{
	const struct resp_elem *e = i < r->nelem ? &r->elem[i] : NULL;
	return e != NULL && (e->type == RESP_BULK || e->type == RESP_SIMPLE) && e->len == strlen(s) &&
	    memcmp(e->s, s, e->len) == 0;
}
