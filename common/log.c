#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "log.h"

static int log_level = LOG_LVL_INFO;
static int log_tty = -1;	/* before log_init too */

static int
tty(void)
{
	if (log_tty < 0)
		log_tty = isatty(STDERR_FILENO);
	return log_tty;
}

void
log_init(int verbose)
{
	log_level = verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO;
	log_tty = isatty(STDERR_FILENO);
}

void
log_vmsg(int lvl, const char *fmt, va_list ap)
{
	char buf[2048];
	if (lvl > log_level)
		return;
	vsnprintf(buf, sizeof buf, fmt, ap);
	if (tty()) {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		fprintf(stderr, "%02d:%02d:%02d.%03ld %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
		    ts.tv_nsec / 1000000, buf);
	} else
		fprintf(stderr, "<%d>%s\n", lvl, buf);
}

void
log_print(int lvl, const char *fmt, ...)
{
	va_list ap;
	if (!tty())
		fprintf(stderr, "<%d>", lvl);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
log_msg(int lvl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

void
fatalx(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(LOG_LVL_ERR, fmt, ap);
	va_end(ap);
	exit(code);
}
