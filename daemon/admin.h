#ifndef DAEMON_ADMIN_H
#define DAEMON_ADMIN_H
#include <stddef.h>

struct sidecar;
struct admin;

/* Start the admin HTTP server on admin.listen, driven by the sidecar's loop. NULL with err filled
 * when it cannot listen. */
struct admin	*admin_new(struct sidecar *, char *, size_t);
/* Answer every suspended request with 503 and stop listening. */
void		 admin_free(struct admin *);
/* SIGHUP: serve admin.tls's certificate and key as the files now say (when they are good). */
void		 admin_reload_tls(struct admin *);
/* Something a long-poll may wait on changed (/endpoints, /gangs): answer those it concerns. */
void		 admin_changed(struct admin *);
/* Requests answered by an identical upstream GET already in flight (coalesced). */
unsigned long	 admin_coalesced(const struct admin *);
/* Long-polls of /endpoints and /gangs held now. */
long		 admin_long_polls(const struct admin *);
#endif
