#ifndef DAEMON_RELOAD_H
#define DAEMON_RELOAD_H
#include <stddef.h>
#include <jansson.h>

struct sidecar;

/*
 * POST /control/reload, systemctl reload (SIGHUP): read the configuration file again and check it
 * as -n does; invalid, nothing changes (422 with every error). Valid, only what differs is applied:
 * the master restarts if its command line or environment changed, each worker whose own did; a
 * change a running sidecar cannot apply (the layout, ports, admin.listen, ...) changes nothing and
 * is answered 409 naming the keys and that the sidecar must be restarted. Returns the HTTP status;
 * msg, word (ok, noop, invalid, conflict) and extra (errors, changed keys, restarted) say the rest.
 */
int	reload_apply(struct sidecar *, char *msg, size_t, const char **word, json_t **extra);
#endif
