#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "drain.h"
#include "workerenv.h"

void
drain_segments(const char *text, size_t len, const char *host, struct strv *out)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char name[1024], h[1024];
		long port;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > 0 && n < sizeof name && memchr(p, '\0', n) == NULL) {
			snprintf(name, sizeof name, "%.*s", (int)n, p);
			if (split_hostport(name, h, sizeof h, &port) != 0)
				snprintf(h, sizeof h, "%s", name);	/* a name without a port */
			if (strcmp(h, host) == 0) {
				char *s = xstrdup(name);
				strv_take(out, s);
			}
		}
		p = nl ? nl + 1 : end;
	}
}

char *
drain_request(const struct strv *segs)
{
	json_t *a = json_array(), *o;
	char *s;
	for (size_t i = 0; i < segs->n; i++)
		json_array_append_new(a, json_string(segs->v[i]));
	o = json_pack("{s:o}", "segments", a);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static void
str_of(json_t *o, const char *key, char *out, size_t len)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		snprintf(out, len, "%s", json_string_value(v));
}

static long long
int_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

int
drain_job_parse(const char *body, size_t len, struct drain_job *j, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je), *ok;
	memset(j, 0, sizeof *j);
	if (!json_is_object(o)) {
		snprintf(err, errlen, "the master's answer is not a JSON object%s%s", o ? "" : ": ", o ? "" : je.text);
		json_decref(o);
		return -1;
	}
	ok = json_object_get(o, "success");
	str_of(o, "job_id", j->id, sizeof j->id);
	str_of(o, "status_name", j->status, sizeof j->status);
	if (j->status[0] == '\0')
		str_of(o, "status", j->status, sizeof j->status);	/* the create answer's */
	str_of(o, "message", j->message, sizeof j->message);
	j->succeeded = int_of(o, "succeeded_units");
	j->failed = int_of(o, "failed_units");
	j->blocked = int_of(o, "blocked_units");
	j->active = int_of(o, "active_units");
	j->bytes = int_of(o, "migrated_bytes");
	if (!json_is_true(ok)) {
		char m[256] = "";
		str_of(o, "error_message", m, sizeof m);
		snprintf(err, errlen, "the master refused: %s (error_code %lld)", m[0] ? m : "no error_message",
		    int_of(o, "error_code"));
		json_decref(o);
		return -1;
	}
	json_decref(o);
	if (j->id[0] == '\0') {
		snprintf(err, errlen, "the master's answer has no job_id");
		return -1;
	}
	return 0;
}

int
drain_job_ended(const struct drain_job *j)
{
	return strcmp(j->status, "SUCCEEDED") == 0 || strcmp(j->status, "FAILED") == 0 ||
	    strcmp(j->status, "CANCELED") == 0;
}
