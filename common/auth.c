#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "atomicfile.h"
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

/* The credentials of an Authorization header of the given scheme ("Bearer ", "Basic "): past the
 * scheme and its spaces, *len bytes without trailing blanks; NULL for another scheme. */
static const char *
credentials(const char *header, const char *scheme, size_t *len)
{
	size_t sl = strlen(scheme), n;
	if (header == NULL || strncasecmp(header, scheme, sl) != 0)
		return NULL;
	header += sl;
	while (*header == ' ')
		header++;
	n = strlen(header);
	while (n > 0 && (header[n - 1] == ' ' || header[n - 1] == '\t'))
		n--;
	*len = n;
	return header;
}

int
auth_bearer_ok(const char *header, const char *token)
{
	size_t tl = strlen(token), hl;
	unsigned char diff = 0;
	if ((header = credentials(header, "Bearer ", &hl)) == NULL)
		return 0;
	/* every byte of the token is looked at, whatever the header holds */
	for (size_t i = 0; i < tl; i++)
		diff |= (unsigned char)(token[i] ^ (i < hl ? header[i] : 0));
	return diff == 0 && hl == tl;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int
auth_basic_parse(const char *header, char *user, size_t ulen, char *pass, size_t plen)
{
	char buf[1024];
	size_t n = 0, len, i;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	const char *colon;
	if ((header = credentials(header, "Basic ", &len)) == NULL)
		return -1;
	if (len == 0 || len % 4 != 0)
		return -1;
	for (i = 0; i < len; i++) {
		int v = b64_value((unsigned char)header[i]);
		if (header[i] == '=' && i >= len - 2) {
			pad++;
			continue;
		}
		if (v < 0 || pad > 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= sizeof buf - 1)
				return -1;
			buf[n++] = (char)((acc >> bits) & 0xff);
		}
	}
	if ((acc & ((1u << bits) - 1)) != 0)
		return -1;		/* bits past the end must be zero (one encoding per text) */
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return -1;
	buf[n] = '\0';
	if ((colon = memchr(buf, ':', n)) == NULL || colon == buf || (size_t)(colon - buf) >= ulen ||
	    n - (size_t)(colon - buf) - 1 >= plen)
		return -1;
	memcpy(user, buf, (size_t)(colon - buf));
	user[colon - buf] = '\0';
	memcpy(pass, colon + 1, n - (size_t)(colon - buf) - 1);
	pass[n - (size_t)(colon - buf) - 1] = '\0';
	return 0;
}

int
auth_bcrypt_hash_ok(const char *h)
{
	static const char alphabet[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;
	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || strchr("aby", h[2]) == NULL || h[2] == '\0' ||
	    h[3] != '$' || h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return 0;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(h + 7, alphabet) == 53;
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

int
auth_token_read(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char why[256], *buf;
	size_t n;
	int rc;
	/* a regular file, opened without waiting (a FIFO there is refused, never read) */
	if ((buf = file_read_at(AT_FDCWD, path, 65536, 0, &n)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, file_read_error(errno, 65536, why, sizeof why));
		return -1;
	}
	rc = auth_token_parse(buf, n, out, len, why, sizeof why);
	explicit_bzero(buf, n);
	free(buf);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
