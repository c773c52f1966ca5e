#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfgdiff.h"

static void
walk(const json_t *a, const json_t *b, const char *path, struct strv *paths, size_t max, size_t *n)
{
	const char *k;
	json_t *v;
	size_t i;
	if (a != NULL && b != NULL && json_equal(a, b))
		return;
	if (json_is_object(a) && json_is_object(b)) {
		json_object_foreach((json_t *)a, k, v) {
			char *p = path[0] ? xasprintf("%s.%s", path, k) : xstrdup(k);
			walk(v, json_object_get(b, k), p, paths, max, n);
			free(p);
		}
		json_object_foreach((json_t *)b, k, v)
			if (json_object_get(a, k) == NULL) {
				char *p = path[0] ? xasprintf("%s.%s", path, k) : xstrdup(k);
				walk(NULL, v, p, paths, max, n);
				free(p);
			}
		return;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b) &&
	    json_array_size(a) > 0 && json_is_object(json_array_get(a, 0))) {
		for (i = 0; i < json_array_size(a); i++) {
			char *p = xasprintf("%s[%zu]", path, i);
			walk(json_array_get(a, i), json_array_get(b, i), p, paths, max, n);
			free(p);
		}
		return;
	}
	if (*n < max)
		strv_push(paths, path[0] ? path : "(the whole file)");
	(*n)++;
}

size_t
cfgdiff(const json_t *a, const json_t *b, struct strv *paths, size_t max)
{
	size_t n = 0;
	walk(a, b, "", paths, max, &n);
	return n;
}

int
cfgdiff_live(const char *p)
{
	static const char *const master[] = { "master.command", "master.extra_args", "master.env", NULL };
	const char *q;
	for (int i = 0; master[i] != NULL; i++)
		if (strcmp(p, master[i]) == 0 || (strncmp(p, master[i], strlen(master[i])) == 0 &&
		    (p[strlen(master[i])] == '.' || p[strlen(master[i])] == '[')))
			return 1;
	if (strncmp(p, "workers.groups[", 15) != 0)
		return 0;
	q = p + 15;
	if (strspn(q, "0123456789") == 0)
		return 0;
	q += strspn(q, "0123456789");
	return strcmp(q, "].command") == 0 || strcmp(q, "].env") == 0 || strncmp(q, "].env.", 6) == 0;
}
