#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sdreport.h"

void
sdreport_render(const struct sd_target *t, size_t n, struct buf *b)
{
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s~%s~%d~%s~%d~%d~%u~%s", b->len ? "," : "", t[i].target, t[i].role, t[i].group_index,
		    t[i].worker, t[i].worker_index, t[i].dp_rank, t[i].generation, t[i].gang);
}

/* One field of [p, end) up to '~' into out: its allowed characters only. */
static const char *
field(const char *p, const char *end, char *out, size_t len, int last)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:[]-";
	const char *e = p;
	while (e < end && *e != '~')
		e++;
	if ((e == end) != last || (size_t)(e - p) >= len)
		return NULL;
	for (const char *c = p; c < e; c++)
		if (strchr(ok, *c) == NULL || *c == '\0')
			return NULL;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = '\0';
	return e < end ? e + 1 : e;
}

static int
number(const char *s, long lo, long hi, long *v)
{
	char *end;
	if (*s == '\0')
		return -1;
	*v = strtol(s, &end, 10);
	return *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

int
sdreport_parse(const char *s, struct sd_target *out, size_t max, size_t *n, char *err, size_t errlen)
{
	const char *p = s;
	*n = 0;
	if (*s == '\0')
		return 0;	/* a node with nothing running */
	while (*p != '\0') {
		const char *end = strchr(p, ',');
		struct sd_target t;
		char grp[16], idx[16], dp[16], gen[16];
		long v[4];
		if (end == NULL)
			end = p + strlen(p);
		memset(&t, 0, sizeof t);
		if (*n == max) {
			snprintf(err, errlen, "more than %zu targets", max);
			return -1;
		}
		if ((p = field(p, end, t.target, sizeof t.target, 0)) == NULL || (p = field(p, end, t.role, sizeof t.role, 0)) == NULL ||
		    (p = field(p, end, grp, sizeof grp, 0)) == NULL || (p = field(p, end, t.worker, sizeof t.worker, 0)) == NULL || (p = field(p, end, idx, sizeof idx, 0)) == NULL ||
		    (p = field(p, end, dp, sizeof dp, 0)) == NULL || (p = field(p, end, gen, sizeof gen, 0)) == NULL ||
		    (p = field(p, end, t.gang, sizeof t.gang, 1)) == NULL) {
			snprintf(err, errlen, "target %zu: not target~role~group_index~worker~index~dp_rank~generation~gang of "
			    "[A-Za-z0-9._:[]-]", *n + 1);
			return -1;
		}
		if (t.target[0] == '\0' || t.role[0] == '\0' || strchr(t.target, ':') == NULL ||
		    number(idx, -1, 1000000, &v[0]) != 0 || number(dp, -1, 1000000, &v[1]) != 0 ||
		    number(gen, 0, 2147483647L, &v[2]) != 0 || number(grp, -1, 1000000, &v[3]) != 0) {
			snprintf(err, errlen, "target %zu: no host:port or role, or a number out of range", *n + 1);
			return -1;
		}
		t.worker_index = (int)v[0];
		t.dp_rank = (int)v[1];
		t.generation = (unsigned)v[2];
		t.group_index = (int)v[3];
		out[(*n)++] = t;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0') {
			snprintf(err, errlen, "a trailing ','");
			return -1;
		}
	}
	return 0;
}
