#ifndef COMMON_URL_H
#define COMMON_URL_H
#include <stddef.h>

#define URL_HOST_MAX	256	/* a DNS name of up to 253 characters, or an IPv6 address */

struct url {
	char	host[URL_HOST_MAX];	/* without the brackets of an IPv6 literal */
	int	port;
	char	path[1024];		/* "/" when the URL has none */
	int	tls;			/* https */
};

/* "http://HOST[:PORT][/PATH]" or "https://..." (HOST a name, an IPv4 address or a bracketed IPv6
 * one; PORT 80, or 443 for https, by default). Returns 0, or -1 with err saying what is wrong. */
int	url_parse(const char *, struct url *, char *, size_t);
/* "HOST:PORT", "[V6]:PORT" into host and port (1..65535). */
int	url_split_hostport(const char *, char *, size_t, int *);
#endif
