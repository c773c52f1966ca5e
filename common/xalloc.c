#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

static void
oom(void)
{
	fputs("<2>out of memory\n", stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);
	if (p == NULL)
		oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (p == NULL)
		oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
strv_take(struct strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(char *));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strv_push(struct strv *sv, const char *s)
{
	strv_take(sv, xstrdup(s));
}

void
strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strv_take(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void
strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char **
strv_dup(char *const *v)
{
	struct strv sv = { 0 };
	for (; v != NULL && *v != NULL; v++)
		strv_push(&sv, *v);
	if (sv.v == NULL)
		sv.v = xcalloc(1, sizeof(char *));
	return sv.v;
}

int
strv_eq(char *const *a, char *const *b)
{
	size_t i;
	if (a == NULL || b == NULL)
		return a == b;
	for (i = 0; a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return a[i] == b[i];
}

void
strv_freev(char **v)
{
	for (char **p = v; p != NULL && *p != NULL; p++)
		free(*p);
	free(v);
}
