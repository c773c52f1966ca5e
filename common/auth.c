#include "config.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "auth.h"

int
auth_token_parse(const char *text, size_t len, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t n = 0;
	while (n < len && text[n] != '\n' && !(text[n] == '\r' && n + 1 < len && text[n + 1] == '\n'))
		n++;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] <= 0x20 || (unsigned char)text[i] >= 0x7f) {
			snprintf(err, errlen, "the token holds a blank or a character that is not visible ASCII "
			    "(at byte %zu)", i);
			return -1;
		}
	if (n < AUTH_TOKEN_MIN || n > AUTH_TOKEN_MAX || n >= outlen) {
		snprintf(err, errlen, "the token is %zu characters long; it must be %d to %d", n, AUTH_TOKEN_MIN,
		    AUTH_TOKEN_MAX);
		return -1;
	}
	memcpy(out, text, n);
	out[n] = '\0';
	return 0;
}

int
auth_bearer_ok(const char *header, const char *token)
{
	size_t tl = strlen(token), hl;
	unsigned char diff = 0;
	if (header == NULL || strncasecmp(header, "Bearer ", 7) != 0)
		return 0;
	header += 7;
	while (*header == ' ')
		header++;
	hl = strlen(header);
	while (hl > 0 && (header[hl - 1] == ' ' || header[hl - 1] == '\t'))
		hl--;
	/* every byte of the token is looked at, whatever the header holds */
	for (size_t i = 0; i < tl; i++)
		diff |= (unsigned char)(token[i] ^ (i < hl ? header[i] : 0));
	return diff == 0 && hl == tl;
}

int
auth_public(const char *path, char *const *routes)
{
	size_t n = strcspn(path, "?");
	for (; routes != NULL && *routes != NULL; routes++)
		if (strlen(*routes) == n && strncmp(*routes, path, n) == 0)
			return 1;
	return 0;
}
