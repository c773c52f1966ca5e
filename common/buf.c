#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "xalloc.h"

static void
reserve(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = (b->len + more + 1) * 2;
	b->p = xrealloc(b->p, b->cap);
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
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
	reserve(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void
buf_json_string(struct buf *b, const char *s)
{
	const char *run = s;
	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, run, (size_t)(s - run));
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else
			buf_printf(b, "\\u%04x", c);
		run = s + 1;
	}
	buf_add(b, run, (size_t)(s - run));
	buf_add(b, "\"", 1);
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
