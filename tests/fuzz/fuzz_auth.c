/* An Authorization header and a token file as anyone may write them (a C string: what follows a NUL
 * is not part of it): no crash; only the exact
 * token passes. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char token[] = "s3cr3t-t0ken-0123456789";
	char *s = malloc(len + 1), out[AUTH_TOKEN_MAX + 1], err[256];
	memcpy(s, data, len);
	s[len] = '\0';
	if (auth_bearer_ok(s, token) && strstr(s, token) == NULL)
		abort();
	if (auth_token_parse(s, len, out, sizeof out, err, sizeof err) == 0 &&
	    (strlen(out) < AUTH_TOKEN_MIN || strchr(out, ' ') != NULL))
		abort();
	{
		char user[256], pass[512];
		if (auth_basic_parse(s, user, sizeof user, pass, sizeof pass) == 0 &&
		    (user[0] == '\0' || strchr(user, ':') != NULL || strlen(user) >= sizeof user))
			abort();
	}
	if (auth_bcrypt_hash_ok(s) && (strlen(s) != 60 || s[0] != '$'))
		abort();
	free(s);
	return 0;
}
