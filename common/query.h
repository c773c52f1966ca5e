#ifndef COMMON_QUERY_H
#define COMMON_QUERY_H
#include <stddef.h>
#include "buf.h"

/* The admin routes' query strings: forwarded to the master as the client sent them (the master
 * matches /query_key's value undecoded), decoded only where the sidecar reads them itself. */

/* Decode %XX in place like libmicrohttpd, but a decoded NUL and a malformed escape become DEL
 * (0x7f), so that query_has_control() rejects them instead of the string being silently cut or
 * altered. Returns the new length. */
size_t	query_unescape(char *);
/* Any control character (below 0x20, or DEL)? */
int	query_has_control(const char *, size_t);
/* Append one key or value of a query as the client sent it: libmicrohttpd hands it over with each
 * '+' made a space, which becomes '+' again. Returns -1, appending nothing, when it holds a control
 * character, a malformed escape, or an escape of a control character. */
int	query_forward(struct buf *, const char *, size_t);
/* A query's millisecond value: digits only (else def), at most max. */
long	query_ms(const char *, long def, long max);
/* Append s as a query's key or value: RFC 3986's unreserved characters, ',' and ':' as they are,
 * every other byte as %XX. */
void	query_escape(struct buf *, const char *);
#endif
