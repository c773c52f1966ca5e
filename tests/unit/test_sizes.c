#include "config.h"
#include <check.h>
#include <stdint.h>
#include <string.h>
#include "sizes.h"
#include "unit.h"

/* vLLM: MooncakeStoreConfig's size parser (vllm/distributed/kv_transfer/kv_connector/v1/mooncake,
 * _parse_global_segment_size: strip, lower, ^\s*([\d.]+)\s*(gb|mb|kb|b)?\s*$, float()). */
struct size_case {
	const char	*in;
	uint64_t	 bytes;
	int		 ok;
};

static const struct size_case vllm[] = {
	{ "4gb", 4294967296ULL, 1 }, { "4GB", 4294967296ULL, 1 }, { "1.5gb", 1610612736ULL, 1 },
	{ "512MB", 536870912ULL, 1 }, { "512 mb", 536870912ULL, 1 }, { " 2 kb ", 2048, 1 },
	{ "100", 100, 1 }, { "3b", 3, 1 }, { "3 B", 3, 1 }, { "0", 0, 1 }, { ".5kb", 512, 1 },
	{ "1.", 1, 1 }, { "2147483648", 2147483648ULL, 1 }, { "100GB", 107374182400ULL, 1 },
	/* forms other parsers take and vLLM does not */
	{ "1.5g", 0, 0 }, { "4g", 0, 0 }, { "512m", 0, 0 }, { "1TB", 0, 0 }, { "1t", 0, 0 },
	{ "1e9", 0, 0 }, { "+5", 0, 0 }, { "-1GB", 0, 0 }, { "0x10", 0, 0 }, { "inf", 0, 0 },
	{ "1.2.3", 0, 0 }, { ".", 0, 0 }, { "", 0, 0 }, { "gb", 0, 0 }, { "4GBB", 0, 0 },
	{ "1 2", 0, 0 }, { "4 gb b", 0, 0 }, { "4kib", 0, 0 },
};

/* SGLang: mooncake_store.py _parse_global_segment_size (strip, lower, endswith("gb") -> int(num)
 * GiB, else int()). */
static const struct size_case sglang[] = {
	{ "4gb", 4294967296ULL, 1 }, { "4GB", 4294967296ULL, 1 }, { " 16 gb ", 17179869184ULL, 1 },
	{ "4294967296", 4294967296ULL, 1 }, { "0", 0, 1 },
	{ "1.5GB", 0, 0 }, { "4096MB", 0, 0 }, { "4g", 0, 0 }, { "gb", 0, 0 }, { "", 0, 0 },
	{ "-4gb", 0, 0 }, { "1e9", 0, 0 }, { "4 g b", 0, 0 },
};

/* Both tables through one check: the parser, its table, and the words its errors start with. */
static void
check(int (*parse)(const char *, uint64_t *, char *, size_t), const char *in, uint64_t bytes, int ok,
    const char *words)
{
	uint64_t n = 0;
	char err[300] = "";
	int rc = parse(in, &n, err, sizeof err);
	if (ok) {
		ck_assert_msg(rc == 0, "%s: %s", in, err);
		ck_assert_uint_eq(n, bytes);
	} else {
		ck_assert_msg(rc == -1, "%s parsed as %llu", in, (unsigned long long)n);
		ck_assert_ptr_nonnull(strstr(err, words));
	}
}

START_TEST(test_vllm)
{
	check(size_parse_vllm, vllm[_i].in, vllm[_i].bytes, vllm[_i].ok, "is not a size vLLM reads");
}
END_TEST

START_TEST(test_sglang)
{
	check(size_parse_sglang, sglang[_i].in, sglang[_i].bytes, sglang[_i].ok, "is not a size SGLang reads");
}
END_TEST

START_TEST(test_too_large)
{
	uint64_t n;
	char err[300];
	ck_assert_int_eq(size_parse_vllm("99999999999999gb", &n, err, sizeof err), -1);
	ck_assert_str_eq(err, "size \"99999999999999gb\" is too large");
	ck_assert_int_eq(size_parse_sglang("99999999999999gb", &n, err, sizeof err), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sizes");
	TCase *tc = tcase_create("sizes");
	tcase_add_loop_test(tc, test_vllm, 0, (int)(sizeof vllm / sizeof vllm[0]));
	tcase_add_loop_test(tc, test_sglang, 0, (int)(sizeof sglang / sizeof sglang[0]));
	tcase_add_test(tc, test_too_large);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
