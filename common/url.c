#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "url.h"

/* A DNS name (labels of letters, digits, '-' and '_', 1..63 each) or an IPv4 address. */
static int
valid_name(const char *h, size_t n)
{
	size_t label = 0;
	if (n == 0 || n > 253)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (h[i] == '.') {
			if (label == 0)
				return 0;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)h[i]) && h[i] != '-' && h[i] != '_')
			return 0;
		if (++label > 63)
			return 0;
	}
	return 1;
}

static int
valid_v6(const char *h, size_t n)
{
	if (n < 2 || n > 45)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)h[i]) && h[i] != ':' && h[i] != '.')
			return 0;
	return memchr(h, ':', n) != NULL;
}

static int
parse_port(const char *s, size_t n, int *port)
{
	long v = 0;
	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

/* HOST[:PORT] of length n into host and port (left as it is when absent). */
static int
authority(const char *a, size_t n, char *host, size_t hostlen, int *port, int need_port)
{
	const char *hend, *colon;
	size_t hl;
	if (n > 0 && a[0] == '[') {
		hend = memchr(a, ']', n);
		if (hend == NULL || !valid_v6(a + 1, (size_t)(hend - a - 1)))
			return -1;
		hl = (size_t)(hend - a - 1);
		if (hl >= hostlen)
			return -1;
		memcpy(host, a + 1, hl);
		host[hl] = '\0';
		colon = hend + 1 < a + n ? hend + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return -1;
	} else {
		colon = memchr(a, ':', n);
		hl = colon ? (size_t)(colon - a) : n;
		if (!valid_name(a, hl) || hl >= hostlen)
			return -1;
		memcpy(host, a, hl);
		host[hl] = '\0';
	}
	if (colon == NULL)
		return need_port ? -1 : 0;
	return parse_port(colon + 1, (size_t)(a + n - colon - 1), port);
}

int
url_parse(const char *s, struct url *u, char *err, size_t errlen)
{
	const char *a, *slash;
	size_t n;
	memset(u, 0, sizeof *u);
	u->port = 80;
	if (strncmp(s, "https://", 8) == 0) {
		u->tls = 1;
		u->port = 443;
		a = s + 8;
	} else if (strncmp(s, "http://", 7) == 0)
		a = s + 7;
	else {
		snprintf(err, errlen, "must start with http:// or https://, got \"%.80s\"", s);
		return -1;
	}
	slash = strchr(a, '/');
	n = slash ? (size_t)(slash - a) : strlen(a);
	if (strpbrk(s, " \t\r\n?#@") != NULL || authority(a, n, u->host, sizeof u->host, &u->port, 0) != 0) {
		snprintf(err, errlen, "not a URL of the form http[s]://HOST[:PORT][/PATH]: \"%.80s\"", s);
		return -1;
	}
	snprintf(u->path, sizeof u->path, "%s", slash ? slash : "/");
	if (slash != NULL && strlen(slash) >= sizeof u->path) {
		snprintf(err, errlen, "the path of \"%.60s...\" is too long", s);
		return -1;
	}
	return 0;
}

int
url_split_hostport(const char *s, char *host, size_t hostlen, int *port)
{
	return authority(s, strlen(s), host, hostlen, port, 1);
}
