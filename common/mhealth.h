#ifndef COMMON_MHEALTH_H
#define COMMON_MHEALTH_H
#include <stddef.h>

/* What the master's admin GET /health says: {"role": "leader"|"standby", "ha_state": "starting"|
 * "standby"|"candidate"|"recovering"|"catching_up"|"leader_warmup"|"serving", "service_ready": bool,
 * "leader_address": "host:port", ...} (0.3.12: master_admin_service.cpp HandleHealth, ha_types.h). A
 * master without HA says no role: it leads. */
struct mhealth {
	char	role[16];
	char	ha_state[24];		/* "" when it says none */
	char	leader[264];		/* host:port, "" when it names none */
	int	service_ready;
};

/* Where an HA master is in its cycle, as far as the sidecar acts on it. */
enum mh_phase {
	MH_SERVING,		/* it serves clients (service_ready) */
	MH_WARMUP,		/* it holds the leadership and waits out the old lease before it serves */
	MH_STANDBY,		/* a standby naming a leader */
	MH_NO_LEADER		/* a standby that names none (no leader yet, or the backend is down) */
};

/* 0 with h filled, or -1 when the body is not a JSON object (h then says a leader, not ready). */
int	mhealth_parse(const char *, size_t, struct mhealth *);
/* Whether the master can be pointed at: ready itself, or a standby naming a leader. */
int	mhealth_usable(const struct mhealth *);
int	mhealth_phase(const struct mhealth *);
const char *mhealth_phase_name(int);

/* What one line of an HA leader's log says of its snapshots (0.3.12 master_snapshot_manager.cpp,
 * the parent's lines, with child_pid=): persisted (MH_SNAP_OK), failed (MH_SNAP_FAILED: the child
 * exited with an error or by a signal, or timed out), or why the child failed (MH_SNAP_WHY: its "failed to persist
 * state" line, relayed before the exit; why gets what follows "code=", NUL-terminated and cut to
 * its size; for MH_SNAP_OK why gets the snapshot's id, "" when the line has none). MH_SNAP_NONE for any other line. Pure. */
enum { MH_SNAP_NONE, MH_SNAP_OK, MH_SNAP_FAILED, MH_SNAP_WHY };
int	mhealth_snapshot_line(const char *, size_t, char *why, size_t);
/* What one line of a master's log says of its restore at the start (0.3.12 master_service.cpp,
 * RestoreState; --enable_snapshot_restore): restored (MH_RESTORED, what gets the snapshot id), a
 * candidate it cannot use (MH_RESTORE_UNUSABLE, what gets "<id> is unusable: <why>"), none usable
 * (MH_RESTORE_FAILED), none there (MH_RESTORE_FRESH: it starts fresh). Pure. */
enum { MH_RESTORE_NONE, MH_RESTORED, MH_RESTORE_UNUSABLE, MH_RESTORE_FAILED, MH_RESTORE_FRESH };
int	mhealth_restore_line(const char *, size_t, char *what, size_t);
#endif
