#ifndef COMMON_TOPOLOGY_H
#define COMMON_TOPOLOGY_H
#include <stddef.h>
#include "cfg.h"

#include <stdint.h>

#define TOPO_MAX_GPUS	64	/* per node */

enum topo_kind { TOPO_STANDARD, TOPO_PER_GPU, TOPO_PER_NODE, TOPO_SPANNING };

/* One logical worker: its share of nodes and GPUs. */
struct topo_endpoint {
	size_t		 group;		/* index into workers.groups */
	const char	*role;
	int		 index;		/* worker index within its role */
	size_t		 first_node;	/* into the node list */
	int		 nnodes;
	uint8_t		 gpus[TOPO_MAX_GPUS];	/* the same indices on every node */
	int		 ngpus;
};

/* One process to start on one node. Ports are 0 when not assigned. */
struct topo_process {
	size_t		 endpoint;
	int		 kind;
	const char	*role;
	int		 worker_index;
	size_t		 node;		/* into the node list */
	int		 node_rank;
	int		 nnodes;	/* nodes of the endpoint */
	size_t		 leader;	/* the endpoint's first node */
	uint8_t		 gpus[TOPO_MAX_GPUS];
	int		 ngpus;
	int		 http_port, bootstrap_port, kv_events_port, nixl_port, sys_port, dp_rpc_port;
	int		 dp_size, dp_size_local, dp_start_rank, dp_rank;	/* dp_rank -1: none */
	int		 headless;
};

struct topology {
	struct topo_endpoint	*endpoints;
	size_t			 nendpoints;
	struct topo_process	*procs;
	size_t			 nprocs;
};

/* Lay the workers of cfg out over nodes (the job's nodes, gpus_per_node each) as srtctl does:
 * endpoints prefill -> decode -> agg, then processes and ports. Returns 0, or -1 with err holding
 * srtctl's message (or one naming what the allocation lacks). */
int	topology_build(const struct cfg *, const struct strv *, long, struct topology *, char *, size_t);
void	topology_free(struct topology *);
/* ((job_id % 5000) * 2) + 1 for a numeric job id, else 0. */
int	topology_jitter(const char *);
#endif
