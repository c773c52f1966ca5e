#ifndef COMMON_WORKERCMD_H
#define COMMON_WORKERCMD_H
#include "cfg.h"
#include "kvlist.h"
#include "topology.h"

/* What one worker process is started with. */
struct worker_cmd {
	char		*name;		/* "<role>_w<index>[_r<rank>]" */
	char		*log;		/* <run_dir>/<node>_<role>_w<index>[_r<rank>].log */
	struct strv	 argv;
	struct kvlist	 env;		/* on top of the sidecar's own environment */
	char		 cvd[256];	/* CUDA_VISIBLE_DEVICES given, or "" */
};

/* Render process p of t: the group's command template with {placeholders} filled, srtctl's vLLM
 * data-parallel and multi-node flags appended (recipe duplicates dropped) and the NCCL/dist-init
 * flags for SGLang; the environment in srtctl's order (DYN_SYSTEM_PORT, the group's env, then
 * CUDA_VISIBLE_DEVICES, the vLLM per-process ports, then mooncake, which nothing overrides).
 * node_ips holds each node's address, in the order of nodes. */
void	workercmd_build(const struct cfg *, const struct topology *, size_t, const struct strv *,
	    char *const *, const struct kvlist *, struct worker_cmd *);
void	workercmd_free(struct worker_cmd *);
#endif
