#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "buf.h"
#include "envfile.h"
#include "unit.h"

/*
 * The value rules of systemd's EnvironmentFile= as systemd.exec(5) documents them: leading and
 * trailing whitespace outside quotes discarded; unquoted backslash keeps the next character, and
 * backslash-newline continues the line; single quotes verbatim; double quotes recognise \" \\ \`
 * \$ and backslash-newline, and keep any other backslash pair verbatim; quotes after the start of
 * an unquoted value are kept. Returns the value of the first assignment in text.
 */
static char *
systemd_value(const char *text)
{
	enum { PRE, VALUE, VESC, SQ, DQ, DQESC } st = PRE;
	struct buf b = { 0 };
	size_t keep = 0;	/* length without trailing unquoted whitespace */
	const char *p = strchr(text, '=') + 1;
	for (; *p; p++) {
		char c = *p;
		switch (st) {
		case PRE:
			if (c == '\n')
				goto done;
			if (c == ' ' || c == '\t' || c == '\r')
				break;
			if (c == '\'')
				st = SQ;
			else if (c == '"')
				st = DQ;
			else if (c == '\\')
				st = VESC;
			else {
				buf_add(&b, &c, 1);
				keep = b.len;
				st = VALUE;
			}
			break;
		case VALUE:
			if (c == '\n')
				goto done;
			if (c == '\\')
				st = VESC;
			else {
				buf_add(&b, &c, 1);
				if (c != ' ' && c != '\t' && c != '\r')
					keep = b.len;
			}
			break;
		case VESC:
			if (c != '\n') {
				buf_add(&b, &c, 1);
				keep = b.len;
			}
			st = VALUE;
			break;
		case SQ:
			if (c == '\'')
				st = PRE;
			else
				buf_add(&b, &c, 1);
			keep = b.len;
			break;
		case DQ:
			if (c == '"')
				st = PRE;
			else if (c == '\\')
				st = DQESC;
			else
				buf_add(&b, &c, 1);
			keep = b.len;
			break;
		case DQESC:
			if (strchr("\"\\`$", c) != NULL)
				buf_add(&b, &c, 1);
			else if (c != '\n') {
				buf_add(&b, "\\", 1);
				buf_add(&b, &c, 1);
			}
			keep = b.len;
			st = DQ;
			break;
		}
	}
done:
	if (b.p == NULL)
		buf_add(&b, "", 0);
	b.p[keep] = '\0';
	return buf_take(&b, NULL);
}

/* The examples of systemd.exec(5), through the rules above. */
static const struct { const char *line, *value; } documented[] = {
	{ "A=plain\n", "plain" },
	{ "A=  padded value \t\n", "padded value" },
	{ "A=interior   whitespace kept\n", "interior   whitespace kept" },
	{ "A=\\\\\n", "\\" },
	{ "A=a\\\nb\n", "ab" },
	{ "A='single $quoted \\ \"x\"'\n", "single $quoted \\ \"x\"" },
	{ "A='two\nlines'\n", "two\nlines" },
	{ "A=\"dq \\\" \\\\ \\` \\$\"\n", "dq \" \\ ` $" },
	{ "A=\"keep \\q\"\n", "keep \\q" },
	{ "A=\"cont\\\ninued\"\n", "continued" },
	{ "A=x'quotes kept'\n", "x'quotes kept'" },
	{ "A=  \"outside ws dropped\"  \n", "outside ws dropped" },
};

static const char *const values[] = {
	"", "plain", "with space", "  lead and trail  ", "quote\"d", "single'quote", "dollar $HOME ${X} $(id)",
	"back\\slash", "back`tick`", "new\nline", "tab\there", "cr\rhere",
	"mixed 'a' \"b\" \\c $d `e`", "ünïcödé", "trailing backslash\\", "=equals=", "#hash", ";semi",
	"\\\n", "\\\"", "http://10.0.0.1:8080/metadata", "$$", "*", "~",
};

START_TEST(test_systemd_documented)
{
	char *v = systemd_value(documented[_i].line);
	ck_assert_str_eq(v, documented[_i].value);
	free(v);
}
END_TEST

START_TEST(test_systemd_roundtrip)
{
	struct buf b = { 0 };
	char *v;
	envfile_line(&b, "X", values[_i]);
	v = systemd_value(b.p);
	ck_assert_str_eq(v, values[_i]);
	free(v);
	buf_free(&b);
}
END_TEST

/* What sh (dash) and bash read back after sourcing the rendered file. */
static void
shell_roundtrip(const char *shell)
{
	char path[] = "/tmp/envfile-test.XXXXXX";
	struct buf b = { 0 };
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char key[16];
		snprintf(key, sizeof key, "V%zu", i);
		envfile_line(&b, key, values[i]);
	}
	ck_assert_int_eq(write(fd, b.p, b.len), (ssize_t)b.len);
	close(fd);
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char cmd[256], out[256] = "";
		size_t n;
		FILE *f;
		snprintf(cmd, sizeof cmd, "%s -c '. %s; printf %%s \"$V%zu\"'", shell, path, i);
		f = popen(cmd, "r");
		ck_assert_ptr_nonnull(f);
		n = fread(out, 1, sizeof out - 1, f);
		out[n] = '\0';
		ck_assert_int_eq(pclose(f), 0);
		ck_assert_msg(strcmp(out, values[i]) == 0, "%s read V%zu as \"%s\", wrote \"%s\"", shell, i,
		    out, values[i]);
	}
	unlink(path);
	buf_free(&b);
}

START_TEST(test_sh_roundtrip)
{
	shell_roundtrip("/bin/sh");
}
END_TEST

START_TEST(test_bash_roundtrip)
{
	shell_roundtrip("/bin/bash");
}
END_TEST

START_TEST(test_render)
{
	struct kvlist l = { 0 };
	struct buf b = { 0 };
	kvlist_set(&l, "MOONCAKE_MASTER", "10.0.0.1:50051");
	kvlist_set(&l, "MOONCAKE_LOCAL_HOSTNAME", "10.0.0.42");
	kvlist_set(&l, "MOONCAKE_MASTER", "10.0.0.2:50051");
	envfile_render(&b, &l);
	ck_assert_str_eq(b.p, "MOONCAKE_MASTER=\"10.0.0.2:50051\"\nMOONCAKE_LOCAL_HOSTNAME=\"10.0.0.42\"\n");
	ck_assert_str_eq(kvlist_get(&l, "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.42");
	ck_assert_ptr_null(kvlist_get(&l, "NOPE"));
	kvlist_clear(&l);
	buf_free(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("envfile");
	TCase *tc = tcase_create("envfile");
	tcase_add_loop_test(tc, test_systemd_documented, 0, (int)(sizeof documented / sizeof documented[0]));
	tcase_add_loop_test(tc, test_systemd_roundtrip, 0, (int)(sizeof values / sizeof values[0]));
	tcase_add_test(tc, test_sh_roundtrip);
	tcase_add_test(tc, test_bash_roundtrip);
	tcase_add_test(tc, test_render);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
