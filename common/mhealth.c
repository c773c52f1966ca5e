#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "mhealth.h"

int
mhealth_parse(const char *body, size_t len, struct mhealth *h)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *role, *leader;
	memset(h, 0, sizeof *h);
	snprintf(h->role, sizeof h->role, "leader");
	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	role = json_string_value(json_object_get(j, "role"));
	leader = json_string_value(json_object_get(j, "leader_address"));
	if (role != NULL && role[0] != '\0' && strlen(role) < sizeof h->role)
		snprintf(h->role, sizeof h->role, "%s", role);
	if (leader != NULL && strlen(leader) < sizeof h->leader)
		snprintf(h->leader, sizeof h->leader, "%s", leader);
	h->service_ready = json_is_true(json_object_get(j, "service_ready"));
	json_decref(j);
	return 0;
}

int
mhealth_usable(const struct mhealth *h)
{
	return h->service_ready || (strcmp(h->role, "standby") == 0 && h->leader[0] != '\0');
}
