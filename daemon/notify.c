#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include "clock.h"
#include "log.h"
#include "notify.h"

static struct event *watchdog_ev;
static char last_status[2048];

static void
watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

void
notify_init(struct event_base *base)
{
	uint64_t usec = 0;
	/* Pinging at half the interval from a loop timer: a wedged loop stops the pings. */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		struct timeval tv = { (time_t)(usec / 2 / 1000000), (suseconds_t)(usec / 2 % 1000000) };
		watchdog_ev = event_new(base, -1, EV_PERSIST, watchdog_cb, NULL);
		event_add(watchdog_ev, &tv);
		sd_notify(0, "WATCHDOG=1");
		log_info("systemd watchdog every %.3f s", (double)usec / 2e6);
	}
}

void
notify_free(void)
{
	if (watchdog_ev != NULL)
		event_free(watchdog_ev);
	watchdog_ev = NULL;
}

void
notify_ready(const char *status)
{
	snprintf(last_status, sizeof last_status, "%s", status);
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void
notify_status(const char *status)
{
	if (strcmp(status, last_status) == 0)
		return;
	snprintf(last_status, sizeof last_status, "%s", status);
	sd_notifyf(0, "STATUS=%s", status);
}

void
notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

void
notify_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}
