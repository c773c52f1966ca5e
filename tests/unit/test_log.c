/* Every logged line is one line: control characters escaped, UTF-8 kept, never cut inside an escape. */
#include "config.h"
#include <check.h>
#include <string.h>
#include "log.h"
#include "unit.h"

START_TEST(test_escape)
{
	char out[256];
	log_escape(out, sizeof out, "stop master?target=\n<5>control: stop master by token: ok (200): forged");
	ck_assert_str_eq(out, "stop master?target=\\n<5>control: stop master by token: ok (200): forged");
	ck_assert_ptr_null(strchr(out, '\n'));
	log_escape(out, sizeof out, "a\rb\tc\x1b[31md\x7f\x01");
	ck_assert_str_eq(out, "a\\rb\\tc\\x1b[31md\\x7f\\x01");
	log_escape(out, sizeof out, "n\xc3\xb6" "de \xe2\x80\xa8");	/* UTF-8, U+2028 too: journald splits on LF only */
	ck_assert_str_eq(out, "n\xc3\xb6" "de \xe2\x80\xa8");
	ck_assert_uint_eq(log_escape(out, 1, "abc"), 0);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(log_escape(out, 4, "ab\ncd"), 2);	/* "\n" would not fit whole: cut before it */
	ck_assert_str_eq(out, "ab");
	ck_assert_uint_eq(log_escape(out, 5, "ab\ncd"), 4);
	ck_assert_str_eq(out, "ab\\n");
}
END_TEST

/* Every byte value alone and in a run: no control character survives, and the length is exact. */
START_TEST(test_every_byte)
{
	char in[2], out[8];
	for (int c = 1; c < 256; c++) {
		size_t n;
		in[0] = (char)c;
		in[1] = '\0';
		n = log_escape(out, sizeof out, in);
		ck_assert_uint_eq(n, strlen(out));
		for (size_t i = 0; i < n; i++)
			ck_assert_msg((unsigned char)out[i] >= 0x20 && out[i] != 0x7f, "byte %d left %d", c, out[i]);
		ck_assert_uint_eq(n, c < 0x20 && c != '\n' && c != '\r' && c != '\t' ? 4 : c == 0x7f ? 4 :
		    c < 0x20 ? 2 : 1);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("log");
	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_every_byte);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
