#ifndef DAEMON_SOURCE_H
#define DAEMON_SOURCE_H
#include "admin.h"

struct sidecar;

/* The sidecar as the admin server's source: its own routes, their tags, what requests told, what
 * the proxy needs of the master, the operator's actions. */
struct admin_source	source_of(struct sidecar *);
#endif
