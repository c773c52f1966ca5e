/* A gang's transitions, on its leader's node and on another member node: every state × event pair
 * for both, and where it matters the restart policy, the burst limit and a stopping sidecar. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "gangfsm.h"
#include "unit.h"

enum { RUN = GANG_RUNNING, WAI = GANG_WAITING, FAT = GANG_FATAL, STO = GANG_STOPPED };
enum { L = 1, M = 0 };	/* the leader's node, another member node */

struct row {
	int		 leader, state, event, restart, burst, stopping;
	int		 next;
	const char	*actions;
};

static const struct row rows[] = {
	/* a member here failed */
	{ L, RUN, GANG_MEMBER_FAILED, 1, 0, 0, RUN, "count new-gen restart reason=member_failed" },
	{ L, RUN, GANG_MEMBER_FAILED, 0, 0, 0, STO, "count stop why=policy" },
	{ L, RUN, GANG_MEMBER_FAILED, 1, 1, 0, FAT, "count stop why=burst" },
	{ L, RUN, GANG_MEMBER_FAILED, 1, 0, 1, RUN, "count" },
	{ L, WAI, GANG_MEMBER_FAILED, 1, 0, 0, RUN, "count new-gen restart reason=member_failed" },
	{ L, FAT, GANG_MEMBER_FAILED, 1, 0, 0, FAT, "count" },
	{ L, STO, GANG_MEMBER_FAILED, 1, 0, 0, STO, "count" },
	{ M, RUN, GANG_MEMBER_FAILED, 1, 0, 0, WAI, "count stop why=wait" },
	{ M, RUN, GANG_MEMBER_FAILED, 0, 1, 0, WAI, "count stop why=wait" },	/* the leader decides */
	{ M, RUN, GANG_MEMBER_FAILED, 1, 0, 1, RUN, "count" },
	{ M, WAI, GANG_MEMBER_FAILED, 1, 0, 0, WAI, "count stop why=wait" },
	{ M, FAT, GANG_MEMBER_FAILED, 1, 0, 0, FAT, "count" },
	{ M, STO, GANG_MEMBER_FAILED, 1, 0, 0, STO, "count" },
	/* a member here failed its health checks */
	{ L, RUN, GANG_MEMBER_UNHEALTHY, 1, 0, 0, RUN, "count new-gen restart reason=unhealthy" },
	{ L, RUN, GANG_MEMBER_UNHEALTHY, 1, 1, 0, FAT, "count stop why=burst" },
	{ L, WAI, GANG_MEMBER_UNHEALTHY, 1, 0, 0, RUN, "count new-gen restart reason=unhealthy" },
	{ L, FAT, GANG_MEMBER_UNHEALTHY, 1, 0, 0, FAT, "count" },
	{ L, STO, GANG_MEMBER_UNHEALTHY, 1, 0, 0, STO, "count" },
	{ M, RUN, GANG_MEMBER_UNHEALTHY, 1, 0, 0, WAI, "count stop why=wait" },
	{ M, WAI, GANG_MEMBER_UNHEALTHY, 1, 0, 0, WAI, "count stop why=wait" },
	{ M, FAT, GANG_MEMBER_UNHEALTHY, 1, 0, 0, FAT, "count" },
	{ M, STO, GANG_MEMBER_UNHEALTHY, 1, 0, 0, STO, "count" },
	/* the leader hears of a failure on a member node */
	{ L, RUN, GANG_PEER_FAILED, 1, 0, 0, RUN, "new-gen restart reason=member_failed" },
	{ L, RUN, GANG_PEER_FAILED, 0, 0, 0, STO, "stop why=policy" },
	{ L, RUN, GANG_PEER_FAILED, 1, 1, 0, FAT, "stop why=burst" },
	{ L, RUN, GANG_PEER_FAILED, 1, 0, 1, RUN, "" },
	{ L, WAI, GANG_PEER_FAILED, 1, 0, 0, RUN, "new-gen restart reason=member_failed" },
	{ L, FAT, GANG_PEER_FAILED, 1, 0, 0, FAT, "" },
	{ L, STO, GANG_PEER_FAILED, 1, 0, 0, STO, "" },
	{ M, RUN, GANG_PEER_FAILED, 1, 0, 0, RUN, "" },
	{ M, WAI, GANG_PEER_FAILED, 1, 0, 0, WAI, "" },
	{ M, FAT, GANG_PEER_FAILED, 1, 0, 0, FAT, "" },
	{ M, STO, GANG_PEER_FAILED, 1, 0, 0, STO, "" },
	/* a member node's sidecar is lost */
	{ L, RUN, GANG_PEER_LOST, 1, 0, 0, RUN, "new-gen restart reason=peer_lost" },
	{ L, RUN, GANG_PEER_LOST, 1, 1, 0, FAT, "stop why=burst" },
	{ L, WAI, GANG_PEER_LOST, 1, 0, 0, RUN, "new-gen restart reason=peer_lost" },
	{ L, FAT, GANG_PEER_LOST, 1, 0, 0, FAT, "" },
	{ L, STO, GANG_PEER_LOST, 1, 0, 0, STO, "" },
	{ M, RUN, GANG_PEER_LOST, 1, 0, 0, RUN, "" },
	{ M, WAI, GANG_PEER_LOST, 1, 0, 0, WAI, "" },
	{ M, FAT, GANG_PEER_LOST, 1, 0, 0, FAT, "" },
	{ M, STO, GANG_PEER_LOST, 1, 0, 0, STO, "" },
	/* the leader started another generation */
	{ M, RUN, GANG_LEADER_STARTED, 1, 0, 0, RUN, "restart reason=leader" },
	{ M, RUN, GANG_LEADER_STARTED, 1, 0, 1, RUN, "" },
	{ M, WAI, GANG_LEADER_STARTED, 1, 0, 0, RUN, "restart reason=leader" },
	{ M, FAT, GANG_LEADER_STARTED, 1, 0, 0, FAT, "" },
	{ M, STO, GANG_LEADER_STARTED, 1, 0, 0, STO, "" },
	{ L, RUN, GANG_LEADER_STARTED, 1, 0, 0, RUN, "" },
	{ L, WAI, GANG_LEADER_STARTED, 1, 0, 0, WAI, "" },
	{ L, FAT, GANG_LEADER_STARTED, 1, 0, 0, FAT, "" },
	{ L, STO, GANG_LEADER_STARTED, 1, 0, 0, STO, "" },
	/* the leader says the gang is down for good */
	{ M, RUN, GANG_LEADER_FATAL, 1, 0, 0, FAT, "stop why=leader-says" },
	{ M, WAI, GANG_LEADER_FATAL, 1, 0, 0, FAT, "stop why=leader-says" },
	{ M, FAT, GANG_LEADER_FATAL, 1, 0, 0, FAT, "" },
	{ M, STO, GANG_LEADER_FATAL, 1, 0, 0, STO, "" },
	{ L, RUN, GANG_LEADER_FATAL, 1, 0, 0, RUN, "" },
	{ L, WAI, GANG_LEADER_FATAL, 1, 0, 0, WAI, "" },
	{ L, FAT, GANG_LEADER_FATAL, 1, 0, 0, FAT, "" },
	{ L, STO, GANG_LEADER_FATAL, 1, 0, 0, STO, "" },
	{ M, RUN, GANG_LEADER_STOPPED, 1, 0, 0, STO, "stop why=leader-says" },
	{ M, WAI, GANG_LEADER_STOPPED, 1, 0, 0, STO, "stop why=leader-says" },
	{ M, FAT, GANG_LEADER_STOPPED, 1, 0, 0, FAT, "" },
	{ M, STO, GANG_LEADER_STOPPED, 1, 0, 0, STO, "" },
	{ M, RUN, GANG_LEADER_STOPPED, 1, 0, 1, RUN, "" },
	{ L, RUN, GANG_LEADER_STOPPED, 1, 0, 0, RUN, "" },
	{ L, WAI, GANG_LEADER_STOPPED, 1, 0, 0, WAI, "" },
	{ L, FAT, GANG_LEADER_STOPPED, 1, 0, 0, FAT, "" },
	{ L, STO, GANG_LEADER_STOPPED, 1, 0, 0, STO, "" },
};

