/* etcd's JSON gateway as the sidecar speaks it: requests written, answers read (the answers below are
 * etcd 3.4.23's own, taken from a server on loopback); base64 both ways; every prefix of an answer
 * refused, never taken for another. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etcdkv.h"
#include "unit.h"

static const char range_ok[] = "{\"header\":{\"cluster_id\":\"12553176280801647608\",\"member_id\":"
    "\"18199438078966395103\",\"revision\":\"5\",\"raft_term\":\"2\"},\"kvs\":[{\"key\":"
    "\"bW9vbmNha2Utc3RvcmUvbW9vbmNha2VfY2x1c3Rlci9tYXN0ZXJfdmlldw==\",\"create_revision\":\"2\","
    "\"mod_revision\":\"5\",\"version\":\"2\",\"value\":\"MTI3LjAuMC4xOjI1NzI2\",\"lease\":\"8133397926972371976\"}],"
    "\"count\":\"1\"}";
static const char range_none[] = "{\"header\":{\"cluster_id\":\"12553176280801647608\",\"member_id\":"
    "\"18199438078966395103\",\"revision\":\"9\",\"raft_term\":\"2\"}}";
static const char revoke_ok[] = "{\"header\":{\"cluster_id\":\"12553176280801647608\",\"member_id\":"
    "\"18199438078966395103\",\"revision\":\"6\",\"raft_term\":\"2\"}}";
static const char revoke_none[] = "{\"error\":\"etcdserver: requested lease not found\",\"message\":"
    "\"etcdserver: requested lease not found\",\"code\":5}";
static const char bad_b64[] = "{\"error\":\"illegal base64 data at input byte 0\",\"message\":"
    "\"illegal base64 data at input byte 0\",\"code\":3}";

START_TEST(test_requests)
{
	char out[256];
	ck_assert_uint_eq(etcdkv_range_request("mooncake-store/mooncake_cluster/master_view", out, sizeof out), 70);
	ck_assert_str_eq(out, "{\"key\":\"bW9vbmNha2Utc3RvcmUvbW9vbmNha2VfY2x1c3Rlci9tYXN0ZXJfdmlldw==\"}");
	ck_assert_uint_eq(etcdkv_range_request("mooncake-store/mooncake_cluster/master_view", out, 70), 0);
	ck_assert_uint_gt(etcdkv_revoke_request("8133397926972371976", out, sizeof out), 0);
	ck_assert_str_eq(out, "{\"ID\":\"8133397926972371976\"}");
	ck_assert_uint_eq(etcdkv_revoke_request("", out, sizeof out), 0);
	ck_assert_uint_eq(etcdkv_revoke_request("12\"}", out, sizeof out), 0);
	ck_assert_uint_eq(etcdkv_revoke_request("0123", out, sizeof out), 0);
	ck_assert_uint_eq(etcdkv_revoke_request("123456789012345678901234", out, sizeof out), 0);
}
END_TEST

START_TEST(test_answers)
{
	char v[ETCDKV_VALUE_MAX + 1], l[ETCDKV_LEASE_MAX], err[256];
	ck_assert_int_eq(etcdkv_range_answer(200, range_ok, strlen(range_ok), v, sizeof v, l, sizeof l, err, sizeof err), 1);
	ck_assert_str_eq(v, "127.0.0.1:25726");
	ck_assert_str_eq(l, "8133397926972371976");
	ck_assert_int_eq(etcdkv_range_answer(200, range_none, strlen(range_none), v, sizeof v, l, sizeof l, err, sizeof err), 0);
	ck_assert_int_eq(etcdkv_range_answer(400, bad_b64, strlen(bad_b64), v, sizeof v, l, sizeof l, err, sizeof err), -1);
	ck_assert_str_eq(err, "etcd: illegal base64 data at input byte 0 (code 3)");
	ck_assert_int_eq(etcdkv_range_answer(503, "", 0, v, sizeof v, l, sizeof l, err, sizeof err), -1);
	ck_assert_str_eq(err, "etcd answered HTTP 503 with no JSON");
	ck_assert_int_eq(etcdkv_revoke_answer(200, revoke_ok, strlen(revoke_ok), err, sizeof err), 1);
	ck_assert_int_eq(etcdkv_revoke_answer(404, revoke_none, strlen(revoke_none), err, sizeof err), 0);
	ck_assert_int_eq(etcdkv_revoke_answer(404, "{\"code\":5,\"message\":\"etcdserver: requested lease not found\"}", 61,
	    err, sizeof err), 0);	/* etcd 3.5's form */
	ck_assert_int_eq(etcdkv_revoke_answer(500, "{\"code\":14,\"message\":\"etcdserver: request timed out\"}", 53,
	    err, sizeof err), -1);
	ck_assert_str_eq(err, "etcd: etcdserver: request timed out (code 14)");
	ck_assert_int_eq(etcdkv_revoke_answer(502, "<html>", 6, err, sizeof err), -1);
}
END_TEST

