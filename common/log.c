#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* One event, one line: a control character in what is logged (a request's ?target=, a peer's
 * message, a file's name) is written escaped (\n, \r, \t, \xNN), so that nothing logged can start
 * a line of its own, with a priority prefix journald would read, or steer a terminal. Bytes of 0x80
 * and above (UTF-8) are kept. */
size_t
log_escape(char *out, size_t len, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	if (len == 0)
		return 0;
	for (const unsigned char *p = (const unsigned char *)in; *p != '\0'; p++) {
		char e[4];
		size_t k = 0;
		if (*p >= 0x20 && *p != 0x7f)
			e[k++] = (char)*p;
		else {
			e[k++] = '\\';
			if (*p == '\n')
				e[k++] = 'n';
			else if (*p == '\r')
				e[k++] = 'r';
			else if (*p == '\t')
				e[k++] = 't';
			else {
				e[k++] = 'x';
				e[k++] = hex[*p >> 4];
				e[k++] = hex[*p & 15];
			}
		}
		if (o + k >= len)
			break;
		memcpy(out + o, e, k);
		o += k;
	}
	out[o] = '\0';
	return o;
}

void
log_vmsg(int lvl, const char *fmt, va_list ap)
{
	char buf[2048], line[4 * sizeof buf];
	if (lvl > log_level)
		return;
	vsnprintf(buf, sizeof buf, fmt, ap);
	log_escape(line, sizeof line, buf);
	if (tty()) {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		fprintf(stderr, "%02d:%02d:%02d.%03ld %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
		    ts.tv_nsec / 1000000, line);
	} else
		fprintf(stderr, "<%d>%s\n", lvl, line);
}

void
log_print(int lvl, const char *fmt, ...)
{
	char buf[2048], line[4 * sizeof buf];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	log_escape(line, sizeof line, buf);
	if (!tty())
		fprintf(stderr, "<%d>", lvl);
	fprintf(stderr, "%s\n", line);
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
