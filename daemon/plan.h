#ifndef DAEMON_PLAN_H
#define DAEMON_PLAN_H
#include <stdio.h>
#include "cfg.h"

/* --plan / --plan=all: what this node (or every node) would run, as JSON. Starts nothing. */
int	plan_print(const struct cfg *, int, FILE *);
#endif
