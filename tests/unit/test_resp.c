/* Redis replies as an HA backend sends them (RESP2), whole and split at every byte, and commands. */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "resp.h"
#include "unit.h"

static const struct {
	const char	*in;
	long		 take;		/* -1: refused; else the bytes of the first reply */
	int		 type;
	const char	*s;		/* simple, error, bulk */
	long long	 integer;
	size_t		 nelem;
} cases[] = {
	{ "+OK\r\n", 5, RESP_SIMPLE, "OK", 0, 0 },
	{ "-ERR wrong number of arguments\r\n", 32, RESP_ERROR, "ERR wrong number of arguments", 0, 0 },
	{ "-NOAUTH Authentication required.\r\n", 34, RESP_ERROR, "NOAUTH Authentication required.", 0, 0 },
	{ ":1\r\n", 4, RESP_INTEGER, NULL, 1, 0 },
	{ ":0\r\n:1\r\n", 4, RESP_INTEGER, NULL, 0, 0 },
	{ ":-1\r\n", 5, RESP_INTEGER, NULL, -1, 0 },
	{ ":9223372036854775807\r\n", 22, RESP_INTEGER, NULL, 9223372036854775807LL, 0 },
	{ ":9223372036854775808\r\n", -1, 0, NULL, 0, 0 },
	{ ":-9223372036854775807\r\n", 23, RESP_INTEGER, NULL, -9223372036854775807LL, 0 },
	{ ":12345678901234567890\r\n", -1, 0, NULL, 0, 0 },
	{ ":\r\n", -1, 0, NULL, 0, 0 },
	{ ":-\r\n", -1, 0, NULL, 0, 0 },
	{ ":1x\r\n", -1, 0, NULL, 0, 0 },
	{ "$15\r\n127.0.0.1:50051\r\n", 22, RESP_BULK, "127.0.0.1:50051", 0, 0 },
	{ "$0\r\n\r\n", 6, RESP_BULK, "", 0, 0 },
	{ "$4\r\na\r\nb\r\n", 10, RESP_BULK, "a\r\nb", 0, 0 },
	{ "$-1\r\n", 5, RESP_NIL, NULL, 0, 0 },
	{ "$-2\r\n", -1, 0, NULL, 0, 0 },
	{ "$3\r\nabcd\r\n", -1, 0, NULL, 0, 0 },
	{ "$3\r\nabc\n\r", -1, 0, NULL, 0, 0 },
	{ "$536870913\r\n", -1, 0, NULL, 0, 0 },
	{ "*2\r\n$15\r\n127.0.0.1:50051\r\n$36\r\n1b4e28ba-2fa1-11d2-883f-0016d3cca427\r\n", 69, RESP_ARRAY, NULL, 2, 2 },
	{ "*2\r\n$-1\r\n$-1\r\n", 14, RESP_ARRAY, NULL, 2, 2 },
	{ "*0\r\n", 4, RESP_ARRAY, NULL, 0, 0 },
	{ "*-1\r\n", 5, RESP_NIL, NULL, -1, 0 },
	{ "*-2\r\n", -1, 0, NULL, 0, 0 },
	{ "*2\r\n*1\r\n:1\r\n+x\r\n", 16, RESP_ARRAY, NULL, 2, 2 },
	{ "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", -1, 0, NULL, 0, 0 },
	{ "*10\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n:6\r\n:7\r\n:8\r\n:9\r\n:10\r\n", 46, RESP_ARRAY, NULL, 10, 8 },
	{ "*1\r\n!x\r\n", -1, 0, NULL, 0, 0 },
	{ "+O\rK\r\n", -1, 0, NULL, 0, 0 },
	{ "+O\nK\r\n", -1, 0, NULL, 0, 0 },
	{ "HTTP/1.1 400 Bad Request\r\n", -1, 0, NULL, 0, 0 },
	{ "\r\n", -1, 0, NULL, 0, 0 },
};

