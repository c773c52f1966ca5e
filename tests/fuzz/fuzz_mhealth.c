/* The master's /health: no crash; a usable answer is ready or a standby naming a leader; only a
 * ready one is serving, and a standby phase always has a leader. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mhealth.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct mhealth h;
	int rc = mhealth_parse((const char *)data, len, &h);
	if (strlen(h.role) >= sizeof h.role || strlen(h.leader) >= sizeof h.leader || h.role[0] == '\0')
		abort();
	if (rc != 0 && mhealth_usable(&h))
		abort();
	if (mhealth_usable(&h) && !h.service_ready && (strcmp(h.role, "standby") != 0 || h.leader[0] == '\0'))
		abort();
	if (strlen(h.ha_state) >= sizeof h.ha_state || (mhealth_phase(&h) == MH_SERVING) != (h.service_ready != 0))
		abort();
	if (mhealth_phase(&h) == MH_STANDBY && h.leader[0] == '\0')
		abort();
	/* the same bytes as a line of the master's log */
	char why[64];
	memset(why, 'x', sizeof why);
	int k = mhealth_snapshot_line((const char *)data, len, why, sizeof why);
	if (k < MH_SNAP_NONE || k > MH_SNAP_WHY || ((k == MH_SNAP_WHY || k == MH_SNAP_OK) && memchr(why, '\0', sizeof why) == NULL))
		abort();
	memset(why, 'x', sizeof why);
	k = mhealth_restore_line((const char *)data, len, why, sizeof why);
	if (k < MH_RESTORE_NONE || k > MH_RESTORE_FRESH ||
	    ((k == MH_RESTORED || k == MH_RESTORE_UNUSABLE) && memchr(why, '\0', sizeof why) == NULL))
		abort();
	return 0;
}
