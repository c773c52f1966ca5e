#ifndef DAEMON_PROBE_H
#define DAEMON_PROBE_H
#include <stddef.h>
#include <event2/event.h>

enum probe_kind { PROBE_TCP, PROBE_HTTP };

struct probe;
/* Called once, with the probe still valid; the probe is freed right after. */
typedef void (*probe_cb)(struct probe *, void *);

struct probe_result {
	int	 ok;		/* TCP: connected; HTTP: a whole response arrived */
	int	 timeout;
	int	 status;	/* HTTP status code */
	char	*body;		/* NUL-terminated */
	size_t	 body_len;
	double	 seconds;
	char	 detail[160];	/* why it failed */
};

/* Non-blocking TCP connect or HTTP/1.1 GET to a numeric address. NULL when it could not even start
 * (the callback is then not called). */
struct probe	*probe_start(struct event_base *, int, const char *, int, const char *, long,
		    probe_cb, void *);
const struct probe_result *probe_result(const struct probe *);
/* Abandon a probe without calling back. */
void		 probe_cancel(struct probe *);
#endif
