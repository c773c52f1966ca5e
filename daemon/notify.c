#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include "clock.h"
#include "log.h"
#include "notify.h"

static struct event *watchdog_ev, *status_ev;
static int enabled;	/* NOTIFY_SOCKET is set: otherwise nothing is formatted or sent */
static char last_status[2048];	/* the latest STATUS=, sent or about to be */

/* STATUS= goes out at the end of the loop pass that set it, after the events already active: a
 * restart due now (backoff 0) does not wait for systemd to be woken first. While it waits,
 * status_ev is active with EV_TIMEOUT, which event_pending() reports. */
static void
status_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_notifyf(0, "STATUS=%s", last_status);
}

/* READY=1 and STOPPING=1 carry their own STATUS=: one still to be sent would come after them. */
static void
status_drop(void)
{
	if (status_ev != NULL)
		event_del(status_ev);
}

static void
watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

void
notify_init(struct event_base *base)
{
	uint64_t usec = 0;
	enabled = getenv("NOTIFY_SOCKET") != NULL;
	status_ev = event_new(base, -1, 0, status_cb, NULL);
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
	if (status_ev != NULL && event_pending(status_ev, EV_TIMEOUT, NULL))
		status_cb(-1, 0, NULL);
	if (status_ev != NULL)
		event_free(status_ev);
	status_ev = NULL;
}

void
notify_ready(const char *status)
{
	status_drop();
	snprintf(last_status, sizeof last_status, "%s", status);
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void
notify_status(const char *status)
{
	if (!enabled || strcmp(status, last_status) == 0)
		return;
	snprintf(last_status, sizeof last_status, "%s", status);
	if (status_ev != NULL)
		event_active(status_ev, EV_TIMEOUT, 0);
	else
		sd_notifyf(0, "STATUS=%s", status);
}

void
notify_stopping(void)
{
	status_drop();
	snprintf(last_status, sizeof last_status, "stopping");
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

void
notify_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}

int
notify_enabled(void)
{
	return enabled;
}
