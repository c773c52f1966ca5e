#include "config.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addrs.h"

#define IFS_MAX	64

static int
system_resolve(const char *name, char (*out)[NODEADDR_LEN], size_t max, char *err, size_t errlen,
    void *arg)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res, *r;
	int rc, n = 0;
	(void)arg;
	if ((rc = getaddrinfo(name, NULL, &hints, &res)) != 0) {
		snprintf(err, errlen, "%s", gai_strerror(rc));
		return -1;
	}
	for (r = res; r != NULL && (size_t)n < max; r = r->ai_next)
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)r->ai_addr)->sin_addr, out[n], NODEADDR_LEN))
			n++;
	freeaddrinfo(res);
	return n;
}

void
addrs_decide(const char *self_node, const char *node, const char *iface, struct nodeaddr *a)
{
	struct ifaddrs *ifa = NULL;
	struct nodeaddr_if ifs[IFS_MAX];
	char ips[IFS_MAX][INET_ADDRSTRLEN];
	size_t n = 0;
	int self = strcmp(node, self_node) == 0;
	if (self && getifaddrs(&ifa) == 0)
		for (struct ifaddrs *i = ifa; i != NULL && n < IFS_MAX; i = i->ifa_next)
			if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
			    inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, ips[n],
			    sizeof ips[n]) != NULL) {
				ifs[n].name = i->ifa_name;
				ifs[n].addr = ips[n];
				n++;
			}
	nodeaddr_decide(node, self, iface, ifs, n, system_resolve, NULL, a);
	if (ifa != NULL)
		freeifaddrs(ifa);
}
