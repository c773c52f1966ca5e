#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "nodeaddr.h"

#define RESOLVED_MAX	16

/* A dotted quad's four numbers, or -1 when s is not one. */
static int
quad(const char *s, int q[4])
{
	int n = 0;
	for (int i = 0; i < 4; i++) {
		int v = 0, digits = 0;
		if (i > 0 && s[n++] != '.')
			return -1;
		while (s[n] >= '0' && s[n] <= '9' && digits < 4) {
			v = v * 10 + (s[n++] - '0');
			digits++;
		}
		if (digits == 0 || digits > 3 || v > 255)
			return -1;
		q[i] = v;
	}
	return s[n] == '\0' ? 0 : -1;
}

int
nodeaddr_usable(const char *ip)
{
	int q[4];
	if (ip == NULL || quad(ip, q) != 0)
		return 0;
	if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
		return 0;
	return q[0] != 127 && !(q[0] == 169 && q[1] == 254);
}

static int
private(const char *ip)
{
	int q[4];
	return quad(ip, q) == 0 && (q[0] == 10 || (q[0] == 172 && q[1] >= 16 && q[1] <= 31) ||
	    (q[0] == 192 && q[1] == 168));
}

int
nodeaddr_pick(const char *const *ips, size_t n)
{
	int first = -1;
	for (size_t i = 0; i < n; i++) {
		if (!nodeaddr_usable(ips[i]))
			continue;
		if (private(ips[i]))
			return (int)i;
		if (first < 0)
			first = (int)i;
	}
	return first;
}

/* The usable address of this machine's interfaces (only iface's, when iface is not NULL). */
static int
pick_iface(const struct nodeaddr_if *ifs, size_t nifs, const char *iface)
{
	const char *ips[64];
	size_t idx[64], n = 0;
	for (size_t i = 0; i < nifs && n < 64; i++)
		if (iface == NULL || strcmp(ifs[i].name, iface) == 0) {
			idx[n] = i;
			ips[n++] = ifs[i].addr;
		}
	int k = nodeaddr_pick(ips, n);
	return k < 0 ? -1 : (int)idx[k];
}

#define SET(a, q, ip, ...) do {						\
	(a)->quality = (q);							\
	snprintf((a)->addr, sizeof (a)->addr, "%s", (ip));			\
	snprintf((a)->source, sizeof (a)->source, __VA_ARGS__);		\
} while (0)

void
nodeaddr_decide(const char *node, int self, const char *iface, const struct nodeaddr_if *ifs,
    size_t nifs, nodeaddr_resolver *resolve, void *arg, struct nodeaddr *a)
{
	char got[RESOLVED_MAX][NODEADDR_LEN], err[200] = "";
	const char *ips[RESOLVED_MAX];
	int n, k;

	if (iface != NULL && iface[0] != '\0') {
		if (!self)
			SET(a, NODEADDR_REMOTE, node, "interface %s of %s: its sidecar names it", iface, node);
		else if ((k = pick_iface(ifs, nifs, iface)) >= 0)
			SET(a, NODEADDR_GOOD, ifs[k].addr, "interface %s", iface);
		else
			SET(a, NODEADDR_NO_IFACE, node, "interface %s: no usable IPv4 address on it", iface);
		return;
	}
	n = resolve(node, got, RESOLVED_MAX, err, sizeof err, arg);
	for (int i = 0; i < n && i < RESOLVED_MAX; i++)
		ips[i] = got[i];
	if (n > RESOLVED_MAX)
		n = RESOLVED_MAX;
	if (n > 0 && (k = nodeaddr_pick(ips, (size_t)n)) >= 0)
		SET(a, NODEADDR_GOOD, got[k], "the name %s resolves to it", node);
	else if (n > 0 && self && (k = pick_iface(ifs, nifs, NULL)) >= 0)
		SET(a, NODEADDR_LOOPBACK, ifs[k].addr, "interface %s (the name %s resolves only to %s)",
		    ifs[k].name, node, got[0]);
	else if (n > 0)
		SET(a, NODEADDR_LOOPBACK, got[0], "the name %s resolves only to it", node);
	else
		SET(a, NODEADDR_UNRESOLVED, node, "unresolved (%s): the name is used as it is",
		    err[0] ? err : "no IPv4 address");
}

int
nodeaddr_check(const struct nodeaddr *a, const char *node, const char *iface, char *err, size_t len)
{
	switch (a->quality) {
	case NODEADDR_GOOD:
	case NODEADDR_REMOTE:
		return 0;
	case NODEADDR_NO_IFACE:
		snprintf(err, len, "job.network_interface: node %s has no usable IPv4 address on interface %s",
		    node, iface);
		return -1;
	default:
		snprintf(err, len, "job.nodes: node %s has no address other nodes can reach (%s); set "
		    "job.network_interface to the interface its workers use, or make the name resolve to a "
		    "routable address", node, a->source);
		return -1;
	}
}

int
nodeaddr_from_status(const char *body, size_t len, char *addr, size_t alen, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = json_loadb(body, len, 0, &je), *na;
	const char *s;
	int rc = -1;
	if (j == NULL) {
		snprintf(err, errlen, "/status is not JSON: %s", je.text);
		return -1;
	}
	na = json_object_get(j, "node_address");
	s = json_string_value(json_object_get(na, "address"));
	if (!json_is_object(na) || s == NULL)
		snprintf(err, errlen, "/status names no node_address.address");
	else if (!nodeaddr_usable(s))
		snprintf(err, errlen, "/status names node_address \"%.64s\", not a usable IPv4 address", s);
	else if (strlen(s) >= alen)
		snprintf(err, errlen, "/status names an address too long");
	else {
		snprintf(addr, alen, "%s", s);
		rc = 0;
	}
	json_decref(j);
	return rc;
}
