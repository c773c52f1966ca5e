/* The view's own storage; what fills it is each component's (workers_view()) and the sidecar
 * step's (sidecar_view()). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "view.h"

const char *const view_state_names[] = { "stopped", "starting", "ready", "backoff", "stopping", "fatal" };
const int view_nstates = 6;
const double view_ready_buckets[VIEW_READY_NBUCKETS] = { 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800 };

const char *
view_str(struct view *v, const char *s)
{
	return s != NULL ? arena_strdup(&v->strings, s) : NULL;
}

void
view_free(struct view *v)
{
	for (size_t i = 0; i < v->ngangs; i++) {
		free(v->gangs[i].nodes);
		free(v->gangs[i].members);
	}
	free(v->gangs);
	free(v->workers);
	free(v->children);
	free(v->ready_hist);
	free(v->sd);
	free(v->actions);
	arena_free(&v->strings);
	memset(v, 0, sizeof *v);
}
