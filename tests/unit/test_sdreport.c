/* A node's scrape targets as it reports them to the head: rendered and read back; bad reports
 * refused whole, at every cut. */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "query.h"
#include "sdreport.h"
#include "unit.h"
#include "xalloc.h"

static const struct sd_target two[] = {
	{ "10.0.0.2:9103", "sidecar", "", "", -1, -1, -1, 0 },
	{ "10.0.0.2:6132", "agg", "agg_w0_r1", "agg_w0", 2, 0, 1, 3 },
};

START_TEST(test_roundtrip)
{
	struct buf b = { 0 };
	struct sd_target got[4];
	size_t n;
	char err[200];
	sdreport_render(two, 2, &b);
	ck_assert_str_eq(b.p, "10.0.0.2:9103~sidecar~-1~~-1~-1~0~,10.0.0.2:6132~agg~2~agg_w0_r1~0~1~3~agg_w0");
	ck_assert_int_eq(sdreport_parse(b.p, got, 4, &n, err, sizeof err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(memcmp(&got[1], &two[1], sizeof two[1]) == 0 || (strcmp(got[1].worker, "agg_w0_r1") == 0 &&
	    got[1].dp_rank == 1 && got[1].generation == 3 && strcmp(got[1].gang, "agg_w0") == 0));
	ck_assert_int_eq(got[1].group_index, 2);
	ck_assert_int_eq(sdreport_parse(b.p, got, 1, &n, err, sizeof err), -1);
	ck_assert_str_eq(err, "more than 1 targets");
	for (size_t cut = 1; cut < b.len; cut++) {	/* every prefix: whole entries, or refused */
		char s[200];
		memcpy(s, b.p, cut);
		s[cut] = '\0';
		if (sdreport_parse(s, got, 4, &n, err, sizeof err) == 0)
			ck_assert_uint_le(n, 2);
	}
	ck_assert_int_eq(sdreport_parse("", got, 4, &n, err, sizeof err), 0);
	ck_assert_uint_eq(n, 0);
	buf_free(&b);
}
END_TEST

START_TEST(test_refused)
{
	static const char *const bad[] = {
		"10.0.0.2:1~agg~0~w~0~1~3",		/* a field missing */
		"10.0.0.2:1~agg~0~w~0~1~3~g~x",		/* one too many */
		"10.0.0.2:1~agg~0~w<script>~0~1~3~g",	/* a character outside the set */
		"10.0.0.2:1~agg~0~w~zero~1~3~g",
		"10.0.0.2:1~agg~0~w~0~1~-3~g",
		"10.0.0.2~agg~0~w~0~1~3~g",		/* no port */
		"~agg~0~w~0~1~3~g",
		"10.0.0.2:1~~0~w~0~1~3~g",
		"10.0.0.2:1~agg~0~w~0~1~3~g,",
		"10.0.0.2:1~agg~0~w~0~1~3~g,,",
		"10.0.0.2:1~agg~0~w~0~1~99999999999~g",
		"10.0.0.2:1~agg~x~w~0~1~3~g",
	};
	struct sd_target got[4];
	size_t n;
	char err[200];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(sdreport_parse(bad[i], got, 4, &n, err, sizeof err) == -1, "accepted %s", bad[i]);
}
END_TEST

/* As it travels in the poll's query: escaped, and read back by the head as it was. */
START_TEST(test_in_a_query)
{
	struct buf b = { 0 };
	char *s;
	query_escape(&b, "[::1]:6100~agg~a b&c=d%~0~1~2~g,x");
	ck_assert_str_eq(b.p, "%5B::1%5D:6100~agg~a%20b%26c%3Dd%25~0~1~2~g,x");
	s = xstrdup(b.p);
	query_unescape(s);
	ck_assert_str_eq(s, "[::1]:6100~agg~a b&c=d%~0~1~2~g,x");
	free(s);
	buf_free(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sdreport");
	TCase *tc = tcase_create("sdreport");
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_in_a_query);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
