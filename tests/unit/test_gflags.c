/* A gflags program's --helpxml, and arguments checked against it as gflags parses them. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gflags.h"
#include "unit.h"

/* The shape of mooncake_master 0.3.12.post1's --helpxml (a few of its 140 flags). */
static const char xml[] =
    "<?xml version=\"1.0\"?>\n<AllFlags>\n<program>mooncake_master</program>\n<usage>Warning: x</usage>\n"
    "<flag><file>master.cpp</file><name>client_ttl</name><meaning>Seconds a client &lt;stays&gt;</meaning>"
    "<default>10</default><current>10</current><type>int64</type></flag>\n"
    "<flag><file>master.cpp</file><name>enable_ha</name><meaning></meaning><default>false</default>"
    "<current>false</current><type>bool</type></flag>\n"
    "<flag><file>master.cpp</file><name>metrics_host</name><meaning>Address</meaning><default>0.0.0.0</default>"
    "<current>0.0.0.0</current><type>string</type></flag>\n"
    "<flag><file>master.cpp</file><name>rpc_port</name><meaning>Port</meaning><default>0</default><current>0</current>"
    "<type>int32</type></flag>\n"
    "<flag><file>master.cpp</file><name>eviction_ratio</name><meaning></meaning><default>0.05</default>"
    "<current>0.05</current><type>double</type></flag>\n"
    "<flag><file>master.cpp</file><name>rpc_thread_num</name><meaning></meaning><default>0</default>"
    "<current>0</current><type>uint32</type></flag>\n</AllFlags>\n";

static struct gflags g;

static void
setup(void)
{
	char err[200];
	ck_assert_int_eq(gflags_parse(xml, strlen(xml), &g, err, sizeof err), 0);
}

static void
teardown(void)
{
	gflags_free(&g);
}

START_TEST(test_parse)
{
	ck_assert_uint_eq(g.n, 6);
	ck_assert_str_eq(gflags_find(&g, "client_ttl")->type, "int64");
	ck_assert_str_eq(gflags_find(&g, "enable_ha")->type, "bool");
	ck_assert_ptr_null(gflags_find(&g, "nosuch"));
}
END_TEST

static const struct { const char *args[4]; const char *err; } checks[] = {
	{ { "--client_ttl=20", "--metrics_host=127.0.0.1", "--enable_ha", NULL }, NULL },
	{ { "-rpc_port", "50051", "--noenable_ha", NULL }, NULL },
	{ { "--enable_ha=false", "positional", "--eviction_ratio=0.1", NULL }, NULL },
	{ { "--metrics_hostname=x", NULL }, "master.extra_args[0]: --metrics_hostname=x: mooncake_master 9 (/m) has no "
	  "flag \"metrics_hostname\" (it would exit at start: \"ERROR: unknown command line flag\")" },
	{ { "--nometrics_host", NULL }, "master.extra_args[0]: --nometrics_host: mooncake_master 9 (/m) has no flag "
	  "\"nometrics_host\" (it would exit at start: \"ERROR: unknown command line flag\")" },
	{ { "--client_ttl=ten", NULL }, "master.extra_args[0]: --client_ttl=ten: \"ten\" is not an int64 (the type "
	  "of --client_ttl in mooncake_master 9 (/m))" },
	{ { "--rpc_port", "70000000000", NULL }, "master.extra_args[0]: --rpc_port: \"70000000000\" is not an int32 (the type "
	  "of --rpc_port in mooncake_master 9 (/m))" },
	{ { "--rpc_thread_num=-1", NULL }, "master.extra_args[0]: --rpc_thread_num=-1: \"-1\" is not an uint32 (the type "
	  "of --rpc_thread_num in mooncake_master 9 (/m))" },
	{ { "--enable_ha=maybe", NULL }, "master.extra_args[0]: --enable_ha=maybe: \"maybe\" is not a bool (the type "
	  "of --enable_ha in mooncake_master 9 (/m))" },
	{ { "--rpc_port", NULL }, "master.extra_args[0]: --rpc_port: an int32 flag of mooncake_master 9 (/m), without its value" },
	{ { "--helpxml", NULL }, "master.extra_args[0]: --helpxml: mooncake_master 9 (/m) has no flag \"helpxml\" (it "
	  "would exit at start: \"ERROR: unknown command line flag\")" },
};

