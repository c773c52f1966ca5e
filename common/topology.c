/*
 * srtctl's worker layout: endpoints allocated prefill -> decode ->
 * agg over the job's nodes, expanded into processes (standard; vLLM data parallel per_gpu or
 * per_node), with its port counters. Pure: no I/O.
 */
#include "config.h"
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topology.h"
#include "xalloc.h"

static const char *const role_order[] = { "prefill", "decode", "agg" };

struct ports {
	const struct cfg_ports	*b;
	int			 jitter;
	int			*http, *bootstrap, *dp_rpc;	/* per node; 0: not started */
	int			 kv, nixl, sys;
};

static int
per_node(int *slot, int base, int step)
{
	if (*slot == 0)
		*slot = base;
	*slot += step;
	return *slot - step;
}

static int next_http(struct ports *p, size_t n) { return per_node(&p->http[n], (int)p->b->http_base + p->jitter, (int)p->b->http_stride); }
static int next_bootstrap(struct ports *p, size_t n) { return per_node(&p->bootstrap[n], (int)p->b->bootstrap_base + p->jitter, 1); }
static int next_dp_rpc(struct ports *p, size_t n) { return per_node(&p->dp_rpc[n], (int)p->b->dp_rpc_base, 1); }
static int next_kv(struct ports *p, int n) { return per_node(&p->kv, (int)p->b->kv_events_base, n); }
static int next_nixl(struct ports *p, int n) { return per_node(&p->nixl, (int)p->b->nixl_base, n); }

int
topology_jitter(const char *job_id)
{
	char *end;
	long id;
	if (job_id == NULL || *job_id == '\0' || !isdigit((unsigned char)*job_id))
		return 0;
	id = strtol(job_id, &end, 10);
	return *end == '\0' ? (int)((id % 5000) * 2 + 1) : 0;
}

static struct topo_process *
add_proc(struct topology *t, const struct topo_endpoint *e, int kind, size_t node, int rank,
    struct ports *p)
{
	struct topo_process *pr;
	if ((t->nprocs & (t->nprocs - 1)) == 0)	/* grow at each power of two */
		t->procs = xrealloc(t->procs, (t->nprocs ? t->nprocs * 2 : 1) * sizeof *t->procs);
	pr = &t->procs[t->nprocs++];
	memset(pr, 0, offsetof(struct topo_process, gpus));
	memset(&pr->ngpus, 0, sizeof *pr - offsetof(struct topo_process, ngpus));
	pr->endpoint = (size_t)(e - t->endpoints);
	pr->kind = kind;
	pr->role = e->role;
	pr->worker_index = e->index;
	pr->node = node;
	pr->node_rank = rank;
	pr->nnodes = e->nnodes;
	pr->leader = e->first_node;
	pr->ngpus = e->ngpus;
	memcpy(pr->gpus, e->gpus, (size_t)e->ngpus);
	pr->dp_rank = -1;
	pr->sys_port = p->sys++;
	return pr;
}

/* One process per node of the endpoint; HTTP on the leader, one bootstrap port for a prefill. */
static void
expand_standard(struct topology *t, const struct topo_endpoint *e, int kind, struct ports *p)
{
	int bootstrap = strcmp(e->role, "prefill") == 0 ? next_bootstrap(p, e->first_node) : 0;
	for (int i = 0; i < e->nnodes; i++) {
		size_t node = e->first_node + (size_t)i;
		int http = i == 0 ? next_http(p, node) : 0;
		struct topo_process *pr = add_proc(t, e, kind, node, i, p);
		pr->http_port = http;
		pr->bootstrap_port = bootstrap;
		pr->kv_events_port = next_kv(p, 1);
		pr->nixl_port = next_nixl(p, 1);
	}
}

static void
expand_per_gpu(struct topology *t, const struct topo_endpoint *e, int dp, struct ports *p)
{
	int dp_rpc = next_dp_rpc(p, e->first_node), nixl = next_nixl(p, dp), rank = 0;
	for (int i = 0; i < e->nnodes; i++)
		for (int g = 0; g < e->ngpus; g++, rank++) {
			size_t node = e->first_node + (size_t)i;
			/* Unlike srtctl (HTTP on rank 0 only, for one Dynamo frontend), each rank gets a
			 * port of its own: with vllm serve every rank runs an API server (external load
			 * balancing), and one on port 0 is one nobody can reach. */
			int http = next_http(p, node);
			int boot = rank == 0 && strcmp(e->role, "prefill") == 0 ? next_bootstrap(p, e->first_node) : 0;
			struct topo_process *pr = add_proc(t, e, TOPO_PER_GPU, node, rank, p);
			pr->gpus[0] = e->gpus[g];
			pr->ngpus = 1;
			pr->http_port = http;
			pr->bootstrap_port = boot;
			pr->kv_events_port = next_kv(p, 1);
			pr->nixl_port = nixl;
			pr->dp_rpc_port = dp_rpc;
			pr->dp_size = dp;
			pr->dp_rank = rank;
		}
}