START_TEST(test_whole_and_split)
{
	const char *in = cases[_i].in;
	size_t n = strlen(in);
	struct resp_reply r;
	char err[200];
	long k = resp_parse(in, n, RESP_BULK_MAX, &r, err, sizeof err);
	if (cases[_i].take < 0) {
		ck_assert_msg(k == -1, "%s: took %ld", in, k);
		ck_assert_msg(strstr(err, "reply type '") != NULL, "%s: %s", in, err);
	} else {
		ck_assert_int_eq(k, cases[_i].take);
		ck_assert_int_eq(r.type, cases[_i].type);
		if (cases[_i].s != NULL) {
			ck_assert_uint_eq(r.len, strlen(cases[_i].s));
			ck_assert(memcmp(r.s, cases[_i].s, r.len) == 0);
		}
		if (r.type == RESP_INTEGER || r.type == RESP_ARRAY || r.type == RESP_NIL)
			ck_assert(r.integer == cases[_i].integer);
		ck_assert_uint_eq(r.nelem, cases[_i].nelem);
	}
	/* every prefix short of the reply: more must arrive, or (for a refused one) refused already */
	for (size_t cut = 0; cut < n; cut++) {
		char *p = malloc(cut + 1);
		memcpy(p, in, cut);
		k = resp_parse(p, cut, RESP_BULK_MAX, &r, err, sizeof err);
		if (cases[_i].take >= 0 && (long)cut < cases[_i].take)
			ck_assert_msg(k == 0 && r.type == 0, "%s cut at %zu: %ld", in, cut, k);
		else if (cases[_i].take < 0)
			ck_assert_msg(k == 0 || k == -1, "%s cut at %zu: %ld", in, cut, k);
		free(p);
	}
}
END_TEST

/* A reply longer than what the question can get back is refused, at the length line of a bulk
 * string (before its bytes arrive), or once max bytes have come without a whole reply: whole and
 * split at every byte. */
static const struct {
	const char	*in;
	size_t		 max;
	long		 take;		/* -1: refused once this many bytes are in (at), else taken */
	size_t		 at;
} capped[] = {
	{ "$536870912\r\n", 4096, -1, 12 },
	{ "*2\r\n$3\r\nabc\r\n$5000\r\n", 4096, -1, 20 },
	{ "$10\r\n0123456789\r\n", 17, 17, 0 },
	{ "$10\r\n0123456789\r\n", 16, -1, 17 },
	{ "+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 32, -1, 33 },
	{ ":12345\r\n", 8, 8, 0 },
};

START_TEST(test_capped)
{
	const char *in = capped[_i].in;
	size_t n = strlen(in), max = capped[_i].max;
	struct resp_reply r;
	char err[200];
	for (size_t cut = 0; cut <= n; cut++) {
		long k = resp_parse(in, cut, max, &r, err, sizeof err);
		if (capped[_i].take >= 0)
			ck_assert_msg(k == (cut == n ? capped[_i].take : 0), "%s cut at %zu: %ld", in, cut, k);
		else if (cut >= capped[_i].at) {
			ck_assert_msg(k == -1, "%s cut at %zu: %ld", in, cut, k);
			ck_assert_msg(strstr(err, "more than") != NULL, "%s: %s", in, err);
		} else
			ck_assert_msg(k == 0, "%s cut at %zu: %ld", in, cut, k);
	}
}
END_TEST

START_TEST(test_elements)
{
	const char *in = "*3\r\n$15\r\n127.0.0.1:50051\r\n$-1\r\n:7\r\n";
	struct resp_reply r;
	char err[200];
	ck_assert_int_eq(resp_parse(in, strlen(in), RESP_BULK_MAX, &r, err, sizeof err), (long)strlen(in));
	ck_assert(resp_elem_is(&r, 0, "127.0.0.1:50051"));
	ck_assert(!resp_elem_is(&r, 0, "127.0.0.1:5005"));
	ck_assert(!resp_elem_is(&r, 1, ""));
	ck_assert_int_eq(r.elem[1].type, RESP_NIL);
	ck_assert_int_eq(r.elem[2].type, RESP_INTEGER);
	ck_assert(r.elem[2].integer == 7);
	ck_assert(!resp_elem_is(&r, 3, "x"));
	ck_assert(!resp_elem_is(&r, 100, "x"));
}
END_TEST

START_TEST(test_command)
{
	struct buf b = { 0 };
	const char *argv[] = { "HMGET", "mooncake-store/{mooncake_cluster}/master_view", "leader_address", "" };
	resp_command(&b, 4, argv, NULL);
	ck_assert_str_eq(b.p, "*4\r\n$5\r\nHMGET\r\n$45\r\nmooncake-store/{mooncake_cluster}/master_view\r\n"
	    "$14\r\nleader_address\r\n$0\r\n\r\n");
	b.len = 0;
	{
		const char *bin[] = { "a\r\nb" };
		size_t len[] = { 4 };
		resp_command(&b, 1, bin, len);
		ck_assert(b.len == 14 && memcmp(b.p, "*1\r\n$4\r\na\r\nb\r\n", 14) == 0);
	}
	free(b.p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("resp");
	TCase *tc = tcase_create("resp");
	tcase_add_loop_test(tc, test_whole_and_split, 0, sizeof cases / sizeof cases[0]);
	tcase_add_test(tc, test_elements);
	tcase_add_loop_test(tc, test_capped, 0, sizeof capped / sizeof capped[0]);
	tcase_add_test(tc, test_command);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
