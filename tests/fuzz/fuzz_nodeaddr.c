/* A leader sidecar's /status as another node reads it, and addresses as a resolver or an interface
 * gives them: no crash; an address taken is usable; a decision always names its source. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nodeaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The input's lines as the resolver's answers. */
static int
lines(const char *name, char (*out)[NODEADDR_LEN], size_t max, char *err, size_t errlen, void *arg)
{
	const char *p = arg;
	int n = 0;
	(void)name;
	(void)err;
	(void)errlen;
	while (*p && (size_t)n < max) {
		size_t l = strcspn(p, "\n");
		memcpy(out[n], p, l < NODEADDR_LEN - 1 ? l : NODEADDR_LEN - 1);
		out[n][l < NODEADDR_LEN - 1 ? l : NODEADDR_LEN - 1] = '\0';
		n++;
		p += l + (p[l] == '\n');
	}
	return n > 0 ? n : -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char addr[NODEADDR_LEN], err[256], *s = malloc(len + 1);
	struct nodeaddr a;
	struct nodeaddr_if ifs[1] = { { "eth0", NULL } };
	memcpy(s, data, len);
	s[len] = '\0';
	if (nodeaddr_from_status((const char *)data, len, addr, sizeof addr, err, sizeof err) == 0 &&
	    !nodeaddr_usable(addr))
		abort();
	ifs[0].addr = s;
	nodeaddr_decide("n1", 1, len % 2 ? "eth0" : "", ifs, 1, lines, s, &a);
	if (a.source[0] == '\0' || (a.quality == NODEADDR_GOOD && !nodeaddr_usable(a.addr)))
		abort();
	free(s);
	return 0;
}
