#ifndef COMMON_ENVFILE_H
#define COMMON_ENVFILE_H
#include "buf.h"
#include "kvlist.h"

/* KEY="value" lines that POSIX sh (". file") and systemd's EnvironmentFile= both read back as the
 * exact value: double quotes with \, ", $ and ` escaped; newlines, spaces and everything else
 * verbatim inside the quotes. */
void	envfile_line(struct buf *, const char *, const char *);
void	envfile_render(struct buf *, const struct kvlist *);
#endif
