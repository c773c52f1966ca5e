#ifndef COMMON_WORKERCMD_H
#define COMMON_WORKERCMD_H
#include "arena.h"
#include "buf.h"
#include "cfg.h"
#include "kvlist.h"
#include "topology.h"

/* What one worker process is started with. Its strings are the arena's or literals: read them, never
 * write or free one, nor keep one past workercmd_free. */
struct worker_cmd {
	char		*name;		/* "<role>_w<index>[_r<rank>]" */
	char		*log;		/* <run_dir>/<node>_<role>_w<index>[_r<rank>].log */
	struct strv	 argv;
	struct kvlist	 env;		/* on top of the sidecar's own environment */
	char		 cvd[256];	/* CUDA_VISIBLE_DEVICES given, or "" */
	struct arena	 strings;	/* name, log and every string of argv and env */
	struct buf	 scratch;	/* where a string is put together before it goes there */
};

/* Render process p of t: the group's command template with {placeholders} filled, srtctl's vLLM
 * data-parallel and multi-node flags appended (recipe duplicates dropped) and the NCCL/dist-init
 * flags for SGLang; the environment in srtctl's order (DYN_SYSTEM_PORT, the group's env, then
 * CUDA_VISIBLE_DEVICES, the vLLM per-process ports, then mooncake, which nothing overrides).
 * node_ips holds each node's address, in the order of nodes. */
void	workercmd_build(const struct cfg *, const struct topology *, size_t, const struct strv *,
	    char *const *, const struct kvlist *, struct worker_cmd *);
void	workercmd_free(struct worker_cmd *);
/* workercmd_build again into a built w, reusing the room its lists and arena already have
 * (--plan=all renders thousands in a row): no malloc once the first few were built. */
void	workercmd_rebuild(const struct cfg *, const struct topology *, size_t, const struct strv *,
	    char *const *, const struct kvlist *, struct worker_cmd *);

#endif
