#ifndef COMMON_NODEADDR_H
#define COMMON_NODEADDR_H
#include <stddef.h>

/*
 * Which address a node's workers bind and dial (--data-parallel-address, --master-addr,
 * --dist-init-addr, VLLM_NIXL_SIDE_CHANNEL_HOST, MOONCAKE_LOCAL_HOSTNAME), decided as srtctl
 * does (core/ip_utils/get_node_ip.sh): the first usable IPv4 address of job.network_interface,
 * preferring a private (RFC 1918) one; without an interface, what the node's name resolves to.
 * "Usable" excludes 0.0.0.0, 127.0.0.0/8 and 169.254.0.0/16. Pure: the machine's interfaces and
 * the resolver are given.
 */

#define NODEADDR_LEN	64

enum nodeaddr_quality {
	NODEADDR_GOOD,		/* routable: from the interface, or the name resolves to it */
	NODEADDR_LOOPBACK,	/* the name resolves only to unusable addresses */
	NODEADDR_UNRESOLVED,	/* the name does not resolve: it is used as it is */
	NODEADDR_REMOTE,	/* another node's interface: only its own sidecar knows it */
	NODEADDR_NO_IFACE	/* job.network_interface has no usable IPv4 address here */
};

struct nodeaddr {
	char	addr[NODEADDR_LEN];
	char	source[256];	/* where addr came from, for --plan, /status and errors */
	int	quality;
};

/* One IPv4 address of this machine and the interface that carries it. */
struct nodeaddr_if {
	const char	*name;
	const char	*addr;
};

/* Resolve name into up to max IPv4 addresses (dotted quads). Returns how many, or -1 with err. */
typedef int nodeaddr_resolver(const char *name, char (*out)[NODEADDR_LEN], size_t max, char *err,
    size_t errlen, void *arg);

/* Is ip (dotted quad) usable across nodes? */
int	nodeaddr_usable(const char *);
/* The first usable of n addresses, a private one first. Returns its index, or -1. */
int	nodeaddr_pick(const char *const *, size_t);

/* Decide node's address. self: node is this machine (its interfaces are ifs). iface:
 * job.network_interface or "". Without an interface, a name that resolves only to loopback on
 * this machine falls back to its first usable interface address (quality NODEADDR_LOOPBACK). */
void	nodeaddr_decide(const char *node, int self, const char *iface, const struct nodeaddr_if *,
	    size_t, nodeaddr_resolver *, void *, struct nodeaddr *);

/* For a node whose workers talk across nodes (a multi-node job): is a is good enough? Returns 0,
 * or -1 with err naming the node and what to do. NODEADDR_REMOTE is not an error here: the
 * caller asks that node's sidecar. */
int	nodeaddr_check(const struct nodeaddr *, const char *node, const char *iface, char *, size_t);

/* The address a sidecar's /status body names for its node ("node_address": {"address",
 * "source"}), usable and not pending. Returns 0, or -1 with err saying why not. */
int	nodeaddr_from_status(const char *, size_t, char *, size_t, char *, size_t);
#endif
