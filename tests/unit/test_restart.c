/* The restart arithmetic (backoff, reset, burst) and the master's /health, as the daemon uses them. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "backoff.h"
#include "mhealth.h"
#include "unit.h"

START_TEST(test_backoff)
{
	static const struct { long initial, max; unsigned failures; long want; } t[] = {
		{ 100, 10000, 1, 100 }, { 100, 10000, 2, 200 }, { 100, 10000, 3, 400 },
		{ 100, 10000, 7, 6400 }, { 100, 10000, 8, 10000 }, { 100, 10000, 60, 10000 },
		{ 0, 10000, 5, 0 }, { 300, 200, 1, 200 }, { 10, 10, 4, 10 },
		{ 1000, 2147483647L, 40, 2147483647L },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(backoff_delay(t[i].initial, t[i].max, t[i].failures) == t[i].want,
		    "%ld/%ld after %u: %ld, want %ld", t[i].initial, t[i].max, t[i].failures,
		    backoff_delay(t[i].initial, t[i].max, t[i].failures), t[i].want);
	ck_assert(!backoff_reset_due(0, 100.0, 1000));		/* never ready */
	ck_assert(!backoff_reset_due(10.0, 10.999, 1000));
	ck_assert(backoff_reset_due(10.0, 11.0, 1000));
}
END_TEST

START_TEST(test_burst)
{
	struct burst b = { 0 };
	/* limit 3 in 1 s: three starts are allowed, the fourth inside the window is not */
	ck_assert(!burst_exceeded(&b, 0.0, 1000));
	burst_record(&b, 3, 0.0);
	burst_record(&b, 3, 0.1);
	ck_assert(!burst_exceeded(&b, 0.2, 1000));
	burst_record(&b, 3, 0.2);
	ck_assert(burst_exceeded(&b, 0.3, 1000));
	ck_assert(burst_exceeded(&b, 0.999, 1000));
	ck_assert(!burst_exceeded(&b, 1.0, 1000));	/* the oldest has left the window */
	burst_record(&b, 3, 1.0);			/* ring: 0.1 0.2 1.0 */
	ck_assert(burst_exceeded(&b, 1.05, 1000));
	ck_assert(!burst_exceeded(&b, 1.1, 1000));
	burst_free(&b);
	ck_assert(!burst_exceeded(&b, 0.0, 1000));
	burst_record(&b, 1, 5.0);
	ck_assert(burst_exceeded(&b, 5.5, 1000));
	ck_assert(!burst_exceeded(&b, 6.0, 1000));
	burst_free(&b);
}
END_TEST

static const struct {
	const char	*body;
	int		 rc;
	const char	*role, *leader, *state;
	int		 ready, usable, phase;
} health[] = {
	/* the real master 0.3.12, without HA and as a leader and a standby */
	{ "{\"status\":\"ok\",\"service_ready\":true}", 0, "leader", "", "", 1, 1, MH_SERVING },
	{ "{\"role\":\"leader\",\"service_ready\":true,\"leader_address\":\"10.0.0.1:50051\"}", 0, "leader", "10.0.0.1:50051", "", 1, 1, MH_SERVING },
	{ "{\"role\":\"standby\",\"service_ready\":false,\"leader_address\":\"10.0.0.1:50051\"}", 0, "standby", "10.0.0.1:50051", "", 0, 1, MH_STANDBY },
	{ "{\"role\":\"standby\",\"service_ready\":false}", 0, "standby", "", "", 0, 0, MH_NO_LEADER },
	{ "{\"role\":\"standby\",\"service_ready\":false,\"leader_address\":\"\"}", 0, "standby", "", "", 0, 0, MH_NO_LEADER },
	/* 0.3.12 with the Redis backend: every ha_state it has (include/ha/ha_types.h) */
	{ "{\"status\":\"ok\",\"role\":\"leader\",\"ha_state\":\"serving\",\"service_ready\":true,\"leader_address\":\"127.0.0.2:50051\",\"view_version\":3}",
	  0, "leader", "127.0.0.2:50051", "serving", 1, 1, MH_SERVING },
	{ "{\"status\":\"ok\",\"role\":\"leader\",\"ha_state\":\"leader_warmup\",\"service_ready\":false,\"leader_address\":\"127.0.0.2:50051\",\"view_version\":4}",
	  0, "leader", "127.0.0.2:50051", "leader_warmup", 0, 0, MH_WARMUP },
	{ "{\"status\":\"ok\",\"role\":\"standby\",\"ha_state\":\"standby\",\"service_ready\":false,\"leader_address\":\"127.0.0.3:50051\",\"view_version\":4}",
	  0, "standby", "127.0.0.3:50051", "standby", 0, 1, MH_STANDBY },
	{ "{\"status\":\"ok\",\"role\":\"standby\",\"ha_state\":\"recovering\",\"service_ready\":false,\"leader_address\":\"127.0.0.3:50051\"}",
	  0, "standby", "127.0.0.3:50051", "recovering", 0, 1, MH_STANDBY },
	{ "{\"status\":\"ok\",\"role\":\"standby\",\"ha_state\":\"starting\",\"service_ready\":false}", 0, "standby", "", "starting", 0, 0, MH_NO_LEADER },
	{ "{\"status\":\"ok\",\"role\":\"standby\",\"ha_state\":\"candidate\",\"service_ready\":false}", 0, "standby", "", "candidate", 0, 0, MH_NO_LEADER },
	{ "{\"role\":\"standby\",\"ha_state\":\"catching_up\",\"service_ready\":false,\"leader_address\":\"h:1\"}", 0, "standby", "h:1", "catching_up", 0, 1, MH_STANDBY },
	{ "{\"role\":\"leader\",\"ha_state\":\"a-state-name-far-far-too-long\",\"service_ready\":false}", 0, "leader", "", "", 0, 0, MH_WARMUP },
	{ "{\"role\":\"standby\",\"ha_state\":7,\"service_ready\":false}", 0, "standby", "", "", 0, 0, MH_NO_LEADER },
	{ "{\"service_ready\":false}", 0, "leader", "", "", 0, 0, MH_WARMUP },
	{ "{\"service_ready\":\"true\"}", 0, "leader", "", "", 0, 0, MH_WARMUP },
	{ "{\"role\":7,\"service_ready\":true}", 0, "leader", "", "", 1, 1, MH_SERVING },
	{ "{\"role\":\"a-role-name-far-too-long\",\"service_ready\":true}", 0, "leader", "", "", 1, 1, MH_SERVING },
	{ "[1,2]", -1, "leader", "", "", 0, 0, MH_WARMUP },
	{ "OK", -1, "leader", "", "", 0, 0, MH_WARMUP },
	{ "", -1, "leader", "", "", 0, 0, MH_WARMUP },
};

