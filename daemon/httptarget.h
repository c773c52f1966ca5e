#ifndef DAEMON_HTTPTARGET_H
#define DAEMON_HTTPTARGET_H
/* Where daemon/httpc.c connects: a host and port resolved into addresses, before the loop. */
#include <stddef.h>
#include <sys/socket.h>

#define HTTPC_MAX_ADDRS		8
#define HTTPC_NAME_MAX		300	/* "host:port" with a host of up to 253 characters */

/* An upstream resolved before the loop. */
struct httpc_target {
	char			 name[HTTPC_NAME_MAX];	/* for the Host header and messages */
	int			 naddr;
	struct sockaddr_storage	 addr[HTTPC_MAX_ADDRS];
	socklen_t		 addrlen[HTTPC_MAX_ADDRS];
};

/* Resolve host (a name of up to 253 characters, an IPv4 or IPv6 address) and port into a target.
 * Blocking: before the loop only. Returns 0, or -1 with err filled. */
int		 httpc_resolve(const char *, int, struct httpc_target *, char *, size_t);
/* A local socket (the control socket): its path, at most 107 bytes; Host "localhost". */
int		 httpc_unix(const char *, struct httpc_target *);
/* The same for a numeric address, which never blocks. */
int		 httpc_numeric(const char *, int, struct httpc_target *);
#endif
