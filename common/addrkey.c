#include "config.h"
#include <netinet/in.h>
#include <string.h>
#include "addrkey.h"

struct addrkey
addrkey_of(const struct sockaddr *sa, socklen_t len)
{
	struct addrkey k = { 0, 0 };
	if (sa == NULL)
		return k;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		k.family = AF_INET;
		k.bits = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
		if (memcmp(b, mapped, sizeof mapped) == 0) {
			k.family = AF_INET;
			k.bits = (uint64_t)b[12] << 24 | (uint64_t)b[13] << 16 | (uint64_t)b[14] << 8 | b[15];
		} else {
			k.family = AF_INET6;
			for (int i = 0; i < 8; i++)
				k.bits = k.bits << 8 | b[i];
		}
	}
	return k;
}

int
addrkey_eq(const struct addrkey *a, const struct addrkey *b)
{
	return a->family == b->family && a->bits == b->bits;
}

uint64_t
addrkey_hash(const struct addrkey *k)
{
	uint64_t h = k->bits ^ ((uint64_t)k->family << 56);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}
