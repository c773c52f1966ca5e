/* What one sidecar accepts from another's /gangs: names, generations and failure counts, nothing else. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "gangview.h"
#include "unit.h"

static const struct {
	const char	*body;
	int		 n;		/* -1: refused */
	const char	*err;
} cases[] = {
	{ "{\"node\":\"n1\",\"gangs\":[{\"name\":\"agg_w0\",\"generation\":3,\"failures\":2}]}", 1, NULL },
	{ "{\"node\":\"n1\",\"gangs\":[]}", 0, NULL },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":1,\"failures\":0},{\"name\":\"b\",\"generation\":2,\"failures\":5}]}", 2, NULL },
	{ "{\"gangs\":{}}", -1, "/gangs: gangs is not an array" },
	{ "{}", -1, "/gangs: gangs is not an array" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":0,\"failures\":0}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":1,\"failures\":-1}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":\"1\",\"failures\":0}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"name\":\"\",\"generation\":1,\"failures\":0}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"generation\":1,\"failures\":0}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":2147483648,\"failures\":0}]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[7]}", -1, "/gangs: gangs[0] is not {name, generation >= 1, failures >= 0}" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":2,\"failures\":0,\"starts_in_ms\":-1}]}", -1, "/gangs: gangs[0].starts_in_ms is not an integer 0..2147483647" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":2,\"failures\":0,\"starts_in_ms\":\"5\"}]}", -1, "/gangs: gangs[0].starts_in_ms is not an integer 0..2147483647" },
	{ "{\"gangs\":[{\"name\":\"a\",\"generation\":2,\"failures\":0,\"starts_in_ms\":250,\"state\":\"fatal\"}]}", 1, NULL },
};

START_TEST(test_parse)
{
	struct gang_view v[4];
	char err[256] = "";
	int n = gangview_parse(cases[_i].body, strlen(cases[_i].body), v, 4, err, sizeof err, NULL, 0);
	ck_assert_msg(n == cases[_i].n, "%s: %d (%s)", cases[_i].body, n, err);
	if (n < 0)
		ck_assert_str_eq(err, cases[_i].err);
}
END_TEST

START_TEST(test_values)
{
	struct gang_view v[4];
	char err[256];
	const char *b = cases[2].body;
	ck_assert_int_eq(gangview_parse(b, strlen(b), v, 4, err, sizeof err, NULL, 0), 2);
	ck_assert_ptr_nonnull(gangview_find(v, 2, "b"));
	ck_assert_int_eq(gangview_find(v, 2, "b")->generation, 2);
	ck_assert_int_eq(gangview_find(v, 2, "b")->failures, 5);
	ck_assert_ptr_null(gangview_find(v, 2, "c"));
	ck_assert_int_eq(v[0].starts_in_ms, 0);
	ck_assert_int_eq(v[0].over, GANGVIEW_RUNNING);
	b = cases[14].body;
	ck_assert_int_eq(gangview_parse(b, strlen(b), v, 4, err, sizeof err, NULL, 0), 1);
	ck_assert_int_eq(v[0].starts_in_ms, 250);
	ck_assert_int_eq(v[0].over, GANGVIEW_FATAL);
	b = cases[2].body;
	/* more entries than room: the first ones only */
	ck_assert_int_eq(gangview_parse(b, strlen(b), v, 1, err, sizeof err, NULL, 0), 1);
	ck_assert_str_eq(v[0].name, "a");
	/* cut at every byte: refused, never a crash */
	for (size_t n = 0; n < strlen(b); n++)
		ck_assert_int_eq(gangview_parse(b, n, v, 4, err, sizeof err, NULL, 0), -1);
}
END_TEST

