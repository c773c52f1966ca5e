#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "gangview.h"

static int
counter(json_t *o, const char *key, long long min, long long *out)
{
	json_t *x = json_object_get(o, key);
	if (!json_is_integer(x) || json_integer_value(x) < min || json_integer_value(x) > 2147483647)
		return -1;
	*out = json_integer_value(x);
	return 0;
}

/* The etag, when it is one: never more than the next request's query can carry as it is. */
static void
take_etag(json_t *j, char *out, size_t outlen)
{
	const char *e = json_string_value(json_object_get(j, "etag"));
	size_t n = e != NULL ? strlen(e) : 0;
	if (n > 0 && n < 32 && n < outlen && strspn(e, "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ-") == n)
		memcpy(out, e, n + 1);
}

int
gangview_parse(const char *body, size_t len, struct gang_view *out, size_t max, char *err, size_t errlen,
    char *etag, size_t etaglen)
{
	json_error_t je;
	json_t *j = json_loadb(body, len, 0, &je), *a, *g;
	size_t i, n = 0;
	if (etaglen > 0)
		etag[0] = '\0';
	if (j == NULL) {
		snprintf(err, errlen, "/gangs is not JSON: %s", je.text);
		return -1;
	}
	a = json_object_get(j, "gangs");
	if (!json_is_array(a)) {
		snprintf(err, errlen, "/gangs: gangs is not an array");
		json_decref(j);
		return -1;
	}
	json_array_foreach(a, i, g) {
		const char *name = json_string_value(json_object_get(g, "name"));
		struct gang_view v;
		const char *state = json_string_value(json_object_get(g, "state"));
		if (name == NULL || *name == '\0' || strlen(name) >= GANG_NAME_MAX ||
		    counter(g, "generation", 1, &v.generation) != 0 || counter(g, "failures", 0, &v.failures) != 0) {
			snprintf(err, errlen, "/gangs: gangs[%zu] is not {name, generation >= 1, failures >= 0}", i);
			json_decref(j);
			return -1;
		}
		v.starts_in_ms = 0;
		if (json_object_get(g, "starts_in_ms") != NULL && counter(g, "starts_in_ms", 0, &v.starts_in_ms) != 0) {
			snprintf(err, errlen, "/gangs: gangs[%zu].starts_in_ms is not an integer 0..2147483647", i);
			json_decref(j);
			return -1;
		}
		v.over = state == NULL ? GANGVIEW_RUNNING : strcmp(state, "fatal") == 0 ? GANGVIEW_FATAL :
		    strcmp(state, "stopped") == 0 ? GANGVIEW_STOPPED : GANGVIEW_RUNNING;
		if (n == max)
			continue;	/* more than this node has gangs with it: the rest are not its own */
		snprintf(v.name, sizeof v.name, "%s", name);
		out[n++] = v;
	}
	take_etag(j, etag, etaglen);
	json_decref(j);
	return (int)n;
}

const struct gang_view *
gangview_find(const struct gang_view *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	    c == '-';
}

int
gangview_report_parse(const char *text, size_t len, struct gang_report *out, size_t max, char *err,
    size_t errlen)
{
	size_t i = 0, n = 0;
	while (i < len) {
		size_t start = i, nl;
		long long v = 0;
		if (n == max) {
			snprintf(err, errlen, "more than %zu gangs", max);
			return -1;
		}
		while (i < len && name_char(text[i]))
			i++;
		nl = i - start;
		if (nl == 0 || nl >= GANG_NAME_MAX || i >= len || text[i] != ':') {
			snprintf(err, errlen, "entry %zu: not NAME:COUNT (a name of 1 to %d of [A-Za-z0-9_.-])", n + 1,
			    GANG_NAME_MAX - 1);
			return -1;
		}
		i++;
		if (i >= len || text[i] < '0' || text[i] > '9') {
			snprintf(err, errlen, "entry %zu: no count", n + 1);
			return -1;
		}
		for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			if ((v = v * 10 + (text[i] - '0')) > 2147483647) {
				snprintf(err, errlen, "entry %zu: a count above 2147483647", n + 1);
				return -1;
			}
		if (i < len && text[i] != ',') {
			snprintf(err, errlen, "entry %zu: something after the count", n + 1);
			return -1;
		}
		if (i < len && i + 1 == len) {
			snprintf(err, errlen, "a comma at the end");
			return -1;
		}
		memcpy(out[n].name, text + start, nl);
		out[n].name[nl] = '\0';
		out[n++].failures = v;
		if (i < len)
			i++;
	}
	return (int)n;
}
