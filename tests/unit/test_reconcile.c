/* The daemon's one decision, as tables of states and the actions they must give. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "reconcile.h"
#include "unit.h"

#define READY_MASTER .master = RC_MASTER_READY, .master_alive = 1

static const struct {
	const char		*what;
	struct rc_state		 s;
	struct rc_actions	 want;
} cases[] = {
	{ "start-up: master starting, nothing written yet: only STATUS=",
	  { .master = RC_MASTER_STARTING, .master_alive = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "first ready: publish generation 1, tell systemd in the next step",
	  { READY_MASTER, .master_gen = 1 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 1, .start_workers = 1, .again = 1 } },
	{ "after that publish, the node ready by the readiness rule: READY=1",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .node_ready = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_READY } },
	{ "the publish's write failed: no READY=1, STATUS= says why",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .files_error = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "READY=1 sent once: STATUS= after",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "the master died: the files say not ready, same generation",
	  { .master = RC_MASTER_BACKOFF, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 1, .start_workers = 1, .again = 1 } },
	{ "not ready already: nothing written again",
	  { .master = RC_MASTER_STARTING, .master_alive = 1, .master_gen = 1, .published = 1, .files_gen = 1, .ready_sent = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "ready again after a restart: a new generation",
	  { READY_MASTER, .master_gen = 2, .published = 1, .files_gen = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 2, .start_workers = 1, .again = 1 } },
	{ "the generation continues the files' (a sidecar restarted over old files)",
	  { READY_MASTER, .master_gen = 1, .published = 0, .files_gen = 7 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 8, .start_workers = 1, .again = 1 } },
	{ "HA: the leader changed (same master generation): a new generation",
	  { READY_MASTER, .master_gen = 1, .published = 1, .target_changed = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 2, .start_workers = 1, .again = 1 } },
	{ "HA: a standby naming no leader is not ready for workers",
	  { READY_MASTER, .master_gen = 1, .published = 1, .standby = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 1, .start_workers = 1, .again = 1 } },
	{ "HA: a standby naming its leader is",
	  { READY_MASTER, .master_gen = 1, .published = 0, .standby = 1, .leader_known = 1 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 1, .start_workers = 1, .again = 1 } },
	{ "HA: no leader serves (own warmup, or its leader does not serve): the ready files say not ready",
	  { READY_MASTER, .master_gen = 1, .published = 1, .ha_wait = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 1, .start_workers = 1, .again = 1 } },
	{ "HA: no leader serves: not-ready files stay as they are",
	  { READY_MASTER, .master_gen = 1, .published = 1, .ha_wait = 1, .files_gen = 1, .ready_sent = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "HA: a leader serves again, at the same target and master generation: a new generation, ready",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NEW, .publish_gen = 2, .start_workers = 1, .again = 1 } },
	{ "not-ready files whose write failed wait for the retry, not a new generation",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_error = 1, .ready_sent = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "SIGHUP while ready: logs reopened, files rewritten as they stand",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 3, .files_ready = 1, .reload = 1 },
	  { .reopen_logs = 1, .publish = RC_PUBLISH_REWRITE, .publish_gen = 3, .start_workers = 1, .again = 1 } },
	{ "SIGHUP while not ready: rewritten not ready",
	  { .master = RC_MASTER_BACKOFF, .master_gen = 1, .published = 1, .files_gen = 3, .reload = 1 },
	  { .reopen_logs = 1, .publish = RC_PUBLISH_NOT_READY, .publish_gen = 3, .start_workers = 1, .again = 1 } },
	{ "SIGHUP before any file: nothing to rewrite, READY=1 not yet",
	  { .master = RC_MASTER_STARTING, .master_alive = 1, .reload = 1 },
	  { .reopen_logs = 1, .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "a fatal master: not ready, never READY=1",
	  { .master = RC_MASTER_FATAL, .master_gen = 1, .published = 1, .files_gen = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "stop: the files say not ready, workers stopped first, the master waits for them",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .ready_sent = 1, .stopping = 1, .workers = 2, .workers_running = 2 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 1, .stop_workers = 1, .again = 1 } },
	{ "stop: workers still running, master untouched, no STATUS=",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .stopping = 1, .workers_stop_sent = 1, .workers = 2, .workers_running = 1 },
	  { 0 } },
	{ "stop: workers gone: the master next",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .stopping = 1, .workers_stop_sent = 1, .workers = 2 },
	  { .stop_master = 1 } },
	{ "stop: the master stopping: wait",
	  { .master = RC_MASTER_STOPPING, .master_alive = 1, .stopping = 1, .workers_stop_sent = 1, .master_stop_sent = 1 },
	  { 0 } },
	{ "stop: the master gone: the orphans last",
	  { .master = RC_MASTER_STOPPED, .stopping = 1, .workers_stop_sent = 1, .master_stop_sent = 1 },
	  { .signal_orphans = 1 } },
	{ "stop: orphans signalled once",
	  { .master = RC_MASTER_STOPPED, .stopping = 1, .workers_stop_sent = 1, .master_stop_sent = 1, .orphans_signalled = 1 },
	  { 0 } },
	{ "stop with the master in backoff: stopped and the orphans in one step",
	  { .master = RC_MASTER_BACKOFF, .stopping = 1, .workers_stop_sent = 1 },
	  { .stop_master = 1, .signal_orphans = 1 } },
	{ "second stop signal: workers and master at once",
	  { READY_MASTER, .stopping = 1, .stop_now = 1, .workers_stop_sent = 1, .workers = 2, .workers_running = 2 },
	  { .stop_workers = 2, .stop_master = 2 } },
	{ "second stop signal after the graceful master stop: at once",
	  { .master = RC_MASTER_STOPPING, .master_alive = 1, .stopping = 1, .stop_now = 1, .workers_stop_sent = 2, .master_stop_sent = 1 },
	  { .stop_master = 2 } },
	{ "follower: files not ready yet, workers waiting",
	  { .master = RC_MASTER_NONE, .workers = 2 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "follower: files ready, workers not all healthy: no READY=1",
	  { .master = RC_MASTER_NONE, .files_gen = 2, .files_ready = 1, .workers = 2, .workers_ready = 1, .workers_running = 2 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "follower: files ready and every worker healthy: READY=1; never a publish of its own",
	  { .master = RC_MASTER_NONE, .files_gen = 2, .files_ready = 1, .workers = 2, .workers_ready = 2, .workers_running = 2, .node_ready = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_READY } },
	{ "master ready and published, but the readiness rule says no (a worker still loading): no READY=1",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .workers = 2, .workers_ready = 1, .workers_running = 2 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "follower: the head lost while the files say ready: they say not ready, same generation",
	  { .master = RC_MASTER_NONE, .files_gen = 4, .files_ready = 1, .follow_lost = 1, .ready_sent = 1 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 4, .start_workers = 1, .again = 1 } },
	{ "follower: the head lost, the files not ready already: nothing written",
	  { .master = RC_MASTER_NONE, .files_gen = 4, .follow_lost = 1, .ready_sent = 1 },
	  { .start_workers = 1, .notify = RC_NOTIFY_STATUS } },
	{ "stop with workers.drain_on_stop: the drain first, the workers kept",
	  { .master = RC_MASTER_NONE, .files_gen = 2, .files_ready = 1, .stopping = 1, .drain_pending = 1, .workers = 2, .workers_running = 2 },
	  { .start_drain = 1 } },
	{ "stop, the drain under way: wait for it",
	  { .master = RC_MASTER_NONE, .stopping = 1, .drain_pending = 1, .drain_started = 1, .workers = 2, .workers_running = 2 },
	  { 0 } },
	{ "stop, the drain ended: the workers next",
	  { .master = RC_MASTER_NONE, .stopping = 1, .drain_started = 1, .workers = 2, .workers_running = 2 },
	  { .stop_workers = 1 } },
	{ "second stop signal during the drain: workers at once, not waiting for it",
	  { .master = RC_MASTER_NONE, .stopping = 1, .stop_now = 1, .drain_pending = 1, .drain_started = 1, .workers = 2, .workers_running = 2 },
	  { .stop_workers = 2 } },
	{ "drain on the master's node: the files say not ready (the node is leaving), the master is kept",
	  { READY_MASTER, .master_gen = 1, .published = 1, .files_gen = 1, .files_ready = 1, .stopping = 1, .drain_pending = 1, .workers = 1, .workers_running = 1 },
	  { .publish = RC_PUBLISH_NOT_READY, .publish_gen = 1, .start_drain = 1, .again = 1 } },
	{ "follower stop: no master, the orphans once the workers are gone",
	  { .master = RC_MASTER_NONE, .stopping = 1, .workers_stop_sent = 1, .workers = 2 },
	  { .signal_orphans = 1 } },
	{ "follower stop, its head has not heard it stop yet: the last step waits",
	  { .master = RC_MASTER_NONE, .stopping = 1, .workers_stop_sent = 1, .report_pending = 1 },
	  { 0 } },
	{ "follower stop, a second signal: no waiting for the head",
	  { .master = RC_MASTER_NONE, .stopping = 1, .stop_now = 1, .workers_stop_sent = 2, .report_pending = 1 },
	  { .signal_orphans = 1 } },
	{ "HA leader stopped, its lease being released: the last step waits for the release",
	  { .master = RC_MASTER_STOPPED, .stopping = 1, .workers_stop_sent = 1, .master_stop_sent = 1, .lease_pending = 1 },
	  { 0 } },
	{ "HA leader stopped, a second signal: no waiting for the release",
	  { .master = RC_MASTER_STOPPED, .stopping = 1, .stop_now = 1, .workers_stop_sent = 2, .master_stop_sent = 2,
	    .lease_pending = 1 },
	  { .signal_orphans = 1 } },
	{ "HA leader stopped, its lease released: the orphans, the end",
	  { .master = RC_MASTER_STOPPED, .stopping = 1, .workers_stop_sent = 1, .master_stop_sent = 1 },
	  { .signal_orphans = 1 } },
};

static void
describe(char *buf, size_t len, const struct rc_actions *a)
{
	snprintf(buf, len, "reopen %d publish %s/%u drain %d stop_workers %d start_workers %d stop_master %d "
	    "orphans %d notify %d again %d", a->reopen_logs, reconcile_publish_name(a->publish),
	    a->publish_gen, a->start_drain, a->stop_workers, a->start_workers, a->stop_master, a->signal_orphans,
	    a->notify, a->again);
}

START_TEST(test_table)
{
	struct rc_actions got;
	char g[256], w[256];
	reconcile_decide(&cases[_i].s, &got);
	describe(g, sizeof g, &got);
	describe(w, sizeof w, &cases[_i].want);
	ck_assert_msg(strcmp(g, w) == 0, "%s:\n got  %s\n want %s", cases[_i].what, g, w);
}
END_TEST

/* Carrying a decision out and deciding again settles: no step asks for another forever. */
START_TEST(test_settles)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rc_state s = cases[i].s;
		struct rc_actions a;
		int steps = 0;
		do {
			reconcile_decide(&s, &a);
			s.reload = 0;
			if (a.publish == RC_PUBLISH_NEW) {
				s.published = s.master_gen;
				s.target_changed = 0;
			}
			if (a.publish != RC_PUBLISH_NONE) {
				s.files_gen = a.publish_gen;
				s.files_ready = a.publish != RC_PUBLISH_NOT_READY;
			}
			if (a.start_drain)
				s.drain_started = 1;
			if (a.stop_workers)
				s.workers_stop_sent = a.stop_workers;
			if (a.stop_master)
				s.master_stop_sent = a.stop_master;
			if (a.signal_orphans)
				s.orphans_signalled = 1;
			if (a.notify == RC_NOTIFY_READY)
				s.ready_sent = 1;
		} while (a.again && ++steps < 3);
		ck_assert_msg(!a.again, "%s: still asking for another step", cases[i].what);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("reconcile");
	TCase *tc = tcase_create("reconcile");
	tcase_add_loop_test(tc, test_table, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_settles);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
