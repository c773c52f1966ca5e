#include "config.h"
#include <sys/un.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include "httptarget.h"

static void
set_name(struct httpc_target *t, const char *host, int port)
{
	snprintf(t->name, sizeof t->name, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

int
httpc_numeric(const char *host, int port, struct httpc_target *t)
{
	char h[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(host);
	memset(t, 0, sizeof *t);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof h) {
		memcpy(h, host + 1, n - 2);
		h[n - 2] = '\0';
	} else if (n < sizeof h)
		memcpy(h, host, n + 1);
	else
		return -1;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&t->addr[0];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&t->addr[0];
	if (inet_pton(AF_INET, h, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		t->addrlen[0] = sizeof *s4;
	} else if (inet_pton(AF_INET6, h, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		t->addrlen[0] = sizeof *s6;
	} else
		return -1;
	t->naddr = 1;
	set_name(t, h, port);
	return 0;
}

int
httpc_resolve(const char *host, int port, struct httpc_target *t, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	char ps[16];
	int rc;
	if (httpc_numeric(host, port, t) == 0)
		return 0;
	if (*host == '\0' || strlen(host) > 253) {
		snprintf(err, errlen, "\"%.60s%s\" is not a host name (1 to 253 characters)", host,
		    strlen(host) > 60 ? "..." : "");
		return -1;
	}
	snprintf(ps, sizeof ps, "%d", port);
	if ((rc = getaddrinfo(host, ps, &hints, &ai)) != 0) {
		snprintf(err, errlen, "cannot resolve \"%s\": %s", host,
		    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -1;
	}
	memset(t, 0, sizeof *t);
	for (a = ai; a != NULL && t->naddr < HTTPC_MAX_ADDRS; a = a->ai_next) {
		if (a->ai_addrlen > sizeof t->addr[0])
			continue;
		memcpy(&t->addr[t->naddr], a->ai_addr, a->ai_addrlen);
		t->addrlen[t->naddr++] = a->ai_addrlen;
	}
	freeaddrinfo(ai);
	if (t->naddr == 0) {
		snprintf(err, errlen, "cannot resolve \"%s\": no usable address", host);
		return -1;
	}
	set_name(t, host, port);
	return 0;
}

int
httpc_unix(const char *path, struct httpc_target *t)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&t->addr[0];
	memset(t, 0, sizeof *t);
	if (strlen(path) >= sizeof sun->sun_path)
		return -1;
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	t->addrlen[0] = sizeof *sun;
	t->naddr = 1;
	snprintf(t->name, sizeof t->name, "localhost");
	return 0;
}
