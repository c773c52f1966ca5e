/* A drain of this node's segments: which are its own, the request, the master's answers (taken
 * from mooncake_master 0.3.12.post1). */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "drain.h"
#include "unit.h"

static const char segments[] = "127.0.0.2:12641\n127.0.0.3:13441\n127.0.0.20:1\n127.0.0.2\n[::1]:7\n\n";

START_TEST(test_segments)
{
	struct strv v = { 0 };
	drain_segments(segments, strlen(segments), "127.0.0.2", &v);
	ck_assert_uint_eq(v.n, 2);	/* not 127.0.0.20 */
	ck_assert_str_eq(v.v[0], "127.0.0.2:12641");
	ck_assert_str_eq(v.v[1], "127.0.0.2");
	strv_free(&v);
	drain_segments(segments, strlen(segments), "::1", &v);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.v[0], "[::1]:7");
	strv_free(&v);
	drain_segments("a:1\r\nb:2", 8, "b", &v);	/* CRLF, no final newline */
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.v[0], "b:2");
	strv_free(&v);
	drain_segments("", 0, "a", &v);
	ck_assert_uint_eq(v.n, 0);
	for (size_t n = 0; n <= strlen(segments); n++) {	/* every cut: whole names or a prefix, no crash */
		drain_segments(segments, n, "127.0.0.2", &v);
		ck_assert_uint_le(v.n, 2);
		strv_free(&v);
	}
}
END_TEST

START_TEST(test_request)
{
	struct strv v = { 0 };
	char *r;
	strv_push(&v, "127.0.0.2:12641");
	strv_push(&v, "a\"b");
	r = drain_request(&v);
	ck_assert_str_eq(r, "{\"segments\":[\"127.0.0.2:12641\",\"a\\\"b\"]}");
	free(r);
	strv_free(&v);
}
END_TEST

static const char created[] = "{\"success\":true,\"job_id\":\"10466372189216631234-11609604946851513274\","
    "\"status\":\"CREATED\",\"error_code\":0,\"error_message\":\"\"}";
static const char done[] = "{\"success\":true,\"job_id\":\"10466372189216631234-11609604946851513274\",\"type\":0,"
    "\"type_name\":\"DRAIN\",\"status\":3,\"status_name\":\"SUCCEEDED\",\"created_at_ms_epoch\":1796299529468,"
    "\"last_updated_at_ms_epoch\":1796299532955,\"segments\":[\"127.0.0.2:12641\"],\"succeeded_units\":4,"
    "\"failed_units\":0,\"blocked_units\":0,\"active_units\":0,\"migrated_bytes\":13647872,"
    "\"message\":\"Drain job finished successfully\",\"error_code\":0,\"error_message\":\"\"}";
static const char refused[] = "{\"success\":false,\"error_code\":-704,\"error_message\":\"SEGMENT_NOT_FOUND\"}";

START_TEST(test_answers)
{
	struct drain_job j;
	char err[256];
	ck_assert_int_eq(drain_job_parse(created, strlen(created), &j, err, sizeof err), 0);
	ck_assert_str_eq(j.id, "10466372189216631234-11609604946851513274");
	ck_assert_str_eq(j.status, "CREATED");
	ck_assert(!drain_job_ended(&j));
	ck_assert_int_eq(drain_job_parse(done, strlen(done), &j, err, sizeof err), 0);
	ck_assert_str_eq(j.status, "SUCCEEDED");
	ck_assert(drain_job_ended(&j));
	ck_assert_int_eq(j.succeeded, 4);
	ck_assert_int_eq(j.bytes, 13647872);
	ck_assert_str_eq(j.message, "Drain job finished successfully");
	ck_assert_int_eq(drain_job_parse(refused, strlen(refused), &j, err, sizeof err), -1);
	ck_assert_str_eq(err, "the master refused: SEGMENT_NOT_FOUND (error_code -704)");
	ck_assert_int_eq(drain_job_parse("{\"success\":true}", 16, &j, err, sizeof err), -1);
	ck_assert_str_eq(err, "the master's answer has no job_id");
	ck_assert_int_eq(drain_job_parse("[1]", 3, &j, err, sizeof err), -1);
	ck_assert_str_eq(err, "the master's answer is not a JSON object");
	ck_assert_int_eq(drain_job_parse("Not Found", 9, &j, err, sizeof err), -1);
	for (size_t n = 0; n < strlen(done); n++)	/* every cut of a whole answer is refused */
		ck_assert_int_eq(drain_job_parse(done, n, &j, err, sizeof err), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("drain");
	TCase *tc = tcase_create("drain");
	tcase_add_test(tc, test_segments);
	tcase_add_test(tc, test_request);
	tcase_add_test(tc, test_answers);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
