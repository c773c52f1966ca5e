#ifndef COMMON_AUTH_H
#define COMMON_AUTH_H
#include <stddef.h>

/*
 * Bearer-token access to the admin API (admin.auth.bearer_token_file), as a Prometheus
 * exporter's web configuration does it: "Authorization: Bearer <token>", compared in constant
 * time; admin.public_routes answer without it.
 */

#define AUTH_TOKEN_MIN	16
#define AUTH_TOKEN_MAX	4096

/* The token of a token file: its first line without the line end, AUTH_TOKEN_MIN..AUTH_TOKEN_MAX
 * visible ASCII characters. Returns 0, or -1 with err saying what is wrong. */
int	auth_token_parse(const char *, size_t, char *, size_t, char *, size_t);
/* Does the Authorization header value (NULL: none) carry token? The scheme is matched without
 * regard to case; the comparison takes the same time wherever the first difference is. */
int	auth_bearer_ok(const char *, const char *);
/* Is path (what precedes any '?') one of the NULL-terminated routes? */
int	auth_public(const char *, char *const *);
#endif
