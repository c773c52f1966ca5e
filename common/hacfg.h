#ifndef COMMON_HACFG_H
#define COMMON_HACFG_H
#include "cfg.h"

/*
 * The master's HA: master.ha (the backend URL and the snapshot directory) resolved into the flags
 * and the environment the sidecar starts mooncake_master with, and the checks that an HA master of
 * 0.3.12 can serve at all, whether HA came from master.ha or from master.extra_args, and the entry
 * clients connect through (master.ha_entry). Errors name the
 * key and the flag. Pure: no I/O.
 */
void	hacfg_resolve(struct cfg *, struct strv *errs);
#endif
