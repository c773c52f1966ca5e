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

static const struct {
	const char	*header;
	int		 rc;
	const char	*user, *pass;
} basics[] = {
	{ "Basic dXNlcjpwYXNz", 0, "user", "pass" },
	{ "basic   dXNlcjpwYXNz  ", 0, "user", "pass" },
	{ "BASIC cHJvbWV0aGV1czpwYTpzcyB3MHJk", 0, "prometheus", "pa:ss w0rd" },
	{ "Basic dXNlcjo=", 0, "user", "" },
	{ "Basic dXNlcg==", -1, "", "" },
	{ "Basic OnBhc3M=", -1, "", "" },
	{ "Basic dXMBZXI6cGFzcw==", -1, "", "" },
	{ "Basic dXNlcjpwYX9zcw==", -1, "", "" },
	{ "Basic dXNlcjpwYXN", -1, "", "" },
	{ "Basic YR==", -1, "", "" },
	{ "Basic dXNl*jpwYXNz", -1, "", "" },
	{ "Basic =XNlcjpwYXNz", -1, "", "" },
	{ "Basic ", -1, "", "" },
	{ "Bearer dXNlcjpwYXNz", -1, "", "" },
	{ "BasicdXNlcjpwYXNz", -1, "", "" },
};

START_TEST(test_basic)
{
	char user[64] = "", pass[64] = "";
	int rc = auth_basic_parse(basics[_i].header, user, sizeof user, pass, sizeof pass);
	ck_assert_msg(rc == basics[_i].rc, "%s: %d", basics[_i].header, rc);
	if (rc == 0) {
		ck_assert_str_eq(user, basics[_i].user);
		ck_assert_str_eq(pass, basics[_i].pass);
	}
	/* room for fewer characters than the user or the password has: refused, never cut */
	if (rc == 0 && basics[_i].pass[0] != '\0')
		ck_assert_int_eq(auth_basic_parse(basics[_i].header, user, sizeof user, pass,
		    strlen(basics[_i].pass)), -1);
	if (rc == 0)
		ck_assert_int_eq(auth_basic_parse(basics[_i].header, user, strlen(basics[_i].user), pass,
		    sizeof pass), -1);
}
END_TEST

START_TEST(test_bcrypt_shape)
{
	/* as mkpasswd -m bcrypt and htpasswd -B write them */
	ck_assert(auth_bcrypt_hash_ok("$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(auth_bcrypt_hash_ok("$2y$05$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(auth_bcrypt_hash_ok("$2a$31$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(!auth_bcrypt_hash_ok("secret"));
	ck_assert(!auth_bcrypt_hash_ok(""));
	ck_assert(!auth_bcrypt_hash_ok("$2x$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(!auth_bcrypt_hash_ok("$2b$03$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(!auth_bcrypt_hash_ok("$2b$32$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u"));
	ck_assert(!auth_bcrypt_hash_ok("$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2"));
	ck_assert(!auth_bcrypt_hash_ok("$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u!"));
	ck_assert(!auth_bcrypt_hash_ok("$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa+u"));
	ck_assert(!auth_bcrypt_hash_ok("$6$rounds=5000$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa"));
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
	tcase_add_loop_test(tc, test_basic, 0, (int)(sizeof basics / sizeof basics[0]));
	tcase_add_test(tc, test_bcrypt_shape);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
