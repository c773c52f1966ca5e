#ifndef COMMON_ADDRKEY_H
#define COMMON_ADDRKEY_H
/*
 * Whom a per-address connection limit counts as one client: an IPv4 address, or an IPv6 /64 (one
 * host or one subnet's worth of addresses: the least a single machine is given, so that counting
 * whole IPv6 addresses would not limit anyone). An IPv4-mapped IPv6 address is its IPv4 address.
 * Pure.
 */
#include <stdint.h>
#include <sys/socket.h>

struct addrkey {
	int		family;		/* AF_INET, AF_INET6; 0: none (another family: not limited) */
	uint64_t	bits;		/* the IPv4 address, or the /64 prefix */
};

struct addrkey	addrkey_of(const struct sockaddr *, socklen_t);
int		addrkey_eq(const struct addrkey *, const struct addrkey *);
uint64_t	addrkey_hash(const struct addrkey *);
#endif
