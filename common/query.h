#ifndef COMMON_QUERY_H
#define COMMON_QUERY_H
#include <stddef.h>
#include "buf.h"

/* The admin routes' query strings: decoded as the admin server receives them, re-encoded as they
 * are forwarded to the master. */

/* Decode %XX in place like libmicrohttpd, but a decoded NUL and a malformed escape become DEL
 * (0x7f), so that query_has_control() rejects them instead of the string being silently cut or
 * altered. Returns the new length. */
size_t	query_unescape(char *);
/* Any control character (below 0x20, or DEL)? */
int	query_has_control(const char *, size_t);
/* Append s percent-encoded: everything but unreserved characters (and ',') becomes %XX. */
void	query_encode(struct buf *, const char *, size_t);
/* A query's millisecond value: digits only (else def), at most max. */
long	query_ms(const char *, long def, long max);
#endif
