#ifndef COMMON_CFG_H
#define COMMON_CFG_H
#include "cfgtypes.h"
#include "cfgparse.h"

/* Parse and validate. Every problem is appended to errs as "json.path: message"; returns 0 when
 * there are none. The struct is filled as far as parsing got and must be freed either way. */
/* The configuration file is read whole before it is parsed, and only when it is a regular file of
 * at most CFG_FILE_MAX bytes (common/atomicfile.h, file_read_at): a FIFO, a device or a huge file
 * at its path is an error, never a read that blocks the sidecar's loop. */
#define CFG_FILE_MAX	(2 << 20)
int	cfg_load_file(const char *, const struct cfg_overrides *, struct cfg *, struct strv *);
/* The same in two steps, for a reload that also compares the document: the file's JSON (NULL with
 * the error in errs), then the configuration from it (the document is not taken). */
json_t	*cfg_read_json(const char *, struct strv *);
int	cfg_load_json(json_t *, const struct cfg_overrides *, struct cfg *, struct strv *);
int	cfg_load_string(const char *, const struct cfg_overrides *, struct cfg *, struct strv *);
/* What the kernel would refuse at every start of the master or a worker (E2BIG): any argument or
 * environment string over CFG_ARG_STRLEN_MAX bytes (MAX_ARG_STRLEN, with its NUL), or a command
 * line and environment over arg_max bytes (sysconf(_SC_ARG_MAX); 0: not checked) with the
 * inherited bytes of the sidecar's own environment. Appended to errs. */
#define CFG_ARG_STRLEN_MAX	131072
void	cfg_check_exec(const struct cfg *, size_t inherited, long arg_max, struct strv *);
/* What is valid but does not do what it looks meant to: workers that would not use the store. */
void	cfg_warnings(const struct cfg *, struct strv *);

/* "ADDR:PORT" with a numeric IPv4 or bracketed IPv6 address. */
int	cfg_parse_hostport(const char *, char *, size_t, int *, long *);
/* The defaults of admin.max_waiters (2 per node and 32 more, at least 64) and admin.max_connections
 * (2 per node and 256 more, at least 512) for a job of this many nodes. */
long	cfg_waiters_for(size_t);
long	cfg_connections_for(size_t);
#endif
