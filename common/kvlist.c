#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "kvlist.h"
#include "xalloc.h"

struct kv *
kvlist_slot(struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].key[0] == key[0] && strcmp(l->v[i].key, key) == 0)
			return &l->v[i];
	if (l->n + 1 > l->cap) {
		l->cap = l->n + 1 > 2 * l->cap ? l->n + 8 : 2 * l->cap;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n] = (struct kv){ NULL, NULL };
	return &l->v[l->n++];
}

void
kvlist_set(struct kvlist *l, const char *key, const char *value)
{
	struct kv *e = kvlist_slot(l, key);
	if (e->key == NULL)
		e->key = xstrdup(key);
	free(e->value);
	e->value = xstrdup(value);
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
kvlist_clear(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
