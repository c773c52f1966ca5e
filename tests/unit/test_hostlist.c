#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "unit.h"

static const struct {
	const char	*expr;
	const char	*hosts;	/* space separated, or the error */
	int		 ok;
} cases[] = {
	{ "localhost", "localhost", 1 },
	{ "gpu-[01-04,07]", "gpu-01 gpu-02 gpu-03 gpu-04 gpu-07", 1 },
	{ "gpu-[01-04,07],head", "gpu-01 gpu-02 gpu-03 gpu-04 gpu-07 head", 1 },
	{ "n[1-3],head", "n1 n2 n3 head", 1 },
	{ "r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02", 1 },
	{ "gb200-[01-03]", "gb200-01 gb200-02 gb200-03", 1 },
	{ "gb200-[04-05]", "gb200-04 gb200-05", 1 },
	{ "n[8-11]", "n8 n9 n10 n11", 1 },
	{ "n[008-010]", "n008 n009 n010", 1 },
	{ "a[1-2]-b", "a1-b a2-b", 1 },
	{ "x[5]", "x5", 1 },
	{ "n1,n2,n[3-4]", "n1 n2 n3 n4", 1 },
	{ "", "empty host list", 0 },
	{ "n1,,n2", "empty host name in \"n1,,n2\"", 0 },
	{ "n[1-2", "unmatched '[' in \"n[1-2\"", 0 },
	{ "n1-2]", "unmatched ']' in \"n1-2]\"", 0 },
	{ "n[1-[2]]", "nested '[' in \"n[1-[2]]\"", 0 },
	{ "n[]", "empty brackets in \"n[]\"", 0 },
	{ "n[a-b]", "bad range \"a-b\" in \"n[a-b]\"", 0 },
	{ "n[1-]", "bad range \"1-\" in \"n[1-]\"", 0 },
	{ "n[3-1]", "range \"3-1\" runs backwards in \"n[3-1]\"", 0 },
	{ "n[0-99999]", "more than 65536 hosts", 0 },
	{ "n1 n2", "white space in host list \"n1 n2\"", 0 },
};

START_TEST(test_expand)
{
	struct strv out = { 0 };
	char err[256] = "", got[1024] = "";
	int rc = hostlist_expand(cases[_i].expr, &out, err, sizeof err);
	ck_assert_int_eq(rc, cases[_i].ok ? 0 : -1);
	if (cases[_i].ok) {
		for (size_t i = 0; i < out.n; i++) {
			strcat(got, i ? " " : "");
			strcat(got, out.v[i]);
		}
		ck_assert_str_eq(got, cases[_i].hosts);
	} else
		ck_assert_str_eq(err, cases[_i].hosts);
	strv_free(&out);
}
END_TEST

START_TEST(test_index)
{
	struct strv out = { 0 };
	char err[64];
	ck_assert_int_eq(hostlist_expand("n[1-3]", &out, err, sizeof err), 0);
	ck_assert_int_eq(hostlist_index(&out, "n3"), 2);
	ck_assert_int_eq(hostlist_index(&out, "n4"), -1);
	strv_free(&out);
}
END_TEST

START_TEST(test_large)
{
	struct strv out = { 0 };
	char err[64];
	ck_assert_int_eq(hostlist_expand("gpu-[0001-1024]", &out, err, sizeof err), 0);
	ck_assert_uint_eq(out.n, 1024);
	ck_assert_str_eq(out.v[1023], "gpu-1024");
	strv_free(&out);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("hostlist");
	TCase *tc = tcase_create("hostlist");
	tcase_add_loop_test(tc, test_expand, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_index);
	tcase_add_test(tc, test_large);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
