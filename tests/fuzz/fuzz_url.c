/* URLs and host:port strings: no crash; a parsed URL's host is a bounded string and its port in range. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "url.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1), err[256], host[URL_HOST_MAX];
	struct url u;
	int port = 0;
	memcpy(s, data, len);
	s[len] = '\0';
	if (url_parse(s, &u, err, sizeof err) == 0 && (strlen(u.host) == 0 || strlen(u.host) > 253 ||
	    u.port < 1 || u.port > 65535 || u.path[0] != '/'))
		abort();
	if (url_split_hostport(s, host, sizeof host, &port) == 0 && (port < 1 || port > 65535))
		abort();
	free(s);
	return 0;
}
