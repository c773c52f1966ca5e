#ifndef DAEMON_FOLLOW_H
#define DAEMON_FOLLOW_H
#include <stddef.h>

struct cfg;
struct httpc_target;
struct sidecar;
struct follow;

/* The sidecar of node: job.sidecars' entry for it, else master.url for the master's node when it
 * is set, else node at this node's admin port. Resolved (blocking: before the loop). Returns 0, or -1 with err naming it. */
int		 follow_sidecar_of(const struct cfg *, const char *, char *, size_t, struct httpc_target *,
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
