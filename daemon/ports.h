#ifndef DAEMON_PORTS_H
#define DAEMON_PORTS_H
#include <stddef.h>
#include <sys/types.h>

/* 0 when nothing listens on the port (a bind test on the wildcard address); else -1 with a message
 * that names the holder's pid and command when /proc tells. */
int	ports_check_free(int, char *, size_t);
/* 1 when, on each of the ports, every listening socket belongs to a process of the group pgid (and
 * at least one does); 0 with a message naming the port's foreign holder otherwise. */
int	ports_owned_by(pid_t, const int *, size_t, char *, size_t);
/* The pid holding a listening socket on port, or 0. */
pid_t	ports_holder(int);
/* How many connections to a local port are established (its clients', on this host's side). */
size_t	ports_clients(int);
#endif
