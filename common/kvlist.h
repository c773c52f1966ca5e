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
const char	*kvlist_get(const struct kvlist *, const char *);
void		 kvlist_clear(struct kvlist *);
void		 kvlist_empty(struct kvlist *);	/* no entries, the room for them kept */
#endif
