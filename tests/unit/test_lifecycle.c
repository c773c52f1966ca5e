/* A supervised process's lifecycle, as a table: every state × event pair, and for the pairs whose
 * outcome depends on it the restart policy, gang membership, the burst limit and what the state
 * remembers. A process runs in starting, ready and stopping, and in no other state. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "cfg.h"
#include "lifecycle.h"
#include "unit.h"

enum { ALW = RESTART_ALWAYS, ONF = RESTART_ON_FAILURE, NEV = RESTART_NEVER };
enum { STO = LC_STOPPED, STA = LC_STARTING, RDY = LC_READY, BAK = LC_BACKOFF, STP = LC_STOPPING, FAT = LC_FATAL };

struct row {
	int		 state, event;
	int		 policy, managed, burst;	/* burst: one more start would exceed it */
	const char	*flags;		/* what the state remembers, before: "r" restart_after_stop, "s" shutting_down, "g"
					 * gang_restart, "a" asked, "h" held, "o" paused_out; and "p": supervision is paused */
	int		 next;
	const char	*flags_after;
	const char	*actions;	/* as describe() writes them */
};

#define R(st, ev, pol, man, bur, fl, nx, fa, act) { st, ev, pol, man, bur, fl, nx, fa, act }

static const struct row rows[] = {
	/* LC_START */
	R(STO, LC_START, ONF, 0, 0, "", STO, "", "spawn record cancel"),
	R(STO, LC_START, ONF, 0, 1, "", FAT, "", "cancel why=burst"),
	R(STO, LC_START, ONF, 1, 1, "", STO, "", "spawn record cancel"),	/* a gang counts its own starts */
	R(STO, LC_START, ONF, 0, 0, "s", STO, "", "spawn record cancel"),
	R(STA, LC_START, ONF, 0, 0, "", STA, "", ""),
	R(RDY, LC_START, ONF, 0, 0, "", RDY, "", ""),
	R(BAK, LC_START, ONF, 0, 0, "", BAK, "", "spawn record cancel"),
	R(STP, LC_START, ONF, 0, 0, "s", STP, "s", ""),
	R(FAT, LC_START, ONF, 0, 0, "", FAT, "", "spawn record cancel"),
	R(FAT, LC_START, ONF, 0, 1, "", FAT, "", "cancel why=burst"),
	/* LC_BACKOFF_DONE */
	R(STO, LC_BACKOFF_DONE, ONF, 0, 0, "", STO, "", ""),
	R(STA, LC_BACKOFF_DONE, ONF, 0, 0, "", STA, "", ""),
	R(RDY, LC_BACKOFF_DONE, ONF, 0, 0, "", RDY, "", ""),
	R(BAK, LC_BACKOFF_DONE, ONF, 0, 0, "", BAK, "", "spawn record"),
	R(BAK, LC_BACKOFF_DONE, ONF, 0, 1, "", FAT, "", "why=burst"),
	R(BAK, LC_BACKOFF_DONE, ALW, 1, 1, "", BAK, "", "spawn record"),
	R(STP, LC_BACKOFF_DONE, ONF, 0, 0, "", STP, "", ""),
	R(FAT, LC_BACKOFF_DONE, ONF, 0, 0, "", FAT, "", ""),
	/* LC_SPAWNED: after a spawn that was asked for */
	R(STO, LC_SPAWNED, ONF, 0, 0, "", STA, "", "why=pid"),
	R(STA, LC_SPAWNED, ONF, 0, 0, "", STA, "", ""),
	R(RDY, LC_SPAWNED, ONF, 0, 0, "", RDY, "", ""),
	R(BAK, LC_SPAWNED, ONF, 0, 0, "", STA, "", "why=pid"),
	R(STP, LC_SPAWNED, ONF, 0, 0, "", STP, "", ""),
	R(FAT, LC_SPAWNED, ONF, 0, 0, "", STA, "", "why=pid"),
	/* LC_SPAWN_FAILED: a start that found its port taken, no command, no clone */
	R(STO, LC_SPAWN_FAILED, ONF, 0, 0, "", BAK, "", "backoff=own why=not-started"),
	R(STA, LC_SPAWN_FAILED, ONF, 0, 0, "", STA, "", ""),
	R(RDY, LC_SPAWN_FAILED, ONF, 0, 0, "", RDY, "", ""),
	R(BAK, LC_SPAWN_FAILED, ONF, 0, 0, "", BAK, "", "backoff=own why=not-started"),
	R(BAK, LC_SPAWN_FAILED, NEV, 1, 0, "", BAK, "", "backoff=own why=not-started"),
	R(STP, LC_SPAWN_FAILED, ONF, 0, 0, "", STP, "", ""),
	R(FAT, LC_SPAWN_FAILED, ONF, 0, 0, "", BAK, "", "backoff=own why=not-started"),
	/* LC_PROBED_READY */
	R(STO, LC_PROBED_READY, ONF, 0, 0, "", STO, "", ""),
	R(STA, LC_PROBED_READY, ONF, 0, 0, "", RDY, "", "why=ready"),
	R(RDY, LC_PROBED_READY, ONF, 0, 0, "", RDY, "", ""),
	R(BAK, LC_PROBED_READY, ONF, 0, 0, "", BAK, "", ""),
	R(STP, LC_PROBED_READY, ONF, 0, 0, "", STP, "", ""),
	R(FAT, LC_PROBED_READY, ONF, 0, 0, "", FAT, "", ""),
	/* LC_FAIL: hung, unhealthy, not ready in time */
	R(STO, LC_FAIL, ONF, 0, 0, "", STO, "", ""),
	R(STA, LC_FAIL, ONF, 0, 0, "", STP, "r", "term why=failed"),
	R(RDY, LC_FAIL, NEV, 0, 0, "", STP, "r", "term why=failed"),
	R(BAK, LC_FAIL, ONF, 0, 0, "", BAK, "", ""),
	R(STP, LC_FAIL, ONF, 0, 0, "s", STP, "s", ""),
	R(FAT, LC_FAIL, ONF, 0, 0, "", FAT, "", ""),
	/* LC_EXITED (code 0) under each policy, alone and in a gang */
	R(STO, LC_EXITED, ONF, 0, 0, "", STO, "", ""),
	R(STA, LC_EXITED, ONF, 0, 0, "", STO, "", "cancel why=policy"),
	R(STA, LC_EXITED, ALW, 0, 0, "", BAK, "", "backoff=own cancel why=restarting"),
	R(STA, LC_EXITED, NEV, 0, 0, "", STO, "", "cancel why=policy"),
	R(RDY, LC_EXITED, ONF, 0, 0, "", STO, "", "cancel why=policy"),
	R(RDY, LC_EXITED, ALW, 0, 0, "", BAK, "", "backoff=own cancel why=restarting"),
	R(RDY, LC_EXITED, ALW, 1, 0, "", STO, "", "cancel why=gang-decides"),
	R(BAK, LC_EXITED, ALW, 0, 0, "", BAK, "", ""),
	R(STP, LC_EXITED, ONF, 0, 0, "r", BAK, "", "backoff=own cancel why=restarting"),	/* stopped for a failure */
	R(STP, LC_EXITED, NEV, 0, 0, "r", BAK, "", "backoff=own cancel why=restarting"),
	R(STP, LC_EXITED, ALW, 0, 0, "s", STO, "s", "cancel why=exit"),
	R(STP, LC_EXITED, ALW, 1, 0, "g", BAK, "", "backoff=gang cancel why=gang-delay"),
	R(STP, LC_EXITED, ALW, 1, 0, "r", STO, "", "cancel why=gang-decides"),
	R(FAT, LC_EXITED, ONF, 0, 0, "", FAT, "", ""),
	/* LC_DIED (another code, a signal) */
	R(STO, LC_DIED, ONF, 0, 0, "", STO, "", ""),
	R(STA, LC_DIED, ONF, 0, 0, "", BAK, "", "backoff=own cancel why=restarting"),
	R(STA, LC_DIED, NEV, 0, 0, "", FAT, "", "cancel why=policy"),
	R(RDY, LC_DIED, ONF, 0, 0, "", BAK, "", "backoff=own cancel why=restarting"),
	R(RDY, LC_DIED, ALW, 0, 0, "", BAK, "", "backoff=own cancel why=restarting"),
	R(RDY, LC_DIED, NEV, 0, 0, "", FAT, "", "cancel why=policy"),
	R(RDY, LC_DIED, ONF, 1, 0, "", STO, "", "cancel why=gang-decides"),
	R(BAK, LC_DIED, ONF, 0, 0, "", BAK, "", ""),
	R(STP, LC_DIED, NEV, 0, 0, "r", BAK, "", "backoff=own cancel why=restarting"),
	R(STP, LC_DIED, ONF, 0, 0, "s", STO, "s", "cancel why=exit"),
	R(STP, LC_DIED, ONF, 1, 0, "g", BAK, "", "backoff=gang cancel why=gang-delay"),
	R(STP, LC_DIED, ONF, 1, 0, "sg", STO, "sg", "cancel why=exit"),
	R(FAT, LC_DIED, ONF, 0, 0, "", FAT, "", ""),
	/* LC_STOP */
	R(STO, LC_STOP, ONF, 0, 0, "", STO, "s", ""),
	R(STA, LC_STOP, ONF, 0, 0, "", STP, "s", "term why=shutdown"),
	R(RDY, LC_STOP, ONF, 0, 0, "rg", STP, "s", "term why=shutdown"),
	R(BAK, LC_STOP, ONF, 0, 0, "", STO, "s", "cancel why=shutdown"),
	R(STP, LC_STOP, ONF, 0, 0, "r", STP, "s", "term"),	/* a failing one is stopped for good now */
	R(FAT, LC_STOP, ONF, 0, 0, "", FAT, "s", ""),
	/* LC_STOP_NOW */
	R(STO, LC_STOP_NOW, ONF, 0, 0, "", STO, "s", ""),
	R(STA, LC_STOP_NOW, ONF, 0, 0, "", STP, "s", "kill cancel why=shutdown"),
	R(RDY, LC_STOP_NOW, ONF, 0, 0, "", STP, "s", "kill cancel why=shutdown"),
	R(BAK, LC_STOP_NOW, ONF, 0, 0, "", STO, "s", "cancel why=shutdown"),
	R(STP, LC_STOP_NOW, ONF, 0, 0, "s", STP, "s", "kill cancel"),
	R(FAT, LC_STOP_NOW, ONF, 0, 0, "", FAT, "s", ""),
	/* LC_GANG_RESTART */
	R(STO, LC_GANG_RESTART, ONF, 1, 0, "s", BAK, "", "backoff=gang why=gang-delay"),
	R(STA, LC_GANG_RESTART, ONF, 1, 0, "", STP, "g", "term why=gang"),
	R(RDY, LC_GANG_RESTART, ONF, 1, 0, "r", STP, "g", "term why=gang"),
	R(BAK, LC_GANG_RESTART, ONF, 1, 0, "", BAK, "", "backoff=gang why=gang-delay"),
	R(STP, LC_GANG_RESTART, ONF, 1, 0, "s", STP, "g", ""),	/* keeps its SIGKILL deadline */
	R(FAT, LC_GANG_RESTART, ONF, 1, 0, "", BAK, "", "backoff=gang why=gang-delay"),
	R(RDY, LC_GANG_RESTART, ONF, 1, 0, "p", RDY, "", ""),	/* paused: its gang does not restart it */
	R(STO, LC_GANG_RESTART, ONF, 1, 0, "sh", STO, "sh", ""),	/* nor one the operator stopped */
	/* LC_RESTART: the operator's, alone or in a gang, paused or not */
	R(STO, LC_RESTART, ONF, 0, 0, "sh", BAK, "a", "backoff=gang cancel why=asked"),
	R(STA, LC_RESTART, ONF, 0, 0, "", STP, "ga", "term why=asked"),
	R(RDY, LC_RESTART, NEV, 0, 0, "r", STP, "ga", "term why=asked"),
	R(RDY, LC_RESTART, ONF, 1, 0, "p", STP, "ga", "term why=asked"),
	R(BAK, LC_RESTART, ONF, 0, 0, "", BAK, "a", "backoff=gang cancel why=asked"),
	R(STP, LC_RESTART, ONF, 0, 0, "s", STP, "ga", ""),
	R(FAT, LC_RESTART, ONF, 0, 0, "", BAK, "a", "backoff=gang cancel why=asked"),
	/* LC_HOLD: the operator's stop */
	R(STO, LC_HOLD, ONF, 0, 0, "", STO, "sh", "cancel why=held"),
	R(STA, LC_HOLD, ONF, 0, 0, "", STP, "sh", "term why=held"),
	R(RDY, LC_HOLD, ONF, 1, 0, "g", STP, "sh", "term why=held"),
	R(BAK, LC_HOLD, ONF, 0, 0, "", STO, "sh", "cancel why=held"),
	R(STP, LC_HOLD, ONF, 0, 0, "r", STP, "sh", "term"),
	R(FAT, LC_HOLD, ONF, 0, 0, "", STO, "sh", "cancel why=held"),
	R(STP, LC_EXITED, ONF, 0, 0, "sh", STO, "sh", "cancel why=held"),
	R(STO, LC_START, ONF, 0, 0, "sh", STO, "", "spawn record cancel"),
	/* paused: nothing restarted, nothing stopped for a failure, no backoff ends in a start */
	R(RDY, LC_FAIL, ONF, 0, 0, "p", RDY, "", ""),
	R(RDY, LC_DIED, ALW, 0, 0, "p", STO, "o", "cancel why=paused"),
	R(STP, LC_DIED, ONF, 0, 0, "pr", STO, "o", "cancel why=paused"),
	R(STP, LC_EXITED, ONF, 0, 0, "ps", STO, "s", "cancel why=exit"),
	R(STP, LC_DIED, ONF, 0, 0, "pga", BAK, "a", "backoff=gang cancel why=gang-delay"),	/* asked: restarted */
	R(BAK, LC_BACKOFF_DONE, ONF, 0, 0, "p", STO, "o", "why=paused"),
	R(BAK, LC_BACKOFF_DONE, ONF, 0, 0, "pa", BAK, "", "spawn record"),
	R(STO, LC_START, ONF, 0, 0, "o", STO, "", "spawn record cancel"),
};

