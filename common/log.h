#ifndef COMMON_LOG_H
#define COMMON_LOG_H
#include <stdarg.h>
#include <stddef.h>

/* Lines go to stderr with sd-daemon priority prefixes ("<3>") so journald keeps levels;
 * on a terminal a timestamp replaces the prefix. */
enum { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_NOTICE = 5, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

void	log_init(int verbose);
void	log_msg(int, const char *, ...) __attribute__((format(printf, 2, 3)));
void	log_vmsg(int, const char *, va_list) __attribute__((format(printf, 2, 0)));
/* A message for the person at the terminal (config errors, option errors): as it is on a terminal,
 * with its priority prefix otherwise, so that journalctl -p err finds a failed start. */
void	log_print(int, const char *, ...) __attribute__((format(printf, 2, 3)));
/* in as one line: each control character as \n, \r, \t or \xNN (every line logged goes through it);
 * at most len - 1 bytes and a NUL into out, an escape never cut in two: the bytes written */
size_t	log_escape(char *out, size_t len, const char *in);
#define log_err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Only before the loop runs: print and exit with a sysexits code. */
void	fatalx(int, const char *, ...) __attribute__((format(printf, 2, 3), noreturn));
#endif
