#include "config.h"
#include <stdlib.h>
#include "backoff.h"
#include "xalloc.h"

long
backoff_delay(long initial_ms, long max_ms, unsigned failures)
{
	long d = initial_ms;
	for (unsigned i = 1; i < failures && d < max_ms; i++)
		d *= 2;
	return d > max_ms ? max_ms : d;
}

int
backoff_reset_due(double ready_at, double now, long reset_after_ms)
{
	return ready_at > 0 && now - ready_at >= (double)reset_after_ms / 1000.0;
}

int
burst_exceeded(const struct burst *b, double now, long window_ms)
{
	return b->starts != NULL && b->n == b->limit &&
	    now - b->starts[b->next] < (double)window_ms / 1000.0;
}

void
burst_record(struct burst *b, unsigned limit, double now)
{
	if (b->starts == NULL) {
		b->limit = limit > 0 ? limit : 1;
		b->starts = xcalloc(b->limit, sizeof *b->starts);
	}
	b->starts[b->next] = now;
	b->next = (b->next + 1) % b->limit;
	if (b->n < b->limit)
		b->n++;
}

void
burst_free(struct burst *b)
{
	free(b->starts);
	b->starts = NULL;
	b->n = b->next = 0;
}
