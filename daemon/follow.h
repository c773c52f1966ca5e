#ifndef DAEMON_FOLLOW_H
#define DAEMON_FOLLOW_H
#include <stddef.h>

struct endpoints;
struct follow;
struct peers;

/* A node without a master follows the head sidecar (master.url, else master.node at this node's admin
 * port) through long-polls of its /endpoints, and mirrors what it says into this node's files;
 * changed(arg) after each answer. Resolves the head's name before the loop runs; NULL with err
 * filled when it cannot. */
struct follow	*follow_new(const struct peers *, struct endpoints *, void (*)(void *), void *, char *, size_t);
void		 follow_free(struct follow *);
const char	*follow_url(const struct follow *);
/* One line for STATUS= and /readyz. */
const char	*follow_state(const struct follow *);
/* The head has not answered a few times in a row: the files must not say ready. */
int		 follow_lost(const struct follow *);
#endif
