#include "config.h"
#include <stdio.h>
#include <string.h>
#include "readiness.h"

#define FILES_BEHIND	"endpoint files of the master's generation not written yet"

/* The master's part of the line: as STATUS= shows it, and the reason when it is what is not ready. */
static void
master_part(const struct rd_facts *f, char *out, size_t len)
{
	const char *s = f->master_restarts == 1 ? "" : "s";
	if (!f->has_master && f->follow_state != NULL)
		snprintf(out, len, "%s", f->follow_state);
	else if (!f->has_master)
		snprintf(out, len, "no master on this node (master runs on %s)", f->master_node);
	else if (f->master_ready && f->master_stalled != NULL)
		snprintf(out, len, "master stalled (pid %ld): %s", (long)f->master_pid, f->master_stalled);
	else if (f->master_ready && f->ha_wait != NULL)
		snprintf(out, len, "master %s (pid %ld)", f->ha_wait, (long)f->master_pid);
	else if (f->master_ready)
		snprintf(out, len, "master ready%s%s (gen %u, pid %ld, %u restart%s%s%s)", f->ha_role ? " as " : "",
		    f->ha_role ? f->ha_role : "", f->files_gen, (long)f->master_pid, f->master_restarts, s,
		    f->master_restore ? ", " : "", f->master_restore ? f->master_restore : "");
	else if (strcmp(f->master_state, "starting") == 0)
		snprintf(out, len, "master starting (pid %ld, %u restart%s)", (long)f->master_pid, f->master_restarts, s);
	else
		snprintf(out, len, "master %s%s%s", f->master_state, f->master_reason[0] ? ": " : "", f->master_reason);
}

/* "K/N workers running", the healthy ones counted, and what keeps the first other one back. */
static void
workers_part(const struct rd_facts *f, char *out, size_t len)
{
	if (f->workers_waiting != NULL)
		snprintf(out, len, "%zu/%zu workers running (waiting for %s)", f->workers_healthy, f->workers,
		    f->workers_waiting);
	else if (f->workers_healthy < f->workers && f->worker_name != NULL)
		snprintf(out, len, "%zu/%zu workers running (%s %s%s%s)", f->workers_healthy, f->workers,
		    f->worker_name, f->worker_state, f->worker_detail[0] ? ": " : "", f->worker_detail);
	else
		snprintf(out, len, "%zu/%zu workers running", f->workers_healthy, f->workers);
}

static int
master_ok(const struct rd_facts *f)
{
	return f->has_master ? f->master_ready && f->ha_wait == NULL && f->master_stalled == NULL : 1;
}

int
readiness(const struct rd_facts *f, char *why, size_t len)
{
	char part[1500];
	if (f->stopping) {
		snprintf(why, len, "not ready: stopping");
		return 0;
	}
	if (!master_ok(f) || (!f->has_master && !f->files_ready && f->files_error == NULL)) {
		master_part(f, part, sizeof part);
		snprintf(why, len, "not ready: %s", part);
		return 0;
	}
	if (f->files_error != NULL) {
		snprintf(why, len, "not ready: endpoint files not written: %s", f->files_error);
		return 0;
	}
	if (!f->files_ready) {
		snprintf(why, len, "not ready: %s", FILES_BEHIND);
		return 0;
	}
	if (f->workers_healthy < f->workers) {
		workers_part(f, part, sizeof part);
		snprintf(why, len, "not ready: %s", part);
		return 0;
	}
	snprintf(why, len, "ready");
	return 1;
}

void
readiness_status_line(const struct rd_facts *f, char *line, size_t len)
{
	size_t n;
	if (f->stopping) {
		snprintf(line, len, "stopping");
		return;
	}
	master_part(f, line, len);
	n = strlen(line);
	if (f->files_error != NULL && n < len)
		snprintf(line + n, len - n, "; endpoint files not written: %s", f->files_error);
	else if (f->has_master && master_ok(f) && !f->files_ready && n < len)
		snprintf(line + n, len - n, "; %s", FILES_BEHIND);
	n = strlen(line);
	if (f->workers > 0 && n + 2 < len) {
		snprintf(line + n, len - n, "; ");
		workers_part(f, line + n + 2, len - n - 2);
	}
}
