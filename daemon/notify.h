#ifndef DAEMON_NOTIFY_H
#define DAEMON_NOTIFY_H
#include <event2/event.h>

/* sd_notify wrappers; each is a no-op when NOTIFY_SOCKET is unset. */
void	notify_init(struct event_base *);
void	notify_free(void);
void	notify_ready(const char *);
void	notify_status(const char *);
void	notify_stopping(void);
void	notify_reloading(void);
/* NOTIFY_SOCKET is set: what STATUS= would say is worth making. */
int	notify_enabled(void);
#endif
