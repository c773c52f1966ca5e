#ifndef DAEMON_CLOCK_H
#define DAEMON_CLOCK_H
#include <stdio.h>
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

/* A wall-clock time as ISO 8601 UTC with milliseconds, "2026-12-01T01:00:00.123Z". */
static inline void
wall_iso8601(double wall, char *buf, size_t len)
{
	time_t t = (time_t)wall;
	struct tm tm;
	char s[32];
	gmtime_r(&t, &tm);
	strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", s, (int)((wall - (double)t) * 1000.0));
}

static inline struct timeval
ms_tv(long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	return tv;
}
#endif
