#ifndef TESTS_TOPO_HELPER_H
#define TESTS_TOPO_HELPER_H
#include <check.h>
#include <stdlib.h>
#include "cfg.h"
#include "hostlist.h"
#include "topology.h"
#include "xalloc.h"

/* A config with the given "workers" object, laid out on a hostlist of nodes with gpn GPUs each.
 * Returns topology_build's result; err holds its message. */
static inline int
topo_load(const char *workers, const char *nodes, long gpn, const char *job_id, struct cfg *c,
    struct strv *list, struct topology *t, char *err, size_t errlen)
{
	struct strv errs = { 0 };
	char *json = xasprintf("{\"job\":{\"id\":\"%s\",\"gpus_per_node\":%ld},\"workers\":%s}",
	    job_id ? job_id : "1", gpn, workers);
	int rc = cfg_load_string(json, NULL, c, &errs);
	ck_assert_msg(rc == 0, "config: %s", errs.n ? errs.v[0] : "");
	strv_free(&errs);
	free(json);
	memset(list, 0, sizeof *list);
	hostlist_expand(nodes, list, err, errlen);
	return topology_build(c, list, gpn, t, err, errlen);
}

#define GROUPS(flavor, extra, groups) "{\"flavor\":\"" flavor "\"" extra ",\"groups\":[" groups "]}"
#define G(role, count, gpus, more) "{\"role\":\"" role "\",\"count\":" #count ",\"gpus\":" #gpus \
	more ",\"command\":[\"w\"]}"
#endif
