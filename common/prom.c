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
