#ifndef DAEMON_ADDRS_H
#define DAEMON_ADDRS_H
#include "nodeaddr.h"

/* node's address as this machine (the node self) sees it: common/nodeaddr.c's rules over this
 * machine's interfaces, iface (job.network_interface or "") and the system resolver. Blocking:
 * before the loop, or in --plan. */
void	addrs_decide(const char *self, const char *node, const char *iface, struct nodeaddr *);
#endif
