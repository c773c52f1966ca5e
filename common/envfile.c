#include "config.h"
#include <stdio.h>
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

static int
key_char(char c, int first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* The value at p (up to end), as sh reads a word: quoted and bare parts one after the other, up
 * to a blank or the line's end; into v, *pp past it. -1 with why when a quote is not closed or
 * something follows the value on its line. */
static int
value(const char **pp, const char *end, struct buf *v, const char **why)
{
	const char *p = *pp;
	char q = 0;	/* the quote we are inside, or 0 */
	for (; p < end; p++) {
		if (q == 0 && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			break;
		if (q == 0 && (*p == '"' || *p == '\'')) {
			q = *p;
			continue;
		}
		if (q != 0 && *p == q) {
			q = 0;
			continue;
		}
		if (*p == '\\' && q != '\'' && p + 1 < end) {
			char n = *++p;
			if (n == '\n')
				continue;	/* a line continued */
			if (q == '"' && n != '"' && n != '\\' && n != '$' && n != '`')
				buf_add(v, "\\", 1);	/* kept verbatim inside double quotes */
			buf_add(v, &n, 1);
			continue;
		}
		buf_add(v, p, 1);
	}
	if (q != 0) {
		*why = "a quote is not closed";
		return -1;
	}
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p < end && *p == '#') {
		while (p < end && *p != '\n')
			p++;
	}
	if (p < end && *p != '\n') {
		*why = "something follows the value (quote it)";
		return -1;
	}
	*pp = p;
	return 0;
}

int
envfile_parse(const char *text, size_t len, struct kvlist *out, char *err, size_t errlen)
{
	const char *p = text, *end = text + len, *why = NULL;
	int line = 1;
	struct buf k = { 0 }, v = { 0 };
	while (p < end) {
		const char *start = p;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p < end && *p == '#')
			while (p < end && *p != '\n')
				p++;
		if (p < end && *p == '\n') {
			p++;
			line++;
			continue;
		}
		if (p >= end)
			break;
		if ((size_t)(end - p) > 7 && strncmp(p, "export ", 7) == 0)
			p += 7;
		k.len = v.len = 0;
		if (!key_char(*p, 1)) {
			why = "not KEY=VALUE";
			goto bad;
		}
		while (p < end && key_char(*p, 0))
			buf_add(&k, p++, 1);
		if (p >= end || *p != '=') {
			why = "not KEY=VALUE";
			goto bad;
		}
		p++;
		buf_add(&v, "", 0);
		if (value(&p, end, &v, &why) != 0)
			goto bad;
		if (memchr(k.p, '\0', k.len) != NULL || memchr(v.p, '\0', v.len) != NULL) {
			why = "a NUL byte";
			goto bad;
		}
		kvlist_set(out, k.p, v.p);
		for (const char *c = start; c < p; c++)
			line += *c == '\n';
	}
	buf_free(&k);
	buf_free(&v);
	return 0;
bad:
	snprintf(err, errlen, "line %d: %s", line, why);
	buf_free(&k);
	buf_free(&v);
	return -1;
}
