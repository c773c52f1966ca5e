#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"

/* Expand one name that may hold several bracket groups; the first group varies slowest. */
static int
expand_name(const char *name, const char *prefix, struct strv *out, char *err, size_t errlen)
{
	const char *open = strchr(name, '['), *close, *p;
	if (open == NULL) {
		if (strchr(name, ']') != NULL) {
			snprintf(err, errlen, "unmatched ']' in \"%s\"", name);
			return -1;
		}
		if (out->n >= HOSTLIST_MAX) {
			snprintf(err, errlen, "more than %d hosts", HOSTLIST_MAX);
			return -1;
		}
		strv_pushf(out, "%s%s", prefix, name);
		return 0;
	}
	close = strchr(open, ']');
	if (close == NULL) {
		snprintf(err, errlen, "unmatched '[' in \"%s\"", name);
		return -1;
	}
	if (memchr(name, ']', (size_t)(open - name)) != NULL) {
		snprintf(err, errlen, "unmatched ']' in \"%s\"", name);
		return -1;
	}
	if (memchr(open + 1, '[', (size_t)(close - open - 1)) != NULL) {
		snprintf(err, errlen, "nested '[' in \"%s\"", name);
		return -1;
	}
	if (close == open + 1) {
		snprintf(err, errlen, "empty brackets in \"%s\"", name);
		return -1;
	}
	char *head = xasprintf("%s%.*s", prefix, (int)(open - name), name);
	int rc = 0;
	for (p = open + 1; p < close && rc == 0;) {
		const char *end = memchr(p, ',', (size_t)(close - p));
		if (end == NULL)
			end = close;
		const char *dash = memchr(p, '-', (size_t)(end - p));
		const char *lo = p, *lo_end = dash ? dash : end;
		const char *hi = dash ? dash + 1 : p, *hi_end = end;
		int ok = lo_end > lo && hi_end > hi;
		for (const char *q = lo; ok && q < lo_end; q++)
			ok = isdigit((unsigned char)*q);
		for (const char *q = hi; ok && q < hi_end; q++)
			ok = isdigit((unsigned char)*q);
		if (!ok || lo_end - lo > 9 || hi_end - hi > 9) {
			snprintf(err, errlen, "bad range \"%.*s\" in \"%s\"", (int)(end - p), p, name);
			rc = -1;
			break;
		}
		long a = strtol(lo, NULL, 10), b = strtol(hi, NULL, 10);
		int width = (int)(lo_end - lo);
		if (b < a) {
			snprintf(err, errlen, "range \"%.*s\" runs backwards in \"%s\"", (int)(end - p), p,
			    name);
			rc = -1;
			break;
		}
		if (b - a >= HOSTLIST_MAX) {
			snprintf(err, errlen, "more than %d hosts", HOSTLIST_MAX);
			rc = -1;
			break;
		}
		for (long i = a; i <= b && rc == 0; i++) {
			char *pre = xasprintf("%s%0*ld", head, width, i);
			rc = expand_name(close + 1, pre, out, err, errlen);
			free(pre);
		}
		p = end + 1;
	}
	free(head);
	return rc;
}

int
hostlist_expand(const char *expr, struct strv *out, char *err, size_t errlen)
{
	const char *p = expr;
	int depth = 0;
	if (*expr == '\0') {
		snprintf(err, errlen, "empty host list");
		return -1;
	}
	for (const char *q = expr; *q; q++) {
		if (isspace((unsigned char)*q)) {
			snprintf(err, errlen, "white space in host list \"%s\"", expr);
			return -1;
		}
	}
	for (const char *q = expr;; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']')
			depth--;
		if ((*q == ',' && depth == 0) || *q == '\0') {
			if (q == p) {
				snprintf(err, errlen, "empty host name in \"%s\"", expr);
				return -1;
			}
			char *name = xstrndup(p, (size_t)(q - p));
			int rc = expand_name(name, "", out, err, errlen);
			free(name);
			if (rc != 0)
				return -1;
			if (*q == '\0')
				break;
			p = q + 1;
		}
	}
	return 0;
}

int
hostlist_index(const struct strv *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->v[i], name) == 0)
			return (int)i;
	return -1;
}
