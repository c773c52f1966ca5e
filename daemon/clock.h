#ifndef DAEMON_CLOCK_H
#define DAEMON_CLOCK_H
#include <sys/time.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC: every interval and deadline in the daemon uses it. */
static inline double
mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double
wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline struct timeval
ms_tv(long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	return tv;
}
#endif
