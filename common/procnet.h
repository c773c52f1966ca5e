#ifndef COMMON_PROCNET_H
#define COMMON_PROCNET_H
#include <stddef.h>

/* Inodes of the LISTEN sockets on a local port, read from the text of /proc/net/tcp or tcp6.
 * Returns how many were found (at most max are stored). */
size_t	procnet_listeners(const char *, int, unsigned long *, size_t);
/* How many established connections have a local port: the server's side of its clients'. */
size_t	procnet_established(const char *, int);
/* The inode of a "socket:[N]" fd link target, or 0. */
unsigned long procnet_socket_inode(const char *);
#endif
