#ifndef COMMON_HOSTLIST_H
#define COMMON_HOSTLIST_H
#include <stddef.h>
#include "xalloc.h"

#define HOSTLIST_MAX	65536

/* Expand a SLURM hostlist ("gpu-[01-04,07],head", "r[1-2]n[01-02]") in the order scontrol prints it.
 * Returns 0, or -1 with a message in err. */
int	hostlist_expand(const char *, struct strv *, char *, size_t);
/* Index of name in the list, or -1. */
int	hostlist_index(const struct strv *, const char *);
#endif
