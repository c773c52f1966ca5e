#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "kvlist.h"
#include "xalloc.h"

void
kvlist_set(struct kvlist *l, const char *key, const char *value)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0) {
			free(l->v[i].value);
			l->v[i].value = xstrdup(value);
			return;
		}
	if (l->n + 1 > l->cap) {
		l->cap = l->n + 1 > 2 * l->cap ? l->n + 8 : 2 * l->cap;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].key = xstrdup(key);
	l->v[l->n++].value = xstrdup(value);
}

const char *
kvlist_get(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return l->v[i].value;
	return NULL;
}

void
kvlist_empty(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	l->n = 0;
}

void
kvlist_clear(struct kvlist *l)
{
	kvlist_empty(l);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}