static const char *const whys[] = { "", "pid", "ready", "burst", "not-started", "restarting", "gang-delay",
	"gang-decides", "policy", "failed", "shutdown", "exit", "gang", "paused", "asked", "held" };

static void
describe(char *b, size_t len, const struct lc_actions *a)
{
	static const char *const backoffs[] = { "", "own", "gang" };
	snprintf(b, len, "%s%s%s%s%s%s%s%s%s%s%s", a->spawn ? "spawn " : "", a->record_start ? "record " : "",
	    a->backoff ? "backoff=" : "", a->backoff ? backoffs[a->backoff] : "", a->backoff ? " " : "",
	    a->term ? "term " : "", a->kill ? "kill " : "", a->cancel_timer ? "cancel " : "",
	    a->why ? "why=" : "", whys[a->why], a->why ? " " : "");
	if (strlen(b) > 0)
		b[strlen(b) - 1] = '\0';
}

static void
flags(char *b, const struct lc *l)
{
	snprintf(b, 8, "%s%s%s%s%s%s", l->restart_after_stop ? "r" : "", l->shutting_down ? "s" : "",
	    l->gang_restart ? "g" : "", l->asked ? "a" : "", l->held ? "h" : "", l->paused_out ? "o" : "");
}

START_TEST(test_table)
{
	const struct row *r = &rows[_i];
	struct lc l = { r->state, strchr(r->flags, 'r') != NULL, strchr(r->flags, 's') != NULL,
		strchr(r->flags, 'g') != NULL, strchr(r->flags, 'a') != NULL, strchr(r->flags, 'h') != NULL,
		strchr(r->flags, 'o') != NULL };
	struct lc_ctx c = { r->policy, r->managed, r->state == STA || r->state == RDY || r->state == STP, r->burst,
		strchr(r->flags, 'p') != NULL };
	struct lc_actions a;
	char got[128], f[8];
	lc_next(&l, r->event, &c, &a);
	describe(got, sizeof got, &a);
	flags(f, &l);
	ck_assert_msg(l.state == r->next && strcmp(f, r->flags_after) == 0 && strcmp(got, r->actions) == 0,
	    "row %d: %s + %s (policy %s%s%s, \"%s\"):\n got  %s \"%s\" [%s]\n want %s \"%s\" [%s]", _i,
	    lc_state_name(r->state), lc_event_name(r->event), cfg_policy_name(r->policy), r->managed ? ", gang" : "",
	    r->burst ? ", burst" : "", r->flags, lc_state_name(l.state), f, got, lc_state_name(r->next),
	    r->flags_after, r->actions);
}
END_TEST

