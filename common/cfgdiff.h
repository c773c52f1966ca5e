#ifndef COMMON_CFGDIFF_H
#define COMMON_CFGDIFF_H
#include <jansson.h>
#include "xalloc.h"

/*
 * What a reload changes: two configurations as read (JSON, before defaults), compared key by key.
 * Pure.
 */

/* Every path whose value differs between a and b ("master.extra_args", "workers.groups[1].env",
 * "admin" when one side lacks it), in a's key order then b's new keys; objects are compared key by
 * key, anything else whole (an array of objects element by element when both have as many). At
 * most max paths; returns how many differ (which may be more). */
size_t	cfgdiff(const json_t *a, const json_t *b, struct strv *paths, size_t max);
/* A path a running sidecar applies without a restart of its own: the master's command,
 * extra_args and env, and a worker group's command and env. */
int	cfgdiff_live(const char *path);
#endif
