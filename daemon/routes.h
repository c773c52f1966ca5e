#ifndef DAEMON_ROUTES_H
#define DAEMON_ROUTES_H
#include "admin.h"
#include "view.h"

/* The sidecar's own admin routes, answered from a view: /livez, /readyz, /status, /endpoints (with
 * its ETag, for ?since=), /gangs (likewise) and the sidecar's part of /metrics. 0 with ans filled,
 * or -1 when path is none of them. */
int	routes_answer(const struct view *, const char *, struct admin_answer *);
#endif
