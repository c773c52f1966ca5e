#ifndef DAEMON_PLAN_H
#define DAEMON_PLAN_H
#include <stdio.h>
#include "cfg.h"
#include "topology.h"

/* --plan / --plan=all: what this node (or every node) would run, as JSON. Starts nothing. */
int	plan_print(const struct cfg *, const struct topology *, int, FILE *);
#endif