START_TEST(test_check)
{
	struct strv errs = { 0 };
	gflags_check(&g, (char *const *)checks[_i].args, "master.extra_args", "mooncake_master 9 (/m)", &errs);
	if (checks[_i].err == NULL)
		ck_assert_msg(errs.n == 0, "case %d: %s", _i, errs.n ? errs.v[0] : "");
	else {
		ck_assert_uint_eq(errs.n, 1);
		ck_assert_str_eq(errs.v[0], checks[_i].err);
	}
	strv_free(&errs);
}
END_TEST

START_TEST(test_bad_xml)
{
	struct gflags b;
	char err[200];
	ck_assert_int_eq(gflags_parse("usage: nope", 11, &b, err, sizeof err), -1);
	ck_assert_str_eq(err, "not gflags' --helpxml (no <AllFlags>)");
	ck_assert_int_eq(gflags_parse("<AllFlags></AllFlags>", 21, &b, err, sizeof err), -1);
	ck_assert_str_eq(err, "--helpxml lists no flag");
	ck_assert_int_eq(gflags_parse("<AllFlags><flag><name>x</name><type>float</type></flag>", 55, &b, err, sizeof err), -1);
	ck_assert_str_eq(err, "flag 1: no name, or no type gflags has");
	/* every prefix of a good one: parsed or refused, no crash; whole flags only */
	for (size_t n = 0; n <= strlen(xml); n++) {
		if (gflags_parse(xml, n, &b, err, sizeof err) == 0) {
			ck_assert_uint_le(b.n, 6);
			gflags_free(&b);
		}
	}
}
END_TEST

START_TEST(test_version)
{
	struct gflags v = { 0 };
	static const char out[] = "mooncake_master.real version 0.3.12.post1 (git: unknown)\n";
	gflags_version(out, strlen(out), &v);
	ck_assert_str_eq(v.version, "0.3.12.post1");
	gflags_version("no\nversion 2", 12, &v);
	ck_assert_str_eq(v.version, "");
}
END_TEST

/* The cache: read back what was written, under its key only; a cut or altered file is a miss. */
START_TEST(test_cache)
{
	struct gflags c;
	size_t len;
	char *t;
	strcpy(g.version, "0.3.12.post1");
	t = gflags_cache_render(&g, "/usr/bin/mooncake_master 123 1700000000.5", &len);
	ck_assert_int_eq(gflags_cache_parse(t, len, "/usr/bin/mooncake_master 123 1700000000.5", &c), 0);
	ck_assert_uint_eq(c.n, 6);
	ck_assert_str_eq(c.version, "0.3.12.post1");
	ck_assert_str_eq(gflags_find(&c, "rpc_port")->type, "int32");
	gflags_free(&c);
	ck_assert_int_eq(gflags_cache_parse(t, len, "/usr/bin/mooncake_master 124 1700000000.5", &c), -1);
	for (size_t n = 0; n < len; n++)	/* every cut but at a line's end is refused */
		if (gflags_cache_parse(t, n, "/usr/bin/mooncake_master 123 1700000000.5", &c) == 0) {
			ck_assert_int_eq(t[n - 1], '\n');
			ck_assert_uint_lt(c.n, 6);
			gflags_free(&c);
		}
	t[len - 3] = 'X';	/* "uint32" -> "uinX32": not a type */
	ck_assert_int_eq(gflags_cache_parse(t, len, "/usr/bin/mooncake_master 123 1700000000.5", &c), -1);
	ck_assert_int_eq(gflags_cache_parse("", 0, "", &c), -1);
	free(t);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("gflags");
	TCase *tc = tcase_create("gflags");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse);
	tcase_add_loop_test(tc, test_check, 0, (int)(sizeof checks / sizeof checks[0]));
	tcase_add_test(tc, test_bad_xml);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_cache);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
