#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "audit.h"
#include "prom.h"
#include "view.h"
#include "xalloc.h"

static struct audit_entry ring[AUDIT_KEEP];
static size_t nring, next;	/* kept, and where the next goes (the oldest once full) */
static double paused_since;

/* counts by (action, kind, outcome), in the order first seen */
static struct count {
	char		 action[24], kind[16], outcome[16];
	unsigned long	 n;
} *counts;
static size_t ncounts;

void
audit_record(const struct audit_entry *e)
{
	size_t i;
	ring[next] = *e;
	next = (next + 1) % AUDIT_KEEP;
	if (nring < AUDIT_KEEP)
		nring++;
	for (i = 0; i < ncounts; i++)
		if (strcmp(counts[i].action, e->action) == 0 && strcmp(counts[i].kind, e->kind) == 0 &&
		    strcmp(counts[i].outcome, e->outcome) == 0)
			break;
	if (i == ncounts) {
		counts = xrealloc(counts, (ncounts + 1) * sizeof *counts);
		memset(&counts[i], 0, sizeof counts[i]);
		memcpy(counts[i].action, e->action, sizeof counts[i].action);
		memcpy(counts[i].kind, e->kind, sizeof counts[i].kind);
		memcpy(counts[i].outcome, e->outcome, sizeof counts[i].outcome);
		ncounts++;
	}
	counts[i].n++;
}

const struct audit_entry *
audit_get(size_t i)
{
	if (i >= nring)
		return NULL;
	return &ring[(next + AUDIT_KEEP - nring + i) % AUDIT_KEEP];
}

void
audit_paused(int on, double wall)
{
	paused_since = on ? wall : 0;
}

double
audit_paused_since(void)
{
	return paused_since;
}

void
audit_view(struct view *v, int paused)
{
	v->paused = paused;
	v->paused_since = paused_since;
	v->actions = xcalloc(AUDIT_KEEP, sizeof *v->actions);
	for (size_t i = 0; i < nring; i++) {
		const struct audit_entry *e = audit_get(i);
		v->actions[v->nactions++] = (struct view_action){ e->at, view_str(v, e->who), view_str(v, e->action),
		    view_str(v, e->target), view_str(v, e->outcome), view_str(v, e->message), e->code };
	}
}

void
audit_render(struct buf *b)
{
	prom_family(b, "mooncake_sidecar_control_actions_total", "The operator's actions (POST /control/...), by "
	    "action, target kind and outcome (ok, noop, conflict, invalid, refused, error).", "counter");
	for (size_t i = 0; i < ncounts; i++) {
		const char *l[] = { "action", counts[i].action, "target_kind", counts[i].kind, "outcome",
			counts[i].outcome, NULL };
		prom_sample(b, "mooncake_sidecar_control_actions_total", l, (double)counts[i].n);
	}
}

void
audit_free(void)
{
	free(counts);
	counts = NULL;
	ncounts = nring = next = 0;
}
