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
/* The token of the file at path (auth_token_parse's rules). Returns 0, or -1 with err naming the
 * file. */
int	auth_token_read(const char *, char *, size_t, char *, size_t);
/* Does the Authorization header value (NULL: none) carry token? The scheme is matched without
 * regard to case; the comparison takes the same time wherever the first difference is. */
int	auth_bearer_ok(const char *, const char *);
/* "Basic <base64 of user:password>" (the scheme in any case): 0 with user and password (NUL-
 * terminated, the user without ':', neither holding a control character), -1 when the header is
 * not that or does not fit. */
int	auth_basic_parse(const char *, char *, size_t, char *, size_t);
/* Is it a bcrypt hash crypt() checks: $2a$, $2b$ or $2y$, a cost of 04 to 31, 53 characters of
 * salt and hash in bcrypt's alphabet? (A plain-text password is not.) */
int	auth_bcrypt_hash_ok(const char *);
/* Is path (what precedes any '?') one of the NULL-terminated routes? */
int	auth_public(const char *, char *const *);
#endif
