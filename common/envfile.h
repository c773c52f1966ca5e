#ifndef COMMON_ENVFILE_H
#define COMMON_ENVFILE_H
#include "buf.h"
#include "kvlist.h"

/* KEY="value" lines that POSIX sh (". file") and systemd's EnvironmentFile= both read back as the
 * exact value: double quotes with \, ", $ and ` escaped; newlines, spaces and everything else
 * verbatim inside the quotes. */
void	envfile_line(struct buf *, const char *, const char *);
void	envfile_render(struct buf *, const struct kvlist *);
/* Read such a file back as a worker's shell (". file") does, for the lines it is made of: blank
 * lines and # comments, an optional "export ", KEY=VALUE with KEY [A-Za-z_][A-Za-z0-9_]* and VALUE
 * double-quoted (\", \\, \$, \` and backslash-newline undone, any other backslash kept),
 * single-quoted (verbatim) or bare (up to a blank; a backslash keeps the next character). A later
 * KEY overrides an earlier one. Returns 0 with out filled, or -1 with err naming the line. */
int	envfile_parse(const char *, size_t, struct kvlist *, char *, size_t);
#endif