static int
expand_per_node(struct topology *t, const struct topo_endpoint *e, const struct worker_group *g,
    struct ports *p, char *err, size_t errlen)
{
	int replica = (int)(g->tp * g->pp), local = e->ngpus, dp = (int)g->dp;
	if (replica > local) {
		int k;
		if (e->nnodes < 2) {
			snprintf(err, errlen, "cross-node per_node DP requires a multi-node endpoint");
			return -1;
		}
		if (replica % local != 0) {
			snprintf(err, errlen, "%s TP x PP replica size %d does not divide evenly across nodes "
			    "with %d allocated GPUs each", e->role, replica, local);
			return -1;
		}
		k = replica / local;
		if (e->nnodes != dp * k) {
			snprintf(err, errlen, "%s requires %d nodes per DP rank and %d nodes total, but the "
			    "endpoint has %d", e->role, k, dp * k, e->nnodes);
			return -1;
		}
		size_t first = t->nprocs;
		expand_standard(t, e, TOPO_SPANNING, p);
		for (size_t i = first; i < t->nprocs; i++) {
			t->procs[i].dp_size = dp;
			t->procs[i].headless = t->procs[i].node_rank > 0;
		}
		return 0;
	}
	if (local % replica != 0) {
		snprintf(err, errlen, "%s TP x PP replica size %d does not divide the node's %d allocated GPUs",
		    e->role, replica, local);
		return -1;
	}
	int local_dp = local / replica, dp_rpc = next_dp_rpc(p, e->first_node), nixl = next_nixl(p, dp);
	for (int i = 0; i < e->nnodes; i++) {
		size_t node = e->first_node + (size_t)i;
		int http = next_http(p, node);
		int boot = strcmp(e->role, "prefill") == 0 ? next_bootstrap(p, node) : 0;
		struct topo_process *pr = add_proc(t, e, TOPO_PER_NODE, node, i * local_dp, p);
		pr->http_port = http;
		pr->bootstrap_port = boot;
		pr->kv_events_port = next_kv(p, local_dp);
		pr->nixl_port = nixl;
		pr->dp_rpc_port = dp_rpc;
		pr->dp_size = dp;
		pr->dp_size_local = local_dp;
		pr->dp_start_rank = i * local_dp;
	}
	return 0;
}

/* srtctl's allocate_workers_simple: partial-node workers packed, full-node workers take whole nodes,
 * prefill and decode on separate nodes unless colocated. */
static int
allocate(const struct cfg *c, size_t nnodes, long gpn, struct topology *t, char *err, size_t errlen)
{
	size_t node = 0;
	long offset = 0, pd_gpus = 0;
	int have_p = 0, have_d = 0, colocate;
	for (size_t i = 0; i < c->workers.ngroups; i++) {
		const struct worker_group *g = &c->workers.groups[i];
		if (strcmp(g->role, "prefill") == 0 || strcmp(g->role, "decode") == 0)
			pd_gpus += g->count * g->gpus;
		have_p |= strcmp(g->role, "prefill") == 0;
		have_d |= strcmp(g->role, "decode") == 0;
	}
	colocate = strcmp(c->workers.flavor, "vllm") == 0 && c->workers.allow_colocation && have_p &&
	    have_d && pd_gpus <= gpn;
	for (size_t r = 0; r < 3; r++) {
		int index = 0;
		if (strcmp(role_order[r], "decode") == 0 && have_d && !colocate && offset > 0 &&
		    node + 1 < nnodes) {
			node++;
			offset = 0;
		}
		for (size_t gi = 0; gi < c->workers.ngroups; gi++) {
			const struct worker_group *g = &c->workers.groups[gi];
			if (strcmp(g->role, role_order[r]) != 0)
				continue;
			for (long k = 0; k < g->count; k++) {
				struct topo_endpoint *e;
				if ((t->nendpoints & (t->nendpoints - 1)) == 0)
					t->endpoints = xrealloc(t->endpoints,
					    (t->nendpoints ? t->nendpoints * 2 : 1) * sizeof *t->endpoints);
				e = &t->endpoints[t->nendpoints++];
				memset(e, 0, sizeof *e);
				e->group = gi;
				e->role = g->role;
				e->index = index++;
				if (g->gpus >= gpn) {
					e->nnodes = (int)((g->gpus + gpn - 1) / gpn);
					e->first_node = node;
					e->ngpus = (int)gpn;
					node += (size_t)e->nnodes;
				} else {
					if (offset + g->gpus > gpn) {
						node++;
						offset = 0;
					}
					e->first_node = node;
					e->nnodes = 1;
					e->ngpus = (int)g->gpus;
					for (int x = 0; x < e->ngpus; x++)
						e->gpus[x] = (uint8_t)(offset + x);
					offset += g->gpus;
					if (offset == gpn || c->workers.spread) {
						node++;
						offset = 0;
					}
				}
				if (g->gpus >= gpn)
					for (int x = 0; x < e->ngpus; x++)
						e->gpus[x] = (uint8_t)x;
				if (e->first_node + (size_t)e->nnodes > nnodes) {
					snprintf(err, errlen, "%s worker %d needs node %zu of the job, but job.nodes has "
					    "%zu nodes of %ld GPUs", e->role, e->index,
					    e->first_node + (size_t)e->nnodes, nnodes, gpn);
					return -1;
				}
			}
		}
	}
	return 0;
}

