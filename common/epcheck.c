#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "epcheck.h"

static int
bad(json_t *j, char *err, size_t errlen, const char *field, const char *what)
{
	snprintf(err, errlen, "%s: %s", field, what);
	json_decref(j);
	return -1;
}

int
epcheck(const char *text, size_t len, struct ep_view *v, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = json_loadb(text, len, 0, &je), *m, *x;
	const char *s;
	struct url u;
	char why[256];

	memset(v, 0, sizeof *v);
	if (j == NULL) {
		snprintf(err, errlen, "not JSON: %s", je.text);
		return -1;
	}
	if (!json_is_object(j))
		return bad(j, err, errlen, "endpoints.json", "not an object");
	x = json_object_get(j, "generation");
	if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 2147483647)
		return bad(j, err, errlen, "generation", "not an integer from 1 to 2147483647");
	v->generation = json_integer_value(x);
	if (!json_is_boolean(json_object_get(j, "ready")))
		return bad(j, err, errlen, "ready", "not a boolean");
	v->ready = json_is_true(json_object_get(j, "ready"));
	if (!json_is_string(json_object_get(j, "job_id")))
		return bad(j, err, errlen, "job_id", "not a string");
	if (strlen(json_string_value(json_object_get(j, "job_id"))) >= sizeof v->job_id)
		return bad(j, err, errlen, "job_id", "longer than 255 bytes");
	snprintf(v->job_id, sizeof v->job_id, "%s", json_string_value(json_object_get(j, "job_id")));
	if ((x = json_object_get(j, "instance")) != NULL) {
		s = json_string_value(x);
		if (s == NULL || strlen(s) == 0 || strlen(s) > 32)
			return bad(j, err, errlen, "instance", "not 1 to 32 hex digits");
		for (const char *p = s; *p; p++)
			if (!isxdigit((unsigned char)*p))
				return bad(j, err, errlen, "instance", "not 1 to 32 hex digits");
		snprintf(v->instance, sizeof v->instance, "%s", s);
	}
	m = json_object_get(j, "master");
	if (!json_is_object(m))
		return bad(j, err, errlen, "master", "not an object");
	s = json_string_value(json_object_get(m, "rpc"));
	if (s == NULL || url_split_hostport(s, v->rpc_host, sizeof v->rpc_host, &v->rpc_port) != 0)
		return bad(j, err, errlen, "master.rpc", "not HOST:PORT");
	x = json_object_get(m, "metadata_url");
	if (x == NULL || (!json_is_null(x) && (!json_is_string(x) ||
	    url_parse(json_string_value(x), &u, why, sizeof why) != 0 || strcmp(u.path, "/metadata") != 0)))
		return bad(j, err, errlen, "master.metadata_url", "not null or http://HOST:PORT/metadata");
	if (json_is_string(x)) {
		snprintf(v->meta_host, sizeof v->meta_host, "%s", u.host);
		v->meta_port = u.port;
	}
	s = json_string_value(json_object_get(m, "admin_url"));
	if (s == NULL || url_parse(s, &u, why, sizeof why) != 0)
		return bad(j, err, errlen, "master.admin_url", "not an http URL");
	x = json_object_get(m, "pid");
	if (x == NULL || (!json_is_null(x) && (!json_is_integer(x) || json_integer_value(x) < 1 ||
	    json_integer_value(x) > 2147483647)))
		return bad(j, err, errlen, "master.pid", "not null or a positive integer");
	x = json_object_get(m, "restarts");
	if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 4294967295LL)
		return bad(j, err, errlen, "master.restarts", "not a non-negative integer");
	if ((x = json_object_get(m, "client_address")) != NULL) {
		s = json_string_value(x);
		if (s == NULL || strlen(s) >= sizeof v->entry || *s == '\0')
			return bad(j, err, errlen, "master.client_address", "not a string of 1 to 511 bytes");
		for (const char *p = s; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return bad(j, err, errlen, "master.client_address", "holds a control character");
		if (strstr(s, "://") != NULL)
			snprintf(v->entry, sizeof v->entry, "%s", s);
	}
	if ((x = json_object_get(j, "workers")) != NULL) {
		size_t i;
		json_t *w;
		if (!json_is_array(x))
			return bad(j, err, errlen, "workers", "not an array");
		json_array_foreach(x, i, w) {
			json_t *port = json_object_get(w, "http_port");
			if (!json_is_string(json_object_get(w, "node")) || !json_is_string(json_object_get(w, "role")) ||
			    !json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535)
				return bad(j, err, errlen, "workers", "not a list of {node, role, http_port}");
		}
	}
	json_decref(j);
	return 0;
}
