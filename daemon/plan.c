#include "config.h"
#include <string.h>
#include <sysexits.h>
#include <jansson.h>
#include "master.h"
#include "plan.h"
#include "xalloc.h"

static json_t *
env_json(const struct kvlist *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

static json_t *
node_plan(const struct cfg *cfg, const char *node)
{
	json_t *o = json_object(), *files = json_array();
	json_object_set_new(o, "node", json_string(node));
	if (cfg->master.enabled && strcmp(cfg->master.node, node) == 0) {
		json_t *m = json_object(), *argv = json_array();
		char **a = master_argv(cfg);
		for (char **p = a; *p != NULL; p++)
			json_array_append_new(argv, json_string(*p));
		strv_freev(a);
		json_object_set_new(m, "node", json_string(node));
		json_object_set_new(m, "role", json_string("master"));
		json_object_set_new(m, "argv", argv);
		json_object_set_new(m, "env", env_json(&cfg->master.env));
		json_object_set_new(m, "log", json_sprintf("%s/mooncake_master.log", cfg->job.run_dir));
		json_object_set_new(m, "pid_file", json_sprintf("%s/mooncake_master.pid", cfg->job.run_dir));
		json_object_set_new(o, "master", m);
	} else
		json_object_set_new(o, "master", json_null());
	json_object_set_new(o, "processes", json_array());
	json_array_append_new(files, json_sprintf("%s/mooncake.env", cfg->job.run_dir));
	if (strcmp(cfg->endpoints.flavor, "vllm") == 0)
		json_array_append_new(files, json_sprintf("%s/mooncake_store_config.json",
		    cfg->job.run_dir));
	json_array_append_new(files, json_sprintf("%s/endpoints.json", cfg->job.run_dir));
	json_object_set_new(o, "files", files);
	return o;
}

int
plan_print(const struct cfg *cfg, int all, FILE *f)
{
	json_t *root;
	if (all) {
		json_t *nodes = json_array();
		for (size_t i = 0; i < cfg->job.nodes.n; i++)
			json_array_append_new(nodes, node_plan(cfg, cfg->job.nodes.v[i]));
		root = json_object();
		json_object_set_new(root, "job_id", json_string(cfg->job.id));
		json_object_set_new(root, "nodes", nodes);
	} else {
		root = node_plan(cfg, cfg->job.node);
		json_object_set_new(root, "job_id", json_string(cfg->job.id));
	}
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return fflush(f) == 0 ? 0 : EX_IOERR;
}