/* Every state × event pair has a row. */
START_TEST(test_complete)
{
	for (int s = 0; s < LC_NSTATES; s++)
		for (int e = 0; e < LC_NEVENTS; e++) {
			int n = 0;
			for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
				n += rows[i].state == s && rows[i].event == e;
			ck_assert_msg(n > 0, "no row for %s + %s", lc_state_name(s), lc_event_name(e));
		}
}
END_TEST

/* A crash loop under on-failure: start, spawned, died, backoff done, ... until the burst makes it
 * fatal; a stop then leaves it there. */
START_TEST(test_crash_loop)
{
	struct lc l = { LC_STOPPED, 0, 0, 0, 0, 0, 0 };
	struct lc_ctx c = { RESTART_ON_FAILURE, 0, 0, 0, 0 };
	struct lc_actions a;
	int starts = 0;
	lc_next(&l, LC_START, &c, &a);
	while (a.spawn && starts < 10) {
		starts++;
		lc_next(&l, LC_SPAWNED, &c, &a);
		ck_assert_int_eq(l.state, LC_STARTING);
		c.running = 1;
		lc_next(&l, LC_DIED, &c, &a);
		c.running = 0;
		ck_assert_int_eq(l.state, LC_BACKOFF);
		ck_assert_int_eq(a.backoff, LC_BACKOFF_OWN);
		c.burst_exceeded = starts >= 5;
		lc_next(&l, LC_BACKOFF_DONE, &c, &a);
	}
	ck_assert_int_eq(starts, 5);
	ck_assert_int_eq(l.state, LC_FATAL);
	lc_next(&l, LC_STOP, &c, &a);
	ck_assert_int_eq(l.state, LC_FATAL);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc = tcase_create("lifecycle");
	tcase_add_loop_test(tc, test_table, 0, (int)(sizeof rows / sizeof rows[0]));
	tcase_add_test(tc, test_complete);
	tcase_add_test(tc, test_crash_loop);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
