#include "config.h"
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "mhealth.h"

int
mhealth_parse(const char *body, size_t len, struct mhealth *h)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *role, *leader, *state;
	memset(h, 0, sizeof *h);
	snprintf(h->role, sizeof h->role, "leader");
	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	role = json_string_value(json_object_get(j, "role"));
	leader = json_string_value(json_object_get(j, "leader_address"));
	state = json_string_value(json_object_get(j, "ha_state"));
	if (role != NULL && role[0] != '\0' && strlen(role) < sizeof h->role)
		snprintf(h->role, sizeof h->role, "%s", role);
	if (leader != NULL && strlen(leader) < sizeof h->leader)
		snprintf(h->leader, sizeof h->leader, "%s", leader);
	if (state != NULL && strlen(state) < sizeof h->ha_state)
		snprintf(h->ha_state, sizeof h->ha_state, "%s", state);
	h->service_ready = json_is_true(json_object_get(j, "service_ready"));
	json_decref(j);
	return 0;
}

int
mhealth_usable(const struct mhealth *h)
{
	return h->service_ready || (strcmp(h->role, "standby") == 0 && h->leader[0] != '\0');
}

/* service_ready decides serving (the admin server sets it only once the RPC server runs); a leader
 * that does not serve yet is in warmup (ha_state "leader_warmup"; role "leader" is what 0.3.12 maps
 * warmup and serving to); every other state is a standby, with or without a leader. */
int
mhealth_phase(const struct mhealth *h)
{
	if (h->service_ready)
		return MH_SERVING;
	if (strcmp(h->ha_state, "leader_warmup") == 0 || (h->ha_state[0] == '\0' && strcmp(h->role, "leader") == 0))
		return MH_WARMUP;
	return h->leader[0] != '\0' ? MH_STANDBY : MH_NO_LEADER;
}

const char *
mhealth_phase_name(int p)
{
	static const char *const names[] = { "serving", "warmup", "standby", "no_leader" };
	return p >= 0 && p <= MH_NO_LEADER ? names[p] : "unknown";
}

/* needle in s[0..n), or NULL */
static const char *
find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/* p..end, without its line end, into out (cut to its size, control characters as spaces) */
static void
rest_of_line(const char *p, const char *end, char *out, size_t len)
{
	size_t k = (size_t)(end - p);
	while (k > 0 && (p[k - 1] == '\n' || p[k - 1] == '\r'))
		k--;
	if (len == 0)
		return;
	k = k < len - 1 ? k : len - 1;
	memcpy(out, p, k);
	out[k] = '\0';
	for (size_t i = 0; i < k; i++)
		if ((unsigned char)out[i] < 0x20)
			out[i] = ' ';
}

int
mhealth_snapshot_line(const char *s, size_t n, char *why, size_t whylen)
{
	const char *p, *end = s + n;
	if (find(s, n, "[Snapshot] ") == NULL)
		return MH_SNAP_NONE;
	if ((p = find(s, n, "failed to persist state")) != NULL && (p = find(p, (size_t)(end - p), "code=")) != NULL) {
		rest_of_line(p + 5, end, why, whylen);
		return MH_SNAP_WHY;
	}
	if (find(s, n, "child_pid=") == NULL)
		return MH_SNAP_NONE;	/* the child's own lines, relayed: its parent says the outcome */
	if (find(s, n, "Child process successfully persisted state") != NULL) {
		/* its id, up to the comma after it */
		if ((p = find(s, n, "snapshot_id=")) != NULL) {
			const char *e = p += 12;
			while (e < end && *e != ',' && *e != '\n' && *e != '\r')
				e++;
			rest_of_line(p, e, why, whylen);
		} else if (whylen > 0)
			why[0] = '\0';
		return MH_SNAP_OK;
	}
	if (find(s, n, "Child process exited with error") != NULL || find(s, n, "Child process timeout") != NULL ||
	    find(s, n, "Child process terminated by signal") != NULL)
		return MH_SNAP_FAILED;
	return MH_SNAP_NONE;
}

int
mhealth_restore_line(const char *s, size_t n, char *what, size_t len)
{
	static const char ok[] = "Successfully restored state from snapshot: ", bad[] = " is unusable: ";
	const char *p, *end = s + n;
	if (find(s, n, "[Restore] ") == NULL)
		return MH_RESTORE_NONE;
	if ((p = find(s, n, ok)) != NULL) {
		rest_of_line(p + strlen(ok), end, what, len);
		return MH_RESTORED;
	}
	if ((p = find(s, n, "Snapshot candidate ")) != NULL && find(p, (size_t)(end - p), bad) != NULL) {
		rest_of_line(p + strlen("Snapshot candidate "), end, what, len);
		return MH_RESTORE_UNUSABLE;
	}
	if (find(s, n, "Failed to restore from all candidate snapshots") != NULL)
		return MH_RESTORE_FAILED;
	if (find(s, n, "starting fresh") != NULL)
		return MH_RESTORE_FRESH;
	return MH_RESTORE_NONE;
}
