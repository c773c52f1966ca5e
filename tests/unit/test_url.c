/* URLs of the head sidecar and host:port strings, including DNS names up to 253 characters. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "url.h"
#include "unit.h"

static char long_name[300];	/* 253 characters: four labels of 63 and "a" */
static char too_long[300];	/* 254 */

static const struct {
	const char	*in;
	const char	*host;	/* NULL: rejected */
	int		 port;
	const char	*path;
} cases[] = {
	{ "http://head:9103", "head", 9103, "/" },
	{ "http://head", "head", 80, "/" },
	{ "http://10.0.0.1:9103/", "10.0.0.1", 9103, "/" },
	{ "http://[::1]:9103/x/y", "::1", 9103, "/x/y" },
	{ "http://[fe80::1]", "fe80::1", 80, "/" },
	{ "http://gpu-01.cluster_a.example.org:1", "gpu-01.cluster_a.example.org", 1, "/" },
	{ "head:9103", NULL, 0, NULL },
	{ "https://head:9103", "head", 9103, "/" },
	{ "https://head", "head", 443, "/" },
	{ "https://[::1]/s", "::1", 443, "/s" },
	{ "httpss://head:9103", NULL, 0, NULL },
	{ "ftp://head:9103", NULL, 0, NULL },
	{ "http://", NULL, 0, NULL },
	{ "http://:9103", NULL, 0, NULL },
	{ "http://head:0", NULL, 0, NULL },
	{ "http://head:65536", NULL, 0, NULL },
	{ "http://head:99999999999", NULL, 0, NULL },
	{ "http://head:", NULL, 0, NULL },
	{ "http://head:12a", NULL, 0, NULL },
	{ "http://he ad:1", NULL, 0, NULL },
	{ "http://user@head:1", NULL, 0, NULL },
	{ "http://head:1?x", NULL, 0, NULL },
	{ "http://head..x:1", NULL, 0, NULL },
	{ "http://[::1", NULL, 0, NULL },
	{ "http://[::1]x", NULL, 0, NULL },
	{ "http://[zz::1]:1", NULL, 0, NULL },
	{ "http://[]:1", NULL, 0, NULL },
	{ "http://head:1\r\nX: y", NULL, 0, NULL },
	{ "@LONG@", NULL, 9103, "/" },
	{ "@TOOLONG@", NULL, 0, NULL },
};

START_TEST(test_scheme)
{
	struct url u;
	char err[256];
	ck_assert_int_eq(url_parse("https://head:9103", &u, err, sizeof err), 0);
	ck_assert_int_eq(u.tls, 1);
	ck_assert_int_eq(url_parse("http://head:9103", &u, err, sizeof err), 0);
	ck_assert_int_eq(u.tls, 0);
	ck_assert_int_eq(url_parse("ftp://head", &u, err, sizeof err), -1);
	ck_assert_str_eq(err, "must start with http:// or https://, got \"ftp://head\"");
}
END_TEST

START_TEST(test_parse)
{
	struct url u;
	char err[256] = "", in[400];
	const char *s = cases[_i].in;
	if (strcmp(s, "@LONG@") == 0)
		snprintf(in, sizeof in, "http://%s:9103", long_name);
	else if (strcmp(s, "@TOOLONG@") == 0)
		snprintf(in, sizeof in, "http://%s:9103", too_long);
	else
		snprintf(in, sizeof in, "%s", s);
	int rc = url_parse(in, &u, err, sizeof err);
	const char *host = strcmp(s, "@LONG@") == 0 ? long_name : cases[_i].host;
	if (host != NULL) {
		ck_assert_msg(rc == 0, "%s: %s", in, err);
		ck_assert_str_eq(u.host, host);
		ck_assert_int_eq(u.port, cases[_i].port);
		ck_assert_str_eq(u.path, cases[_i].path);
	} else {
		ck_assert_msg(rc == -1, "%s accepted", in);
		ck_assert_msg(err[0] != '\0', "%s: no message", in);
	}
}
END_TEST

START_TEST(test_hostport)
{
	char host[URL_HOST_MAX];
	int port = 0;
	ck_assert_int_eq(url_split_hostport("10.1.2.3:50051", host, sizeof host, &port), 0);
	ck_assert_str_eq(host, "10.1.2.3");
	ck_assert_int_eq(port, 50051);
	ck_assert_int_eq(url_split_hostport("[2001:db8::5]:7", host, sizeof host, &port), 0);
	ck_assert_str_eq(host, "2001:db8::5");
	ck_assert_int_eq(port, 7);
	ck_assert_int_eq(url_split_hostport("master-0.svc:1", host, sizeof host, &port), 0);
	ck_assert_str_eq(host, "master-0.svc");
	ck_assert_int_eq(url_split_hostport("host", host, sizeof host, &port), -1);
	ck_assert_int_eq(url_split_hostport("host:", host, sizeof host, &port), -1);
	ck_assert_int_eq(url_split_hostport(":1", host, sizeof host, &port), -1);
	ck_assert_int_eq(url_split_hostport("[::1]", host, sizeof host, &port), -1);
	ck_assert_int_eq(url_split_hostport("a:b:1", host, sizeof host, &port), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("url");
	TCase *tc = tcase_create("url");
	snprintf(long_name, sizeof long_name, "a%062d.b%062d.c%062d.d%060d", 1, 2, 3, 4);
	snprintf(too_long, sizeof too_long, "a%062d.b%062d.c%062d.d%061d", 1, 2, 3, 4);
	tcase_add_test(tc, test_scheme);
	tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_hostport);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
