#ifndef DAEMON_MASTERFLAGS_H
#define DAEMON_MASTERFLAGS_H
#include <stddef.h>
#include "cfg.h"

/* Check the arguments master.command would be started with against its flags: one error per flag
 * it would refuse, naming the key, the flag and its version; a warning when its flags are not known.
 * The flags come from a cache (by the binary's path, size and mtime) or, when may_ask, from asking
 * it (--helpxml, --version): blocking, at most a few seconds, so only before the loop. In the loop
 * (a reload) may_ask is 0 and a binary not in the cache goes unchecked, with the warning. */
void		 master_flags_check(const struct cfg *, int may_ask, struct strv *errs, struct strv *warns);
/* The argv the master is started with (command, port flags, extra_args). */
char		**master_argv(const struct cfg *);
/* Where execvp finds cmd (PATH, or cmd itself when it has a slash), into out: 0, or -1. */
int		 command_path(const char *cmd, char *out, size_t);
#endif
