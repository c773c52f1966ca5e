#include "config.h"
#include <check.h>
#include <stdint.h>
#include "sizes.h"
#include "unit.h"

static const struct {
	const char	*in;
	uint64_t	 bytes;
	const char	*err;	/* NULL when it parses */
} cases[] = {
	{ "4gb", 4294967296ULL, NULL },
	{ "4GB", 4294967296ULL, NULL },
	{ "1.5g", 1610612736ULL, NULL },
	{ "512MB", 536870912ULL, NULL },
	{ "100", 100, NULL },
	{ " 2 kb ", 2048, NULL },
	{ "1t", 1099511627776ULL, NULL },
	{ "3b", 3, NULL },
	{ "0", 0, NULL },
	{ "2147483648", 2147483648ULL, NULL },
	{ "1e3", 1000, NULL },
	{ "0.5k", 512, NULL },
	{ "4GBB", 0, "invalid size \"4GBB\"" },
	{ "", 0, "invalid size \"\"" },
	{ "gb", 0, "invalid size \"gb\"" },
	{ "0x10", 0, "invalid size \"0x10\"" },
	{ "inf", 0, "invalid size \"inf\"" },
	{ "nan", 0, "invalid size \"nan\"" },
	{ "-1GB", 0, "size \"-1GB\" is negative" },
	{ "1 2", 0, "invalid size \"1 2\"" },
	{ "99999999999tb", 0, "size \"99999999999tb\" is too large" },
};

START_TEST(test_parse)
{
	uint64_t n = 0;
	char err[128] = "";
	int rc = size_parse(cases[_i].in, &n, err, sizeof err);
	if (cases[_i].err == NULL) {
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_eq(n, cases[_i].bytes);
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_str_eq(err, cases[_i].err);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sizes");
	TCase *tc = tcase_create("sizes");
	tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof cases / sizeof cases[0]));
	suite_add_tcase(s, tc);
	return unit_run(s);
}
