#ifndef COMMON_CFG_H
#define COMMON_CFG_H
#include "cfgtypes.h"
#include "cfgparse.h"

/* Parse and validate. Every problem is appended to errs as "json.path: message"; returns 0 when
 * there are none. The struct is filled as far as parsing got and must be freed either way. */
int	cfg_load_file(const char *, const struct cfg_overrides *, struct cfg *, struct strv *);
int	cfg_load_string(const char *, const struct cfg_overrides *, struct cfg *, struct strv *);
/* What is valid but does not do what it looks meant to: workers that would not use the store. */
void	cfg_warnings(const struct cfg *, struct strv *);

/* "ADDR:PORT" with a numeric IPv4 or bracketed IPv6 address. */
int	cfg_parse_hostport(const char *, char *, size_t, int *, long *);
/* The defaults of admin.max_waiters (2 per node and 32 more, at least 64) and admin.max_connections
 * (2 per node and 256 more, at least 512) for a job of this many nodes. */
long	cfg_waiters_for(size_t);
long	cfg_connections_for(size_t);
#endif