static void
describe(char *b, size_t len, const struct gang_actions *a)
{
	static const char *const whys[] = { "", "policy", "burst", "leader-says", "wait" };
	snprintf(b, len, "%s%s%s%s%s%s%s%s", a->count_failure ? "count " : "", a->new_generation ? "new-gen " : "",
	    a->restart_members ? "restart reason=" : "", a->restart_members ? gang_reason_name(a->reason) : "",
	    a->restart_members ? " " : "", a->stop_members ? "stop " : "", a->why ? "why=" : "", whys[a->why]);
	if (strlen(b) > 0 && b[strlen(b) - 1] == ' ')
		b[strlen(b) - 1] = '\0';
}

START_TEST(test_table)
{
	const struct row *r = &rows[_i];
	int state = r->state;
	struct gang_ctx c = { r->leader, r->restart, r->burst, r->stopping };
	struct gang_actions a;
	char got[128];
	gang_next(&state, r->event, &c, &a);
	describe(got, sizeof got, &a);
	ck_assert_msg(state == r->next && strcmp(got, r->actions) == 0,
	    "row %d: %s, %s + %s%s%s%s:\n got  %s [%s]\n want %s [%s]", _i, r->leader ? "leader" : "member",
	    gang_state_name(r->state), gang_event_name(r->event), r->restart ? "" : ", no restart",
	    r->burst ? ", burst" : "", r->stopping ? ", stopping" : "", gang_state_name(state), got,
	    gang_state_name(r->next), r->actions);
}
END_TEST

/* Every state × event pair, on the leader's node and on another member node. */
START_TEST(test_complete)
{
	for (int l = 0; l < 2; l++)
		for (int s = 0; s < GANG_NSTATES; s++)
			for (int e = 0; e < GANG_NEVENTS; e++) {
				int n = 0;
				for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
					n += rows[i].leader == l && rows[i].state == s && rows[i].event == e;
				ck_assert_msg(n > 0, "no row for %s, %s + %s", l ? "leader" : "member", gang_state_name(s),
				    gang_event_name(e));
			}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("gangfsm");
	TCase *tc = tcase_create("gangfsm");
	tcase_add_loop_test(tc, test_table, 0, (int)(sizeof rows / sizeof rows[0]));
	tcase_add_test(tc, test_complete);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