START_TEST(test_mhealth)
{
	const char *b = health[_i].body;
	struct mhealth h;
	ck_assert_int_eq(mhealth_parse(b, strlen(b), &h), health[_i].rc);
	ck_assert_str_eq(h.role, health[_i].role);
	ck_assert_str_eq(h.leader, health[_i].leader);
	ck_assert_str_eq(h.ha_state, health[_i].state);
	ck_assert_int_eq(h.service_ready, health[_i].ready);
	ck_assert_int_eq(mhealth_usable(&h), health[_i].usable);
	ck_assert_int_eq(mhealth_phase(&h), health[_i].phase);
	ck_assert_str_ne(mhealth_phase_name(mhealth_phase(&h)), "unknown");
	/* a body cut anywhere is not an object, and is never usable */
	for (size_t n = 0; n + 1 < strlen(b); n++) {
		ck_assert_int_eq(mhealth_parse(b, n, &h), -1);
		ck_assert(!mhealth_usable(&h));
		ck_assert_int_ne(mhealth_phase(&h), MH_SERVING);
	}
}
END_TEST

/* Lines of the real 0.3.12's log on a leader's snapshots (master_snapshot_manager.cpp), as glog
 * writes them, and others that name a snapshot without saying how one ended. */
static const struct {
	const char	*line;
	int		 kind;
	const char	*why;
} snap[] = {
	{ "I20261206 09:39:45.048580  3750 master_snapshot_manager.cpp:343] [Snapshot] Child process successfully persisted state, snapshot_id=20261206_093943_044, child_pid=4000\n", MH_SNAP_OK, "20261206_093943_044" },
	{ "E20261206 09:42:07.250680  5231 master_snapshot_manager.cpp:338] [Snapshot] Child process exited with error code: 1, snapshot_id=20261206_094205_244, child_pid=5413", MH_SNAP_FAILED, "" },
	{ "E20261206 09:42:07.250680  5231 master_snapshot_manager.cpp:350] [Snapshot] Child process terminated by signal: 9, snapshot_id=x, child_pid=5", MH_SNAP_FAILED, "" },
	{ "W20261206 09:42:07.250680  5231 master_snapshot_manager.cpp:297] [Snapshot] Child process timeout, snapshot_id=x, child_pid=5, killing child process", MH_SNAP_FAILED, "" },
	{ "I20261206 09:42:07.250635  5231 master_snapshot_manager.cpp:230] [Snapshot:Child] [ERROR] [Snapshot] Child process failed to persist state, snapshot_id=20261206_094205_244,code=SERIALIZE_FAIL,msg=Failed to serialize shard 6: Failed to serialize metadata for key 'loop-33': serialize AllocatedBuffer segment_view.GetSegment() fail ret=-101\r\n",
	  MH_SNAP_WHY, "SERIALIZE_FAIL,msg=Failed to serialize shard 6: Failed to serialize metadata for key 'loop-33': serialize AllocatedBuffer segment_view.GetSegment() fail ret=-101" },
	/* the child's own lines, relayed by its parent: the parent's line says the outcome */
	{ "I20261206 09:33:35.896976 15975 master_snapshot_manager.cpp:230] [Snapshot:Child] [INFO] [Snapshot] Child process successfully persisted state, snapshot_id=20261206_093333_886", MH_SNAP_NONE, "" },
	{ "I20261206 09:33:33.894114 15975 master_snapshot_manager.cpp:201] [Snapshot] waiting for child process to complete, snapshot_id=1, child_pid=17646, timeout=300s", MH_SNAP_NONE, "" },
	{ "I20261206 09:33:21.876470 15354 master_service_supervisor.cpp:154] Master runtime state -> serving, role=leader", MH_SNAP_NONE, "" },
	{ "Child process successfully persisted state, child_pid=1", MH_SNAP_NONE, "" },
	{ "", MH_SNAP_NONE, "" },
};