START_TEST(test_etag)
{
	/* the etag comes with the parse; what is not one is no etag, not an error */
	static const struct { const char *body; int n; const char *etag; } t[] = {
		{ "{\"node\":\"n1\",\"etag\":\"00ff12ab34cd56ef\",\"gangs\":[]}", 0, "00ff12ab34cd56ef" },
		{ "{\"gangs\":[]}", 0, "" },
		{ "{\"etag\":\"\",\"gangs\":[]}", 0, "" },
		{ "{\"etag\":\"a&b=c\",\"gangs\":[]}", 0, "" },
		{ "{\"etag\":\"0123456789012345678901234567890123\",\"gangs\":[]}", 0, "" },
		{ "{\"etag\":7,\"gangs\":[]}", 0, "" },
		{ "{\"etag\":\"abc\"}", -1, "" },
		{ "not json", -1, "" },
	};
	struct gang_view v[4];
	char e[32], err[256];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		ck_assert_int_eq(gangview_parse(t[i].body, strlen(t[i].body), v, 4, err, sizeof err, e, sizeof e),
		    t[i].n);
		ck_assert_str_eq(e, t[i].etag);
	}
	/* room for fewer characters than it has: not taken, not cut */
	ck_assert_int_eq(gangview_parse(t[0].body, strlen(t[0].body), v, 4, err, sizeof err, e, 8), 0);
	ck_assert_str_eq(e, "");
	/* cut at every byte: no etag from a body that does not parse */
	for (size_t n = 0; n < strlen(t[0].body); n++) {
		ck_assert_int_eq(gangview_parse(t[0].body, n, v, 4, err, sizeof err, e, sizeof e), -1);
		ck_assert_str_eq(e, "");
	}
}
END_TEST

/* A member's report in its poll: whole, and every prefix either parses or is refused, never a
 * crash; what parses of a prefix ending at a comma is exactly the entries before it. */
static const struct { const char *in; int n; const char *err; } reports[] = {
	{ "", 0, NULL },
	{ "agg_w0:3", 1, NULL },
	{ "agg_w0:3,prefill_w12:0,decode.x-1:2147483647", 3, NULL },
	{ "agg_w0", -1, "entry 1: not NAME:COUNT (a name of 1 to 63 of [A-Za-z0-9_.-])" },
	{ ":3", -1, "entry 1: not NAME:COUNT (a name of 1 to 63 of [A-Za-z0-9_.-])" },
	{ "agg_w0:", -1, "entry 1: no count" },
	{ "agg_w0:-1", -1, "entry 1: no count" },
	{ "agg_w0:2147483648", -1, "entry 1: a count above 2147483647" },
	{ "agg_w0:3x", -1, "entry 1: something after the count" },
	{ "agg_w0:3,", -1, "a comma at the end" },
	{ "agg_w0:3,,b:1", -1, "entry 2: not NAME:COUNT (a name of 1 to 63 of [A-Za-z0-9_.-])" },
	{ "a b:1", -1, "entry 1: not NAME:COUNT (a name of 1 to 63 of [A-Za-z0-9_.-])" },
};

START_TEST(test_report)
{
	struct gang_report r[8];
	char err[200] = "";
	int n = gangview_report_parse(reports[_i].in, strlen(reports[_i].in), r, 8, err, sizeof err);
	ck_assert_int_eq(n, reports[_i].n);
	if (n < 0)
		ck_assert_str_eq(err, reports[_i].err);
	if (_i == 2) {
		ck_assert_str_eq(r[1].name, "prefill_w12");
		ck_assert_int_eq(r[1].failures, 0);
		ck_assert_str_eq(r[2].name, "decode.x-1");
		ck_assert_int_eq(r[2].failures, 2147483647);
	}
	for (size_t cut = 0; cut <= strlen(reports[_i].in); cut++) {
		int m = gangview_report_parse(reports[_i].in, cut, r, 8, err, sizeof err);
		if (reports[_i].n > 0 && cut < strlen(reports[_i].in) && reports[_i].in[cut] == ',')
			ck_assert_int_ge(m, 1);
	}
}
END_TEST

START_TEST(test_report_max)
{
	struct gang_report r[2];
	char err[200];
	ck_assert_int_eq(gangview_report_parse("a:1,b:2,c:3", 11, r, 2, err, sizeof err), -1);
	ck_assert_str_eq(err, "more than 2 gangs");
	ck_assert_int_eq(gangview_report_parse("a:1,b:2", 7, r, 2, err, sizeof err), 2);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("gangview");
	TCase *tc = tcase_create("gangview");
	tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_etag);
	tcase_add_loop_test(tc, test_report, 0, (int)(sizeof reports / sizeof reports[0]));
	tcase_add_test(tc, test_report_max);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
