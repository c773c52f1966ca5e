#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "buf.h"
#include "gflags.h"

/* The text between <tag> and </tag> in [p, end), into out; a pointer past it, or NULL. */
static const char *
element(const char *p, const char *end, const char *tag, char *out, size_t len)
{
	char open[32], close[32];
	const char *a, *b;
	size_t ol = (size_t)snprintf(open, sizeof open, "<%s>", tag), cl = (size_t)snprintf(close, sizeof close, "</%s>", tag);
	if ((a = memmem(p, (size_t)(end - p), open, ol)) == NULL)
		return NULL;
	a += ol;
	if ((b = memmem(a, (size_t)(end - a), close, cl)) == NULL || (size_t)(b - a) >= len)
		return NULL;
	memcpy(out, a, (size_t)(b - a));
	out[b - a] = '\0';
	return b + cl;
}

static int
known_type(const char *t)
{
	static const char *const types[] = { "bool", "int32", "int64", "uint32", "uint64", "double", "string", NULL };
	for (int i = 0; types[i] != NULL; i++)
		if (strcmp(t, types[i]) == 0)
			return 1;
	return 0;
}

int
gflags_parse(const char *xml, size_t len, struct gflags *g, char *err, size_t errlen)
{
	const char *p = xml, *end = xml + len, *f;
	size_t cap = 0;
	memset(g, 0, sizeof *g);
	if (memmem(xml, len, "<AllFlags>", 10) == NULL) {
		snprintf(err, errlen, "not gflags' --helpxml (no <AllFlags>)");
		return -1;
	}
	while ((f = memmem(p, (size_t)(end - p), "<flag>", 6)) != NULL) {
		const char *fe = memmem(f, (size_t)(end - f), "</flag>", 7);
		struct gflag x;
		if (fe == NULL) {
			snprintf(err, errlen, "flag %zu: no </flag>", g->n + 1);
			goto bad;
		}
		if (element(f, fe, "name", x.name, sizeof x.name) == NULL || x.name[0] == '\0' ||
		    element(f, fe, "type", x.type, sizeof x.type) == NULL || !known_type(x.type)) {
			snprintf(err, errlen, "flag %zu: no name, or no type gflags has", g->n + 1);
			goto bad;
		}
		if (g->n == cap)
			g->v = xrealloc(g->v, (cap = cap ? cap * 2 : 64) * sizeof *g->v);
		g->v[g->n++] = x;
		p = fe + 7;
	}
	if (g->n == 0) {
		snprintf(err, errlen, "--helpxml lists no flag");
		return -1;
	}
	return 0;
bad:
	gflags_free(g);
	return -1;
}

void
gflags_version(const char *text, size_t len, struct gflags *g)
{
	const char *v = memmem(text, len, "version ", 8), *e;
	const char *nl = memchr(text, '\n', len);
	g->version[0] = '\0';
	if (v == NULL || (nl != NULL && v > nl))
		return;
	v += 8;
	for (e = v; e < text + len && !isspace((unsigned char)*e); e++)
		;
	if (e > v && (size_t)(e - v) < sizeof g->version) {
		memcpy(g->version, v, (size_t)(e - v));
		g->version[e - v] = '\0';
	}
}

void
gflags_free(struct gflags *g)
{
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

const struct gflag *
gflags_find(const struct gflags *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].name, name) == 0)
			return &g->v[i];
	return NULL;
}

int
gflags_value_ok(const char *type, const char *val)
{
	char *end;
	errno = 0;
	if (strcmp(type, "bool") == 0) {	/* as gflags: any case */
		static const char *const words[] = { "1", "t", "true", "y", "yes", "0", "f", "false", "n", "no", NULL };
		for (int i = 0; words[i] != NULL; i++)
			if (strcasecmp(val, words[i]) == 0)
				return 1;
		return 0;
	}
	if (strcmp(type, "double") == 0) {
		(void)strtod(val, &end);
		return *val != '\0' && *end == '\0' && errno == 0;
	}
	if (strcmp(type, "int32") == 0 || strcmp(type, "int64") == 0) {
		long long v = strtoll(val, &end, 0);
		return *val != '\0' && *end == '\0' && errno == 0 &&
		    (strcmp(type, "int64") == 0 || (v >= -2147483648LL && v <= 2147483647LL));
	}
	if (strcmp(type, "uint32") == 0 || strcmp(type, "uint64") == 0) {
		unsigned long long v;
		while (isspace((unsigned char)*val))
			val++;
		if (*val == '-')
			return 0;
		v = strtoull(val, &end, 0);
		return *val != '\0' && *end == '\0' && errno == 0 &&
		    (strcmp(type, "uint64") == 0 || v <= 4294967295ULL);
	}
	return 1;	/* string */
}

