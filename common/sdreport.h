#ifndef COMMON_SDREPORT_H
#define COMMON_SDREPORT_H
#include <stddef.h>
#include "buf.h"

/*
 * A node's scrape targets (what its GET /sd lists), as a node without the master reports them to
 * the head sidecar in its poll of /endpoints (?node=N&sd=...), so that the head's /sd covers the
 * job. One entry a target, separated by ',', each "target~role~group_index~worker~worker_index~
 * dp_rank~generation~gang" (worker, gang empty and group_index, worker_index, dp_rank -1 where
 * they do not apply).
 * Pure.
 */

#define SD_MAX_TARGETS	256	/* of one node */

struct sd_target {
	char	 target[300];	/* "host:port" or "[v6]:port" */
	char	 role[32];	/* sidecar, master, prefill, decode, agg */
	char	 worker[64], gang[64];
	int	 group_index;	/* into workers.groups */
	int	 worker_index, dp_rank;
	unsigned generation;	/* 0: none */
};

/* Append n targets to the report in b (after a comma when b holds some already). */
void	sdreport_render(const struct sd_target *, size_t, struct buf *);
/* At most max entries into out, their count into *n: 0, or -1 with err naming the entry and why
 * (a field missing or too long, a character outside [A-Za-z0-9._:[]-], a number that is not one). */
int	sdreport_parse(const char *, struct sd_target *, size_t max, size_t *n, char *err, size_t);
#endif
