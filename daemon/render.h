#ifndef DAEMON_RENDER_H
#define DAEMON_RENDER_H
#include "buf.h"
#include "view.h"

/* The renderings of a view (daemon/view.h); each reads the view and nothing else. */
char	*render_status(const struct view *);		/* GET /status, JSON */
char	*render_gangs(const struct view *);		/* GET /gangs, JSON */
char	*render_sd(const struct view *);		/* GET /sd: Prometheus HTTP service discovery */
#endif
