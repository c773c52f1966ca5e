#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "prom.h"

void
prom_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_puts(b, "\\\\");
		else if (*s == '"')
			buf_puts(b, "\\\"");
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_add(b, s, 1);
	}
}

static void
help_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_puts(b, "\\\\");
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_add(b, s, 1);
	}
}

void
prom_family(struct buf *b, const char *name, const char *help, const char *type)
{
	buf_printf(b, "# HELP %s ", name);
	help_escape(b, help);
	buf_printf(b, "\n# TYPE %s %s\n", name, type);
}

void
prom_sample(struct buf *b, const char *name, const char *const *labels, double v)
{
	buf_puts(b, name);
	if (labels != NULL && labels[0] != NULL) {
		buf_puts(b, "{");
		for (int i = 0; labels[i] != NULL && labels[i + 1] != NULL; i += 2) {
			buf_printf(b, "%s%s=\"", i ? "," : "", labels[i]);
			prom_escape(b, labels[i + 1]);
			buf_puts(b, "\"");
		}
		buf_puts(b, "}");
	}
	if (isinf(v))
		buf_puts(b, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (isnan(v))
		buf_puts(b, " NaN\n");
	else if (v == floor(v) && fabs(v) < 1e15)
		buf_printf(b, " %.0f\n", v);
	else
		buf_printf(b, " %.9g\n", v);
}

void
prom_hist_observe(struct prom_hist *h, const double *bounds, size_t n, double v)
{
	for (size_t i = 0; i < n && i < PROM_HIST_MAX; i++)
		h->bucket[i] += v <= bounds[i];
	h->count++;
	h->sum += v;
}

void
prom_histogram(struct buf *b, const char *name, const char *const *labels, const double *bounds, size_t n,
    const struct prom_hist *h)
{
	const char *l[16];
	char le[32], metric[200];
	size_t k = 0;
	for (; labels != NULL && labels[k] != NULL && k < 12; k++)
		l[k] = labels[k];
	l[k] = "le";
	l[k + 1] = le;
	l[k + 2] = NULL;
	if (n > PROM_HIST_MAX)
		n = PROM_HIST_MAX;
	snprintf(metric, sizeof metric, "%s_bucket", name);
	for (size_t i = 0; i < n; i++) {
		snprintf(le, sizeof le, "%g", bounds[i]);
		prom_sample(b, metric, l, (double)h->bucket[i]);
	}
	snprintf(le, sizeof le, "+Inf");
	prom_sample(b, metric, l, (double)h->count);
	l[k] = NULL;
	snprintf(metric, sizeof metric, "%s_sum", name);
	prom_sample(b, metric, l, h->sum);
	snprintf(metric, sizeof metric, "%s_count", name);
	prom_sample(b, metric, l, (double)h->count);
}
