/* The one readiness rule: every combination of a master here or not, the files ready, not or in
 * error, the workers none, starting, healthy or unhealthy, and stopping or not; then the master's
 * own states. The reason is the same text in /readyz's answer and in the STATUS= line. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "readiness.h"
#include "unit.h"

#define FOLLOW	"waiting for the head sidecar at http://head:9103: connect: Connection refused"
#define NOSPACE	"mooncake.env: No space left on device"
#define STARTING	"not ready: 1/2 workers running (agg_w1 starting: /health answered HTTP 503)"
#define UNHEALTHY	"not ready: 1/2 workers running (agg_w1 backoff: unhealthy: 3 failed health checks in a row)"
#define FILES_NOT	"not ready: endpoint files of the master's generation not written yet"
#define FILES_ERR	"not ready: endpoint files not written: " NOSPACE

/* key: master here (m) or not (-); files ready (r), not (n) or error (e); workers none (0),
 * starting (s), healthy (h) or unhealthy (u); stopping (S) or not (-). */
static const struct { const char *key, *want; } table[] = {
	{ "mr0-", "ready" }, { "mrs-", STARTING }, { "mrh-", "ready" }, { "mru-", UNHEALTHY },
	{ "mn0-", FILES_NOT }, { "mns-", FILES_NOT }, { "mnh-", FILES_NOT }, { "mnu-", FILES_NOT },
	{ "me0-", FILES_ERR }, { "mes-", FILES_ERR }, { "meh-", FILES_ERR }, { "meu-", FILES_ERR },
	{ "-r0-", "ready" }, { "-rs-", STARTING }, { "-rh-", "ready" }, { "-ru-", UNHEALTHY },
	{ "-n0-", "not ready: " FOLLOW }, { "-ns-", "not ready: " FOLLOW }, { "-nh-", "not ready: " FOLLOW },
	{ "-nu-", "not ready: " FOLLOW },
	{ "-e0-", FILES_ERR }, { "-es-", FILES_ERR }, { "-eh-", FILES_ERR }, { "-eu-", FILES_ERR },
	{ "mr0S", "not ready: stopping" }, { "mrsS", "not ready: stopping" }, { "mrhS", "not ready: stopping" },
	{ "mruS", "not ready: stopping" }, { "mn0S", "not ready: stopping" }, { "mnsS", "not ready: stopping" },
	{ "mnhS", "not ready: stopping" }, { "mnuS", "not ready: stopping" }, { "me0S", "not ready: stopping" },
	{ "mesS", "not ready: stopping" }, { "mehS", "not ready: stopping" }, { "meuS", "not ready: stopping" },
	{ "-r0S", "not ready: stopping" }, { "-rsS", "not ready: stopping" }, { "-rhS", "not ready: stopping" },
	{ "-ruS", "not ready: stopping" }, { "-n0S", "not ready: stopping" }, { "-nsS", "not ready: stopping" },
	{ "-nhS", "not ready: stopping" }, { "-nuS", "not ready: stopping" }, { "-e0S", "not ready: stopping" },
	{ "-esS", "not ready: stopping" }, { "-ehS", "not ready: stopping" }, { "-euS", "not ready: stopping" },
};

static struct rd_facts
facts_of(const char *key)
{
	struct rd_facts f = { 0 };
	f.stopping = key[3] == 'S';
	f.has_master = key[0] == 'm';
	f.master_ready = f.has_master;
	f.master_state = f.has_master ? "ready" : "absent";
	f.master_reason = "";
	f.master_pid = 4242;
	f.master_node = "head";
	f.follow_state = f.has_master ? NULL : FOLLOW;
	f.files_ready = key[1] == 'r';
	f.files_gen = key[1] == 'r' ? 3 : 2;
	f.files_error = key[1] == 'e' ? NOSPACE : NULL;
	f.workers = key[2] == '0' ? 0 : 2;
	f.workers_healthy = key[2] == 'h' ? 2 : key[2] == '0' ? 0 : 1;
	if (key[2] == 's' || key[2] == 'u') {
		f.worker_name = "agg_w1";
		f.worker_state = key[2] == 's' ? "starting" : "backoff";
		f.worker_detail = key[2] == 's' ? "/health answered HTTP 503" : "unhealthy: 3 failed health checks in a row";
	}
	return f;
}

START_TEST(test_every_combination)
{
	struct rd_facts f = facts_of(table[_i].key);
	char why[2048], line[2048];
	int ready = readiness(&f, why, sizeof why);
	ck_assert_msg(strcmp(why, table[_i].want) == 0, "%s: got \"%s\", want \"%s\"", table[_i].key, why,
	    table[_i].want);
	ck_assert_int_eq(ready, strcmp(table[_i].want, "ready") == 0);
	/* the reason, less "not ready: ", stands in the STATUS= line word for word */
	readiness_status_line(&f, line, sizeof line);
	if (!ready)
		ck_assert_msg(strstr(line, why + strlen("not ready: ")) != NULL, "%s: STATUS=%s lacks \"%s\"", table[_i].key, line, why);
}
END_TEST

/* Every combination of the four dimensions is in the table, once. */
START_TEST(test_table_complete)
{
	const char *m = "m-", *fl = "rne", *w = "0shu", *st = "-S";
	size_t n = sizeof table / sizeof table[0], found = 0;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 4; c++)
				for (int d = 0; d < 2; d++) {
					char key[5] = { m[a], fl[b], w[c], st[d], 0 };
					int hits = 0;
					for (size_t i = 0; i < n; i++)
						hits += strcmp(table[i].key, key) == 0;
					ck_assert_msg(hits == 1, "%s is in the table %d times", key, hits);
					found++;
				}
	ck_assert_uint_eq(found, n);
}
END_TEST

