#ifndef DAEMON_MASTERFLAGS_H
#define DAEMON_MASTERFLAGS_H
#include "cfg.h"

/* Ask master.command for its flags (--helpxml, --version; cached by the binary's path, size and
 * mtime) and check the arguments it would be started with: one error per flag it would refuse,
 * naming the key, the flag and its version; a warning when it cannot be asked. Blocking (at most a
 * few seconds): before the loop. */
void		 master_flags_check(const struct cfg *, struct strv *errs, struct strv *warns);
#endif