void
gflags_check(const struct gflags *g, char *const *args, const char *key, const char *who, struct strv *errs)
{
	for (size_t i = 0; args != NULL && args[i] != NULL; i++) {
		const size_t at = i;
		const char *a = args[i], *eq;
		char name[128];
		const struct gflag *f;
		const char *val = NULL;
		size_t nl;
		if (a[0] != '-' || a[1] == '\0')
			continue;	/* gflags leaves positional arguments alone */
		a += a[1] == '-' ? 2 : 1;
		eq = strchr(a, '=');
		nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl == 0 || nl >= sizeof name) {
			strv_pushf(errs, "%s[%zu]: %s: not a flag (%s)", key, i, args[i], who);
			continue;
		}
		memcpy(name, a, nl);
		name[nl] = '\0';
		if (eq != NULL)
			val = eq + 1;
		f = gflags_find(g, name);
		if (f == NULL && eq == NULL && strncmp(name, "no", 2) == 0) {
			const struct gflag *b = gflags_find(g, name + 2);
			if (b != NULL && strcmp(b->type, "bool") == 0)
				continue;	/* --noflag: a bool set false */
		}
		if (f == NULL || strcmp(name, "helpxml") == 0) {
			strv_pushf(errs, "%s[%zu]: %s: %s has no flag \"%s\" (it would exit at start: \"ERROR: "
			    "unknown command line flag\")", key, i, args[i], who, name);
			continue;
		}
		if (val == NULL && strcmp(f->type, "bool") != 0) {
			if (args[i + 1] == NULL) {
				strv_pushf(errs, "%s[%zu]: %s: %s %s flag of %s, without its value", key, i, args[i],
				    f->type[0] == 'i' || f->type[0] == 'u' ? "an" : "a", f->type, who);
				continue;
			}
			val = args[++i];
		}
		if (val != NULL && !gflags_value_ok(f->type, val))
			strv_pushf(errs, "%s[%zu]: %s: \"%s\" is not %s %s (the type of --%s in %s)", key, at, args[at],
			    val, f->type[0] == 'i' || f->type[0] == 'u' ? "an" : "a", f->type, f->name, who);
	}
}

#define CACHE_HEAD	"mooncake-sidecar gflags cache 1\n"

char *
gflags_cache_render(const struct gflags *g, const char *key, size_t *len)
{
	struct buf b = { 0 };
	buf_printf(&b, "%s%s\n%s\n", CACHE_HEAD, key, g->version);
	for (size_t i = 0; i < g->n; i++)
		buf_printf(&b, "%s %s\n", g->v[i].name, g->v[i].type);
	return buf_take(&b, len);
}

/* One line of [*p, end) into out (without its newline); -1 when there is no whole line or it is
 * too long. */
static int
cache_line(const char **p, const char *end, char *out, size_t len)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	if (nl == NULL || (size_t)(nl - *p) >= len)
		return -1;
	memcpy(out, *p, (size_t)(nl - *p));
	out[nl - *p] = '\0';
	*p = nl + 1;
	return 0;
}

int
gflags_cache_parse(const char *text, size_t len, const char *key, struct gflags *g)
{
	const char *p = text, *end = text + len;
	char line[1200];
	size_t cap = 0;
	memset(g, 0, sizeof *g);
	if (len < sizeof CACHE_HEAD - 1 || memcmp(text, CACHE_HEAD, sizeof CACHE_HEAD - 1) != 0)
		return -1;
	p += sizeof CACHE_HEAD - 1;
	if (cache_line(&p, end, line, sizeof line) != 0 || strcmp(line, key) != 0 ||
	    cache_line(&p, end, g->version, sizeof g->version) != 0)
		return -1;
	while (p < end) {
		struct gflag x;
		char *sp;
		if (cache_line(&p, end, line, sizeof line) != 0 || (sp = strchr(line, ' ')) == NULL ||
		    sp == line || (size_t)(sp - line) >= sizeof x.name || strlen(sp + 1) >= sizeof x.type)
			goto bad;
		memcpy(x.name, line, (size_t)(sp - line));
		x.name[sp - line] = '\0';
		strcpy(x.type, sp + 1);
		if (!known_type(x.type))
			goto bad;
		if (g->n == cap)
			g->v = xrealloc(g->v, (cap = cap ? cap * 2 : 64) * sizeof *g->v);
		g->v[g->n++] = x;
	}
	if (g->n > 0)
		return 0;
bad:
	gflags_free(g);
	return -1;
}
