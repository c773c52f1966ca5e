#ifndef DAEMON_BASIC_H
#define DAEMON_BASIC_H
#include <event2/event.h>
#include "kvlist.h"

/*
 * admin.auth.basic_auth_users: a bcrypt check costs tens of milliseconds, so it runs on a thread
 * of its own, never in the loop; the outcome comes back through the loop. A password that passed
 * is remembered by its SHA-256 (at most BASIC_CACHE of them), so a scraper's next request costs a
 * hash, not a bcrypt. An unknown user costs a bcrypt too, so the time says nothing of who exists.
 */

enum { BASIC_OK, BASIC_PENDING, BASIC_BUSY };

struct basic;
struct basic_req;
/* From the loop, never inside basic_check(): ok 1 or 0. */
typedef void (*basic_cb)(int, void *);

struct basic	*basic_new(struct event_base *, const struct kvlist *);
void		 basic_free(struct basic *);
/* BASIC_OK (remembered), BASIC_PENDING (cb later; *req cancels it), or BASIC_BUSY (too many checks
 * waiting: answer 503). */
int		 basic_check(struct basic *, const char *, const char *, basic_cb, void *,
		     struct basic_req **);
/* The request left: its outcome is dropped. */
void		 basic_cancel(struct basic_req *);
#endif
