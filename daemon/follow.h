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
/* What runs on this node (common/sdreport.h), told to the head with each poll; a change is told at
 * once (a held poll is asked again). */
void		 follow_report(struct follow *, const char *);
/* The head has answered a request that carried the last report: it has heard it. */
int		 follow_told(const struct follow *);
/* How long a stopping follower waits for the head to hear its last report (nothing here to scrape)
 * before it exits: a head that answers hears it in milliseconds; one that does not would not hear
 * it by waiting longer. */
#define FOLLOW_BYE_MS	1000
/* How long the head may hold a follower's poll (of a head that does not stream): one comes at least
 * this often while it lives. */
#define FOLLOW_HOLD_MS	25000
/* How long a follower's stream lasts before it asks again: minutes, since asking is what an idle
 * follower costs the head; TCP keepalive (httpc.h) notices a head or a follower that vanished
 * within 25 s meanwhile, and the head tells itself every 10 s that a stream's node is there. */
#define FOLLOW_STREAM_MS 300000
#endif