int
topology_build(const struct cfg *c, const struct strv *nodes, long gpn, struct topology *t,
    char *err, size_t errlen)
{
	struct ports p = { &c->workers.ports, c->workers.ports.job_jitter ? topology_jitter(c->job.id) : 0,
	    NULL, NULL, NULL, 0, 0, (int)c->workers.ports.sys_base };
	int rc = 0;

	memset(t, 0, sizeof *t);
	if (c->workers.ngroups == 0)
		return 0;
	if (gpn < 1 || gpn > TOPO_MAX_GPUS) {
		snprintf(err, errlen, "gpus_per_node must be 1..%d, got %ld", TOPO_MAX_GPUS, gpn);
		return -1;
	}
	if (allocate(c, nodes->n, gpn, t, err, errlen) != 0) {
		topology_free(t);
		return -1;
	}
	p.http = xcalloc(nodes->n, sizeof(int));
	p.bootstrap = xcalloc(nodes->n, sizeof(int));
	p.dp_rpc = xcalloc(nodes->n, sizeof(int));
	for (size_t i = 0; i < t->nendpoints && rc == 0; i++) {
		const struct topo_endpoint *e = &t->endpoints[i];
		const struct worker_group *g = &c->workers.groups[e->group];
		int engine = strcmp(c->workers.flavor, "vllm") == 0 || strcmp(c->workers.flavor, "sglang") == 0;
		if (engine && g->dp <= 1 && (g->tp * g->pp > (long)e->ngpus * e->nnodes ||
		    (e->nnodes > 1 && g->tp * g->pp != (long)e->ngpus * e->nnodes))) {
			/* vLLM's world size (vllm/config/parallel.py ParallelConfig: tp x pp) and SGLang's
			 * (server_args.py: tp_size x pp_size) need that many GPUs, and across nodes all
			 * of them, or it fails at start (fewer devices than ranks, or "world_size must be
			 * divisible by nnodes"); on one node a smaller world leaves GPUs idle, as asked */
			snprintf(err, errlen, "%s tensor-parallel-size=%ld x pipeline-parallel-size=%ld is %ld "
			    "GPUs, but the endpoint has %d allocated GPUs (%d node%s x %d)", e->role, g->tp,
			    g->pp, g->tp * g->pp, e->ngpus * e->nnodes, e->nnodes, e->nnodes == 1 ? "" : "s",
			    e->ngpus);
			rc = -1;
		} else if (strcmp(c->workers.flavor, "vllm") != 0 || g->dp <= 1)
			expand_standard(t, e, TOPO_STANDARD, &p);
		else if (strcmp(c->workers.dp_launch_mode, "per_gpu") == 0 && g->tp * g->pp > 1) {
			/* one process per GPU gets ranks 0..gpus-1, and vLLM requires data_parallel_rank <
			 * data_parallel_size (vllm/config/parallel.py) */
			snprintf(err, errlen, "%s dp_launch_mode per_gpu starts one process per GPU, so with "
			    "tensor-parallel-size=%ld x pipeline-parallel-size=%ld its ranks would reach %d "
			    "while data-parallel-size is %ld: use dp_launch_mode per_node", e->role, g->tp,
			    g->pp, e->ngpus * e->nnodes - 1, g->dp);
			rc = -1;
		}
		else if (g->dp * g->tp * g->pp != (long)e->ngpus * e->nnodes) {
			snprintf(err, errlen, "%s data-parallel-size=%ld, tensor-parallel-size=%ld, and "
			    "pipeline-parallel-size=%ld require %ld GPUs, but the endpoint has %d allocated GPUs",
			    e->role, g->dp, g->tp, g->pp, g->dp * g->tp * g->pp, e->ngpus * e->nnodes);
			rc = -1;
		} else if (strcmp(c->workers.dp_launch_mode, "per_gpu") == 0)
			expand_per_gpu(t, e, (int)g->dp, &p);
		else
			rc = expand_per_node(t, e, g, &p, err, errlen);
	}
	free(p.http);
	free(p.bootstrap);
	free(p.dp_rpc);
	if (rc != 0)
		topology_free(t);
	return rc;
}

void
topology_free(struct topology *t)
{
	free(t->endpoints);
	free(t->procs);
	memset(t, 0, sizeof *t);
}
