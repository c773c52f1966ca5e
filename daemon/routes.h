#ifndef DAEMON_ROUTES_H
#define DAEMON_ROUTES_H
#include "admin.h"
#include "view.h"

/* The sidecar's own admin routes, answered from a view: /livez, /readyz, /status, /endpoints (with
 * its ETag, for ?since=), /gangs (likewise) and the sidecar's part of /metrics. 0 with ans filled,
 * or -1 when path is none of them. */
int	routes_answer(const struct view *, const char *, struct admin_answer *);
/* The ETag of /endpoints ("<generation>-ready", "<generation>-not-ready", or "none" before the
 * first file) and of /gangs (the gangs' own tag), from what they are made of; -1 for another path. */
int	routes_tag(const char *, int, unsigned, int, const char *, char *, size_t);
#endif
