/* Bearer tokens: the file's form, the header's, and which routes stay open. */
#include "config.h"
#include <check.h>
#include <string.h>
#include "auth.h"
#include "unit.h"

#define TOKEN "s3cr3t-t0ken-0123456789"

static const struct {
	const char	*header;
	int		 ok;
} headers[] = {
	{ "Bearer " TOKEN, 1 },
	{ "bearer " TOKEN, 1 },
	{ "BEARER  " TOKEN " ", 1 },
	{ "Bearer " TOKEN "x", 0 },
	{ "Bearer s3cr3t-t0ken-012345678", 0 },
	{ "Bearer S3cr3t-t0ken-0123456789", 0 },
	{ "Bearer ", 0 },
	{ "Bearer", 0 },
	{ "Basic " TOKEN, 0 },
	{ TOKEN, 0 },
	{ "", 0 },
	{ NULL, 0 },
};

START_TEST(test_bearer)
{
	ck_assert_int_eq(auth_bearer_ok(headers[_i].header, TOKEN), headers[_i].ok);
}
END_TEST

static const struct {
	const char	*file;
	const char	*token, *err;
} files[] = {
	{ TOKEN "\n", TOKEN, NULL },
	{ TOKEN, TOKEN, NULL },
	{ TOKEN "\r\n", TOKEN, NULL },
	{ TOKEN "\nsecond line\n", TOKEN, NULL },
	{ "short\n", NULL, "the token is 5 characters long; it must be 16 to 4096" },
	{ "\n", NULL, "the token is 0 characters long; it must be 16 to 4096" },
	{ "with a blank in it!!\n", NULL, "the token holds a blank or a character that is not visible ASCII (at byte 4)" },
	{ "tab\there-0123456789\n", NULL, "the token holds a blank or a character that is not visible ASCII (at byte 3)" },
	{ "caf\xc3\xa9-0123456789abc\n", NULL, "the token holds a blank or a character that is not visible ASCII (at byte 3)" },
};

START_TEST(test_file)
{
	char out[AUTH_TOKEN_MAX + 1] = "", err[256] = "";
	int rc = auth_token_parse(files[_i].file, strlen(files[_i].file), out, sizeof out, err, sizeof err);
	if (files[_i].token != NULL) {
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_str_eq(out, files[_i].token);
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_str_eq(err, files[_i].err);
	}
}
END_TEST

START_TEST(test_public)
{
	char *routes[] = { "/livez", "/readyz", NULL };
	ck_assert(auth_public("/livez", routes));
	ck_assert(auth_public("/readyz?x=1", routes));
	ck_assert(!auth_public("/livez/", routes));
	ck_assert(!auth_public("/live", routes));
	ck_assert(!auth_public("/status", routes));
	ck_assert(!auth_public("/livez", NULL));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_add_loop_test(tc, test_bearer, 0, (int)(sizeof headers / sizeof headers[0]));
	tcase_add_loop_test(tc, test_file, 0, (int)(sizeof files / sizeof files[0]));
	tcase_add_test(tc, test_public);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
