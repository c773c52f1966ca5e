#ifndef COMMON_KVLIST_H
#define COMMON_KVLIST_H
#include <stddef.h>

/* An ordered list of environment-style key/value pairs. */
struct kv {
	char	*key;
	char	*value;
};

struct kvlist {
	struct kv	*v;
	size_t		 n;
	size_t		 cap;	/* entries v has room for; 0: only n (as cfg.c allocates it) */
};

/* Set a key: a key already there keeps its place and takes the new value. */
void		 kvlist_set(struct kvlist *, const char *, const char *);
/* The entry for a key: the one there, or a new one at the end with key and value NULL, for a
 * caller whose list does not own its strings to fill. */
struct kv	*kvlist_slot(struct kvlist *, const char *);
const char	*kvlist_get(const struct kvlist *, const char *);
void		 kvlist_clear(struct kvlist *);
#endif
