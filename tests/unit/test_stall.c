/* The stall verdict over its two signs, and the reading of a sample from the master's /metrics. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "stall.h"
#include "unit.h"

/* now 100 s; probe timeout 2 s, window 3 s, restart after 5 s */
static const struct {
	double probe_since, flat_since;
	int stalled, restart;
	double since;
	const char *why;
} cases[] = {
	{ 0, 0, 0, 0, 0, NULL },				/* nothing in flight, counter moving */
	{ 99.5, 0, 0, 0, 0, NULL },				/* a probe in flight 0.5 s: fine */
	{ 98.0, 0, 1, 0, 98.0, "the lock probe (/batch_query_keys) has not answered for 2.0 s" },
	{ 0, 98.0, 0, 0, 0, NULL },				/* flat 2 s < the window */
	{ 0, 97.0, 1, 0, 97.0, "master_ping_requests_total has not moved for 3.0 s with clients connected" },
	{ 96.0, 97.0, 1, 0, 96.0, "the lock probe (/batch_query_keys) has not answered for 4.0 s, and "
	  "master_ping_requests_total has not moved for 3.0 s with clients connected" },
	{ 96.5, 94.0, 1, 1, 94.0, "the lock probe (/batch_query_keys) has not answered for 3.5 s, and "
	  "master_ping_requests_total has not moved for 6.0 s with clients connected" },
	{ 95.0, 0, 1, 1, 95.0, "the lock probe (/batch_query_keys) has not answered for 5.0 s" },
	{ 99.0, 95.0, 1, 1, 95.0, "master_ping_requests_total has not moved for 5.0 s with clients connected" },
};

START_TEST(test_verdict)
{
	struct stall_in in = { 100.0, cases[_i].probe_since, 2.0, cases[_i].flat_since, 3.0, 5.0 };
	struct stall_out out;
	stall_check(&in, &out);
	ck_assert_int_eq(out.stalled, cases[_i].stalled);
	ck_assert_int_eq(out.restart, cases[_i].restart);
	if (cases[_i].stalled) {
		ck_assert_double_eq_tol(out.since, cases[_i].since, 1e-9);
		ck_assert_str_eq(out.why, cases[_i].why);
	}
	in.restart_after = 0;	/* never restart */
	stall_check(&in, &out);
	ck_assert_int_eq(out.restart, 0);
}
END_TEST

static const char metrics[] =
    "# HELP master_ping_requests_total Total number of ping requests received\n"
    "# TYPE master_ping_requests_total counter\n"
    "master_ping_requests_total 1234\n"
    "master_ping_requests_total_other 9\n"
    "master_active_clients{tenant=\"a\"} 7\n"
    "master_active_clients 3 1700000000000\n"
    "master_bad x\n"
    "master_key_count\t42";

START_TEST(test_metric)
{
	double v = -1;
	ck_assert_int_eq(stall_metric(metrics, strlen(metrics), "master_ping_requests_total", &v), 0);
	ck_assert_double_eq(v, 1234);
	ck_assert_int_eq(stall_metric(metrics, strlen(metrics), "master_active_clients", &v), 0);
	ck_assert_double_eq(v, 3);	/* the one without labels, its timestamp left */
	ck_assert_int_eq(stall_metric(metrics, strlen(metrics), "master_key_count", &v), 0);
	ck_assert_double_eq(v, 42);	/* the last line, without a line end */
	ck_assert_int_eq(stall_metric(metrics, strlen(metrics), "master_bad", &v), -1);
	ck_assert_int_eq(stall_metric(metrics, strlen(metrics), "master_ping", &v), -1);
	ck_assert_int_eq(stall_metric("", 0, "x", &v), -1);
	/* every prefix: a value is found only once its line is whole, or it is the last digits so far */
	for (size_t n = 0; n <= strlen(metrics); n++) {
		int rc = stall_metric(metrics, n, "master_ping_requests_total", &v);
		if (n >= strstr(metrics, "1234\n") - metrics + 5)
			ck_assert_int_eq(rc, 0);
		else if (n <= (size_t)(strstr(metrics, "1234\n") - metrics))
			ck_assert_int_eq(rc, -1);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("stall");
	TCase *tc = tcase_create("stall");
	tcase_add_loop_test(tc, test_verdict, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_metric);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
