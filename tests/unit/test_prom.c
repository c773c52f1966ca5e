#include "config.h"
#include <limits.h>
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <jansson.h>
#include "prom.h"
#include "unit.h"

START_TEST(test_family_and_samples)
{
	struct buf b = { 0 };
	const char *l[] = { "operation", "probe_rpc", "status", "ok", NULL };
	prom_family(&b, "x_total", "Things\nwith \\ backslash.", "counter");
	prom_sample(&b, "x_total", l, 3);
	prom_sample(&b, "x_total", NULL, 0.25);
	prom_sample(&b, "x_total", NULL, INFINITY);
	prom_sample(&b, "x_total", NULL, 1e20);
	ck_assert_str_eq(b.p, "# HELP x_total Things\\nwith \\\\ backslash.\n# TYPE x_total counter\n"
	    "x_total{operation=\"probe_rpc\",status=\"ok\"} 3\nx_total 0.25\nx_total +Inf\nx_total 1e+20\n");
	buf_free(&b);
}
END_TEST

START_TEST(test_histogram)
{
	static const double bounds[] = { 0.5, 2 };
	struct prom_hist h = { { 0 }, 0, 0 };
	struct buf b = { 0 };
	const char *l[] = { "group", "agg", NULL };
	prom_hist_observe(&h, bounds, 2, 0.25);
	prom_hist_observe(&h, bounds, 2, 1);
	prom_hist_observe(&h, bounds, 2, 5);
	prom_histogram(&b, "t_seconds", l, bounds, 2, &h);
	ck_assert_str_eq(b.p, "t_seconds_bucket{group=\"agg\",le=\"0.5\"} 1\n"
	    "t_seconds_bucket{group=\"agg\",le=\"2\"} 2\nt_seconds_bucket{group=\"agg\",le=\"+Inf\"} 3\n"
	    "t_seconds_sum{group=\"agg\"} 6.25\nt_seconds_count{group=\"agg\"} 3\n");
	buf_free(&b);
	prom_histogram(&b, "u", NULL, bounds, 0, &h);
	ck_assert_str_eq(b.p, "u_bucket{le=\"+Inf\"} 3\nu_sum 6.25\nu_count 3\n");
	buf_free(&b);
}
END_TEST

START_TEST(test_label_escaping)
{
	struct buf b = { 0 };
	const char *l[] = { "route", "a\"b\\c\nd", NULL };
	prom_sample(&b, "m", l, 1);
	ck_assert_str_eq(b.p, "m{route=\"a\\\"b\\\\c\\nd\"} 1\n");
	buf_free(&b);
}
END_TEST

START_TEST(test_buf)
{
	struct buf b = { 0 };
	size_t n;
	char *p;
	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%04d,", i);
	ck_assert_uint_eq(b.len, 5000);
	p = buf_take(&b, &n);
	ck_assert_uint_eq(n, 5000);
	ck_assert_int_eq(p[4999], ',');
	ck_assert_ptr_null(b.p);
	free(p);
}
END_TEST

START_TEST(test_json_string)
{
	struct buf b = { 0 };
	json_t *j;
	buf_json_string(&b, "plain \"quoted\" back\\slash\nnew\ttab\x01" "ctl caf\xc3\xa9");
	ck_assert_str_eq(b.p, "\"plain \\\"quoted\\\" back\\\\slash\\nnew\\ttab\\u0001ctl caf\xc3\xa9\"");
	j = json_loads(b.p, JSON_DECODE_ANY, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(j), "plain \"quoted\" back\\slash\nnew\ttab\x01" "ctl caf\xc3\xa9");
	json_decref(j);
	buf_free(&b);
}
END_TEST

/* The bytewise rule the word-at-a-time writer must match. */
static void
json_string_reference(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else
			buf_add(b, s, 1);
	}
	buf_add(b, "\"", 1);
}

/* Appended after what a buffer holds already, with only as much room as that took: an escape
 * has to make more on the way (the sanitizers see a write past it). */
static void
json_string_check(const char *s, const char *what)
{
	struct buf got = { 0 }, want = { 0 };
	buf_add(&got, "[", 1);
	buf_add(&want, "[", 1);
	buf_json_string(&got, s);
	json_string_reference(&want, s);
	if (strcmp(got.p, want.p) != 0)
		ck_abort_msg("%s: %s, not %s", what, got.p, want.p);
	buf_free(&got);
	buf_free(&want);
}

/* Every byte value at every offset of strings of 1 to 24 bytes, two of them together, and strings
 * of nothing but bytes to escape. */
START_TEST(test_json_string_every_byte)
{
	char s[32], what[64];
	for (size_t len = 1; len <= 24; len++) {
		for (size_t at = 0; at < len; at++)
			for (int c = 1; c < 256; c++) {
				memset(s, 'a', len);
				s[len] = '\0';
				s[at] = (char)c;
				s[len - 1 - at] = (char)(c == 255 ? 1 : c + 1);
				snprintf(what, sizeof what, "byte 0x%02x at %zu of %zu", c, at, len);
				json_string_check(s, what);
			}
		for (int c = 1; c < 0x20; c++) {
			memset(s, c, len);
			s[len] = '\0';
			snprintf(what, sizeof what, "%zu bytes 0x%02x", len, c);
			json_string_check(s, what);
		}
	}
}
END_TEST

static void
long_str_check(long x)
{
	char got[LONG_STR_MAX], want[LONG_STR_MAX];
	snprintf(want, sizeof want, "%ld", x);
	if (long_str(x, got) != strlen(want) || strcmp(got, want) != 0)
		ck_abort_msg("%ld written as %s", x, got);
}

START_TEST(test_long_str)
{
	const long v[] = { 0, 1, -1, 9, 10, 99, 100, 65535, -65536, 1234567890L, LONG_MAX, LONG_MIN };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char got[LONG_STR_MAX], want[LONG_STR_MAX];
		struct buf b = { 0 };
		snprintf(want, sizeof want, "%ld", v[i]);
		ck_assert_uint_eq(long_str(v[i], got), strlen(want));
		ck_assert_str_eq(got, want);
		buf_long(&b, v[i]);
		ck_assert_str_eq(b.p, want);
		buf_free(&b);
	}
	/* Every number up to 200,000 and either side of each power of ten, both signs. */
	for (long x = 0; x <= 200000; x++)
		long_str_check(x);
	for (long p = 1; p <= LONG_MAX / 10; p *= 10)
		for (long d = -1; d <= 1; d++) {
			long_str_check(p * 10 + d);
			long_str_check(-(p * 10 + d));
		}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("prom");
	TCase *tc = tcase_create("prom");
	tcase_add_test(tc, test_family_and_samples);
	tcase_add_test(tc, test_label_escaping);
	tcase_add_test(tc, test_histogram);
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_json_string);
	tcase_add_test(tc, test_json_string_every_byte);
	tcase_add_test(tc, test_long_str);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
