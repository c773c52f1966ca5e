#ifndef DAEMON_ONESHOT_H
#define DAEMON_ONESHOT_H
#include <stddef.h>
#include "httptarget.h"

/*
 * The command line's client of a running sidecar (--status, ctl): one request at a time on a loop
 * of its own (it never runs inside the daemon's loop), with the daemon's HTTP client, to an admin
 * URL (http or https, with a bearer token) or to the local control socket.
 */
struct oneshot {
	struct httpc_target	 t;
	int			 tls;
	char			 host[300];
	char			 token[4097];
	void			*cred;		/* https: the CA to trust */
	char			 where[400];	/* for messages: the URL or the socket's path */
};

/* url (a host:port or an http(s) URL) or, when url is NULL, the socket's path. token_file and
 * cacert may be NULL. Returns 0, or -1 with err filled and *usage 1 (the token file), 2 (the URL,
 * the socket path or the CA file) or 0 (the host does not resolve). */
int	oneshot_open(struct oneshot *, const char *url, const char *socket, const char *token_file,
	    const char *cacert, int *usage, char *err, size_t);
void	oneshot_close(struct oneshot *);
/* method path (no body): the answer's body (malloc'd) and *code, or NULL with err filled. */
char	*oneshot_call(struct oneshot *, const char *method, const char *path, long timeout_ms, int *code,
	    char *err, size_t);
#endif
