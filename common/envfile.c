#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "envfile.h"
#include "xalloc.h"

void
envfile_line(struct buf *b, const char *key, const char *value)
{
	buf_puts(b, key);
	buf_puts(b, "=\"");
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"' || *p == '$' || *p == '`')
			buf_add(b, "\\", 1);
		buf_add(b, p, 1);
	}
	buf_puts(b, "\"\n");
}

void
envfile_render(struct buf *b, const struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		envfile_line(b, l->v[i].key, l->v[i].value);
}