START_TEST(test_snapshot_line)
{
	const char *l = snap[_i].line;
	char why[400], small[8];
	why[0] = '\0';
	ck_assert_int_eq(mhealth_snapshot_line(l, strlen(l), why, sizeof why), snap[_i].kind);
	if (snap[_i].kind == MH_SNAP_OK)
		ck_assert_str_eq(why, snap[_i].why);
	if (snap[_i].kind == MH_SNAP_WHY) {
		ck_assert_str_eq(why, snap[_i].why);
		ck_assert_int_eq(mhealth_snapshot_line(l, strlen(l), small, sizeof small), MH_SNAP_WHY);
		ck_assert_uint_eq(strlen(small), sizeof small - 1);
		ck_assert(strncmp(small, snap[_i].why, sizeof small - 1) == 0);
	}
	/* a line cut anywhere says no more than the whole line, and never something else */
	for (size_t n = 0; n < strlen(l); n++) {
		int k = mhealth_snapshot_line(l, n, why, sizeof why);
		ck_assert(k == MH_SNAP_NONE || k == snap[_i].kind);
	}
}
END_TEST

/* 0.3.12's restore lines (master_service.cpp, RestoreState), as glog writes them */
static const struct {
	const char	*line;
	int		 kind;
	const char	*what;
} restore[] = {
	{ "I1207 04:20:01.123456 123 master_service.cpp:9478] [Restore] Successfully restored state from snapshot: "
	    "20261207_042000_123\n", MH_RESTORED, "20261207_042000_123" },
	{ "I1207 04:20:01.1 1 master_service.cpp:9431] [Restore] No previous snapshot found, starting fresh",
	    MH_RESTORE_FRESH, "" },
	{ "E1207 04:20:01.1 1 master_service.cpp:9410] [Restore] Snapshot catalog store is not initialized, "
	    "starting fresh", MH_RESTORE_FRESH, "" },
	{ "W1207 04:20:01.1 1 master_service.cpp:9447] [Restore] Snapshot candidate 20261207_1 is unusable: "
	    "failed to download payloads: file not found\r\n", MH_RESTORE_UNUSABLE,
	    "20261207_1 is unusable: failed to download payloads: file not found" },
	{ "E1207 04:20:01.1 1 master_service.cpp:9489] [Restore] Failed to restore from all candidate snapshots "
	    "(count=2), starting fresh", MH_RESTORE_FAILED, "" },
	{ "I1207 04:20:01.1 1 master_service.cpp:9415] [Restore] Backend info: local:/var/lib/x", MH_RESTORE_NONE, "" },
	{ "Successfully restored state from snapshot: x", MH_RESTORE_NONE, "" },
	{ "", MH_RESTORE_NONE, "" },
};

START_TEST(test_restore_line)
{
	const char *l = restore[_i].line;
	char what[400] = "";
	ck_assert_int_eq(mhealth_restore_line(l, strlen(l), what, sizeof what), restore[_i].kind);
	if (restore[_i].kind == MH_RESTORED || restore[_i].kind == MH_RESTORE_UNUSABLE)
		ck_assert_str_eq(what, restore[_i].what);
	for (size_t n = 0; n < strlen(l); n++) {
		int k = mhealth_restore_line(l, n, what, sizeof what);
		ck_assert(k == MH_RESTORE_NONE || k == restore[_i].kind);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("restart");
	TCase *tc = tcase_create("restart");
	tcase_add_test(tc, test_backoff);
	tcase_add_test(tc, test_burst);
	tcase_add_loop_test(tc, test_mhealth, 0, (int)(sizeof health / sizeof health[0]));
	tcase_add_loop_test(tc, test_snapshot_line, 0, (int)(sizeof snap / sizeof snap[0]));
	tcase_add_loop_test(tc, test_restore_line, 0, (int)(sizeof restore / sizeof restore[0]));
	suite_add_tcase(s, tc);
	return unit_run(s);
}