/* What a master writes while it warms up (0.3.13+), values that are not strings, leases that are not
 * decimal, a value too long or with a NUL: each read as it is or refused, never cut. */
START_TEST(test_odd_values)
{
	char v[ETCDKV_VALUE_MAX + 1], l[ETCDKV_LEASE_MAX], err[256], body[2048], enc[1400];
	static const struct { const char *kv; int rc; const char *value; } cases[] = {
		{ "{\"value\":\"X19tb29uY2FrZV9zZXJ2aWNlX3dhcm1pbmdfXzo0Mg==\",\"lease\":\"42\"}", 1,
		  ETCDKV_WARMING "42" },
		{ "{\"key\":\"YQ==\"}", 1, "" },			/* no value, no lease */
		{ "{\"value\":7}", -1, NULL },
		{ "{\"value\":\"YQ==\",\"lease\":42}", -1, NULL },
		{ "{\"value\":\"YQ==\",\"lease\":\"-1\"}", -1, NULL },
		{ "{\"value\":\"YQBi\"}", -1, NULL },			/* "a\0b" */
		{ "{\"value\":\"YQ\"}", -1, NULL },
		{ "[]", -1, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(body, sizeof body, "{\"kvs\":[%s]}", cases[i].kv);
		ck_assert_msg(etcdkv_range_answer(200, body, strlen(body), v, sizeof v, l, sizeof l, err, sizeof err) ==
		    cases[i].rc, "%s", body);
		if (cases[i].value != NULL)
			ck_assert_str_eq(v, cases[i].value);
	}
	memset(body, 'a', ETCDKV_VALUE_MAX + 1);
	etcdkv_b64_encode(body, ETCDKV_VALUE_MAX + 1, enc, sizeof enc);
	snprintf(body, sizeof body, "{\"kvs\":[{\"value\":\"%s\"}]}", enc);
	ck_assert_int_eq(etcdkv_range_answer(200, body, strlen(body), v, sizeof v, l, sizeof l, err, sizeof err), -1);
	ck_assert_int_eq(etcdkv_range_answer(200, range_ok, strlen(range_ok), v, 8, l, sizeof l, err, sizeof err), -1);
}
END_TEST

START_TEST(test_prefixes)
{
	char v[ETCDKV_VALUE_MAX + 1], l[ETCDKV_LEASE_MAX], err[256];
	const char *all[] = { range_ok, range_none, revoke_ok, revoke_none };
	for (size_t a = 0; a < 4; a++)
		for (size_t cut = 0; cut < strlen(all[a]); cut++) {
			char *p = malloc(cut + 1);
			memcpy(p, all[a], cut);
			ck_assert_int_eq(etcdkv_range_answer(200, p, cut, v, sizeof v, l, sizeof l, err, sizeof err), -1);
			ck_assert_int_eq(etcdkv_revoke_answer(200, p, cut, err, sizeof err), -1);
			free(p);
		}
}
END_TEST

START_TEST(test_base64)
{
	char in[64], enc[128], dec[64];
	srand(7);
	for (size_t n = 0; n < sizeof in; n++) {
		for (size_t i = 0; i < n; i++)
			in[i] = (char)(1 + rand() % 255);
		ck_assert_uint_eq(etcdkv_b64_encode(in, n, enc, sizeof enc), (n + 2) / 3 * 4);
		ck_assert_int_eq(etcdkv_b64_decode(enc, strlen(enc), dec, sizeof dec + 1), (long)n);
		ck_assert(memcmp(in, dec, n) == 0);
	}
	ck_assert_int_eq(etcdkv_b64_decode("QQ==", 4, dec, sizeof dec), 1);
	ck_assert_str_eq(dec, "A");
	ck_assert_int_eq(etcdkv_b64_decode("Q=Q=", 4, dec, sizeof dec), -1);
	ck_assert_int_eq(etcdkv_b64_decode("QQ=A", 4, dec, sizeof dec), -1);
	ck_assert_int_eq(etcdkv_b64_decode("QUJD", 4, dec, 3), -1);	/* "ABC" and its NUL need 4 */
	ck_assert_int_eq(etcdkv_b64_decode("Q Q=", 4, dec, sizeof dec), -1);
	ck_assert_uint_eq(etcdkv_b64_encode("abc", 3, enc, 4), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("etcdkv");
	TCase *tc = tcase_create("etcdkv");
	tcase_add_test(tc, test_requests);
	tcase_add_test(tc, test_answers);
	tcase_add_test(tc, test_odd_values);
	tcase_add_test(tc, test_prefixes);
	tcase_add_test(tc, test_base64);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
