/* What a reload changes: the paths that differ between two configuration files, and which of them
 * a running sidecar applies (the master's and the worker groups' command lines and environments). */
#include "config.h"
#include <check.h>
#include <string.h>
#include "cfgdiff.h"
#include "unit.h"

static const char *base = "{ \"job\": { \"id\": \"1\", \"nodes\": \"n[1-2]\" },"
    " \"master\": { \"command\": [\"m\"], \"extra_args\": [\"--a=1\"], \"env\": { \"X\": \"1\" } },"
    " \"workers\": { \"groups\": [ { \"role\": \"prefill\", \"count\": 1, \"command\": [\"p\"] },"
    " { \"role\": \"decode\", \"count\": 1, \"command\": [\"d\"], \"env\": { \"Y\": \"2\" } } ] } }";

/* the paths of base against text, joined with spaces */
static void
diff(const char *text, char *out, size_t len, size_t *n)
{
	json_t *a = json_loads(base, 0, NULL), *b = json_loads(text, 0, NULL);
	struct strv p = { 0 };
	ck_assert_ptr_nonnull(b);
	*n = cfgdiff(a, b, &p, 3);
	out[0] = '\0';
	for (size_t i = 0; i < p.n; i++) {
		strncat(out, p.v[i], len - strlen(out) - 2);
		strcat(out, " ");
	}
	strv_free(&p);
	json_decref(a);
	json_decref(b);
}

START_TEST(test_same)
{
	char out[512];
	size_t n;
	diff(base, out, sizeof out, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_paths)
{
	char out[512];
	size_t n;
	/* one group's command, the master's env key, a new top-level key */
	diff("{ \"job\": { \"id\": \"1\", \"nodes\": \"n[1-2]\" },"
	    " \"master\": { \"command\": [\"m\"], \"extra_args\": [\"--a=1\"], \"env\": { \"X\": \"2\" } },"
	    " \"workers\": { \"groups\": [ { \"role\": \"prefill\", \"count\": 1, \"command\": [\"p\"] },"
	    " { \"role\": \"decode\", \"count\": 1, \"command\": [\"d\", \"--x\"], \"env\": { \"Y\": \"2\" } } ] },"
	    " \"log\": { \"keep\": 3 } }", out, sizeof out, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out, "master.env.X workers.groups[1].command log ");
	/* a group more: the array whole; a key gone */
	diff("{ \"job\": { \"id\": \"1\" }, \"master\": { \"command\": [\"m\"], \"extra_args\": [\"--a=1\"], \"env\": { \"X\": \"1\" } },"
	    " \"workers\": { \"groups\": [] } }", out, sizeof out, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(out, "job.nodes workers.groups ");
	/* more than max: counted, the first max kept */
	diff("{}", out, sizeof out, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out, "job master workers ");
	diff("[1]", out, sizeof out, &n);
	ck_assert_str_eq(out, "(the whole file) ");
}
END_TEST

START_TEST(test_live)
{
	ck_assert(cfgdiff_live("master.command"));
	ck_assert(cfgdiff_live("master.extra_args"));
	ck_assert(cfgdiff_live("master.env"));
	ck_assert(cfgdiff_live("master.env.X"));
	ck_assert(cfgdiff_live("workers.groups[0].command"));
	ck_assert(cfgdiff_live("workers.groups[12].env"));
	ck_assert(cfgdiff_live("workers.groups[12].env.HF_HOME"));
	ck_assert(!cfgdiff_live("master.commandx"));
	ck_assert(!cfgdiff_live("master.rpc_port"));
	ck_assert(!cfgdiff_live("workers.groups[0].count"));
	ck_assert(!cfgdiff_live("workers.groups[].command"));
	ck_assert(!cfgdiff_live("workers.groups[x].command"));
	ck_assert(!cfgdiff_live("workers.groups"));
	ck_assert(!cfgdiff_live("workers.groups[0].commandx"));
	ck_assert(!cfgdiff_live("admin.listen"));
	ck_assert(!cfgdiff_live(""));
}
END_TEST

/* what decides whether a process restarts on a reload: its argv and environment, string by string */
START_TEST(test_strv_eq)
{
	char *a[] = { "m", "--x=1", NULL }, *b[] = { "m", "--x=1", NULL }, *c[] = { "m", "--x=2", NULL };
	char *d[] = { "m", NULL }, *e[] = { NULL };
	ck_assert(strv_eq(a, b));
	ck_assert(!strv_eq(a, c));
	ck_assert(!strv_eq(a, d));
	ck_assert(!strv_eq(d, a));
	ck_assert(strv_eq(e, e));
	ck_assert(!strv_eq(e, NULL));
	ck_assert(strv_eq(NULL, NULL));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cfgdiff");
	TCase *tc = tcase_create("cfgdiff");
	tcase_add_test(tc, test_same);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_live);
	tcase_add_test(tc, test_strv_eq);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