/* The master's own states, on a node with healthy workers and ready files. */
static const struct { const char *state, *reason; int ready; const char *ha_role, *ha_wait, *stalled, *why, *line, *restore; } master[] = {
	{ "ready", "", 1, NULL, NULL, NULL, "ready", "master ready (gen 3, pid 4242, 1 restart); 2/2 workers running", NULL },
	{ "ready", "", 0, NULL, NULL, "the lock probe (/batch_query_keys) has not answered for 2.0 s",
	  "not ready: master stalled (pid 4242): the lock probe (/batch_query_keys) has not answered for 2.0 s",
	  "master stalled (pid 4242): the lock probe (/batch_query_keys) has not answered for 2.0 s; 2/2 workers running", NULL },
	{ "starting", "pid 4242", 0, NULL, NULL, NULL, "not ready: master starting (pid 4242, 1 restart)",
	  "master starting (pid 4242, 1 restart); 2/2 workers running", NULL },
	{ "backoff", "exited with code 1; restarting in 200 ms", 0, NULL, NULL, NULL,
	  "not ready: master backoff: exited with code 1; restarting in 200 ms",
	  "master backoff: exited with code 1; restarting in 200 ms; 2/2 workers running", NULL },
	{ "fatal", "more than 5 starts in 60000 ms; not restarting (last: exited with code 3)", 0, NULL, NULL, NULL,
	  "not ready: master fatal: more than 5 starts in 60000 ms; not restarting (last: exited with code 3)",
	  "master fatal: more than 5 starts in 60000 ms; not restarting (last: exited with code 3); 2/2 workers running", NULL },
	{ "stopped", "", 0, NULL, NULL, NULL, "not ready: master stopped", "master stopped; 2/2 workers running", NULL },
	/* HA: ready once a leader serves, itself or the one it names; up but not ready while none does */
	{ "ready", "", 1, "the HA leader", NULL, NULL, "ready",
	  "master ready as the HA leader (gen 3, pid 4242, 1 restart); 2/2 workers running", NULL },
	{ "ready", "", 1, "an HA standby of 127.0.0.2:50051", NULL, NULL, "ready",
	  "master ready as an HA standby of 127.0.0.2:50051 (gen 3, pid 4242, 1 restart); 2/2 workers running", NULL },
	{ "ready", "", 0, NULL, "up as the HA leader, in warmup for 2.1 s", NULL,
	  "not ready: master up as the HA leader, in warmup for 2.1 s (pid 4242)",
	  "master up as the HA leader, in warmup for 2.1 s (pid 4242); 2/2 workers running", NULL },
	{ "ready", "", 0, NULL, "up as an HA standby that names no leader (ha_state starting, for 1.0 s)", NULL,
	  "not ready: master up as an HA standby that names no leader (ha_state starting, for 1.0 s) (pid 4242)",
	  "master up as an HA standby that names no leader (ha_state starting, for 1.0 s) (pid 4242); 2/2 workers running", NULL },
	/* master.snapshot: how its start went, once it is ready */
	{ "ready", "", 1, NULL, NULL, NULL, "ready", "master ready (gen 3, pid 4242, 1 restart, restored); 2/2 workers running",
	  "restored" },
	{ "ready", "", 1, NULL, NULL, NULL, "ready", "master ready (gen 3, pid 4242, 1 restart, cold); 2/2 workers running",
	  "cold" },
	{ "starting", "pid 4242", 0, NULL, NULL, NULL, "not ready: master starting (pid 4242, 1 restart)",
	  "master starting (pid 4242, 1 restart); 2/2 workers running", "cold" },
};

START_TEST(test_master_states)
{
	struct rd_facts f = facts_of("mrh-");
	char why[2048], line[2048];
	f.master_ready = strcmp(master[_i].state, "ready") == 0;
	f.master_stalled = master[_i].stalled;
	f.master_state = master[_i].state;
	f.master_reason = master[_i].reason;
	f.master_restarts = 1;
	f.ha_role = master[_i].ha_role;
	f.ha_wait = master[_i].ha_wait;
	f.master_restore = master[_i].restore;
	ck_assert_int_eq(readiness(&f, why, sizeof why), master[_i].ready);
	ck_assert_str_eq(why, master[_i].why);
	readiness_status_line(&f, line, sizeof line);
	ck_assert_str_eq(line, master[_i].line);
}
END_TEST

/* Workers that wait before they start (a leader's address, the files) say what they wait for. */
START_TEST(test_waiting)
{
	struct rd_facts f = facts_of("-r0-");
	char why[2048], line[2048];
	f.workers = 2;
	f.workers_waiting = "the address of n1 from its sidecar at http://n1:9103";
	ck_assert_int_eq(readiness(&f, why, sizeof why), 0);
	ck_assert_str_eq(why, "not ready: 0/2 workers running (waiting for the address of n1 from its sidecar at "
	    "http://n1:9103)");
	readiness_status_line(&f, line, sizeof line);
	ck_assert_str_eq(line, FOLLOW "; 0/2 workers running (waiting for the address of n1 from its sidecar at "
	    "http://n1:9103)");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("readiness");
	TCase *tc = tcase_create("readiness");
	tcase_add_loop_test(tc, test_every_combination, 0, (int)(sizeof table / sizeof table[0]));
	tcase_add_test(tc, test_table_complete);
	tcase_add_loop_test(tc, test_master_states, 0, (int)(sizeof master / sizeof master[0]));
	tcase_add_test(tc, test_waiting);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
