#ifndef DAEMON_FOLLOW_H
#define DAEMON_FOLLOW_H
#include <stddef.h>

struct httpc;
struct sidecar;
struct follow;

/* A client of node's sidecar (admin.auth's token sent with each request): job.sidecars' entry
 * for it, else master.url for the master's node when it is set, else node at this node's admin
 * port; its URL into url. Resolved here (blocking: before the loop). NULL with err naming it. */
struct httpc	*follow_sidecar_of(const struct sidecar *, const char *, char *, size_t, size_t, long,
		    char *, size_t);
/* A node without a master follows the head sidecar (master.url, else master.node at this node's admin
 * port) through long-polls of its /endpoints, and mirrors what it says into this node's files.
 * Resolves the head's name before the loop runs; NULL with err filled when it cannot. */
struct follow	*follow_new(struct sidecar *, char *, size_t);
void		 follow_free(struct follow *);
const char	*follow_url(const struct follow *);
/* One line for STATUS= and /readyz. */
const char	*follow_state(const struct follow *);
#endif
