#ifndef COMMON_GFLAGS_H
#define COMMON_GFLAGS_H
#include <stddef.h>
#include "xalloc.h"

/*
 * The flags a gflags program (mooncake_master) takes, as its --helpxml lists them, and a check of
 * arguments against them as gflags itself parses its command line: an unknown flag or a value of
 * the wrong type aborts the program (exit 1), so a sidecar asks first.
 */

struct gflag {
	char	name[128];
	char	type[16];	/* bool, int32, int64, uint32, uint64, double, string */
};

struct gflags {
	struct gflag	*v;
	size_t		 n;
	char		 version[128];	/* what --version says, "0.3.12.post1", or "" */
};

/* Parse --helpxml's output (<AllFlags>...<flag>...<name>N</name>...<type>T</type>...</flag>...). 0,
 * or -1 with err saying why (not that XML, a flag without a name or type). */
int	gflags_parse(const char *, size_t, struct gflags *, char *, size_t);
/* The version from --version's output: the word after "version " on its first line. */
void	gflags_version(const char *, size_t, struct gflags *);
void	gflags_free(struct gflags *);
const struct gflag *gflags_find(const struct gflags *, const char *);
/* gflags' own check of a value for a flag of this type: the whole value parses, within its range. */
int	gflags_value_ok(const char *type, const char *);
/* Check args (NULL-terminated, as gflags reads them: -f or --f, =value or the next argument, --nof
 * for a bool) against the flags: one error per bad argument, "key[i]: --f...: why (who)", appended
 * to errs. who names the program ("mooncake_master 0.3.12.post1 at /usr/bin/mooncake_master"). */
void	gflags_check(const struct gflags *, char *const *, const char *key, const char *who, struct strv *errs);
/* The flags (and version) kept for a binary under a key that names it (path, size, mtime): the
 * text gflags_cache_parse reads back; it says -1 for another key, or for anything but that text. */
char	*gflags_cache_render(const struct gflags *, const char *key, size_t *);
int	gflags_cache_parse(const char *, size_t, const char *key, struct gflags *);
#endif
