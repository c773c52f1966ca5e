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

/* What envfile_parse() reads back is what it rendered, value for value. */
static void
render_all(struct buf *b)
{
	b->len = 0;
	buf_puts(b, "# mooncake-sidecar: job 7, generation 3; read with sh\n");
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char key[16];
		snprintf(key, sizeof key, "V%zu", i);
		envfile_line(b, key, values[i]);
	}
}

START_TEST(test_parse_roundtrip)
{
	struct buf b = { 0 };
	struct kvlist l = { 0 };
	char err[128];
	render_all(&b);
	ck_assert_int_eq(envfile_parse(b.p, b.len, &l, err, sizeof err), 0);
	ck_assert_uint_eq(l.n, sizeof values / sizeof values[0]);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_msg(strcmp(l.v[i].value, values[i]) == 0, "V%zu read as \"%s\", wrote \"%s\"", i,
		    l.v[i].value, values[i]);
	kvlist_clear(&l);
	buf_free(&b);
}
END_TEST

/* Every prefix of the file: no crash; one that ends right after a whole line gives exactly the
 * assignments of the lines before it (a worker reading a file being written sees whole lines). */
START_TEST(test_parse_prefixes)
{
	struct buf b = { 0 };
	size_t ends[sizeof values / sizeof values[0]];
	char err[128];
	render_all(&b);
	for (size_t i = 0, off = 0; i < sizeof values / sizeof values[0]; i++) {
		struct buf one = { 0 };
		char key[16];
		snprintf(key, sizeof key, "V%zu", i);
		envfile_line(&one, key, values[i]);
		off = (size_t)((char *)memmem(b.p + off, b.len - off, one.p, one.len) - b.p) + one.len;
		ends[i] = off;
		buf_free(&one);
	}
	for (size_t n = 0; n <= b.len; n++) {
		struct kvlist l = { 0 };
		size_t lines = 0;
		int rc = envfile_parse(b.p, n, &l, err, sizeof err), whole = 0;
		for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
			if (ends[i] <= n)
				lines = i + 1;
			whole |= ends[i] == n;
		}
		if (whole) {
			ck_assert_msg(rc == 0 && l.n == lines, "prefix of %zu bytes: rc %d, %zu entries, want %zu (%s)", n,
			    rc, l.n, lines, err);
			for (size_t i = 0; i < l.n; i++)
				ck_assert_str_eq(l.v[i].value, values[i]);
		}
		kvlist_clear(&l);
	}
	buf_free(&b);
}
END_TEST

/* Lines not written by envfile_line, read as sh reads them. */
static const char *const sh_lines[] = {
	"A='single $q \\ \"x\"'\n", "A=\"keep \\q\"\n", "A=\"cont\\\ninued\"\n", "A=bare\\ space\n",
	"export A=exported\n", "A=x # a comment\n", "A=first\nA=second\n", "  A=\"indented\"\n", "A=\n",
	"A='a''b'\n", "A=\"dq\"'sq'bare\n",
};

START_TEST(test_parse_as_sh)
{
	char path[] = "/tmp/envfile-parse.XXXXXX", cmd[256], out[256] = "", err[128];
	struct kvlist l = { 0 };
	int fd = mkstemp(path);
	size_t n;
	FILE *f;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, sh_lines[_i], strlen(sh_lines[_i])), (ssize_t)strlen(sh_lines[_i]));
	close(fd);
	snprintf(cmd, sizeof cmd, "/bin/sh -c '. %s; printf %%s \"$A\"'", path);
	f = popen(cmd, "r");
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	ck_assert_int_eq(pclose(f), 0);
	unlink(path);
	ck_assert_msg(envfile_parse(sh_lines[_i], strlen(sh_lines[_i]), &l, err, sizeof err) == 0, "%s: %s",
	    sh_lines[_i], err);
	ck_assert_msg(strcmp(kvlist_get(&l, "A"), out) == 0, "%s: read \"%s\", sh reads \"%s\"", sh_lines[_i],
	    kvlist_get(&l, "A"), out);
	kvlist_clear(&l);
}
END_TEST

static const struct { const char *text, *err; } bad[] = {
	{ "A=\"open\n", "line 1: a quote is not closed" },
	{ "# ok\nA=1\nB='open\n", "line 3: a quote is not closed" },
	{ "A=1\nnot an assignment\n", "line 2: not KEY=VALUE" },
	{ "1A=x\n", "line 1: not KEY=VALUE" },
	{ "A=two words\n", "line 1: something follows the value (quote it)" },
	{ "A=\"x\"y z\n", "line 1: something follows the value (quote it)" },
	{ "A=\"a\nb\"\nB=\n=\n", "line 4: not KEY=VALUE" },
};

START_TEST(test_parse_errors)
{
	struct kvlist l = { 0 };
	char err[128] = "";
	ck_assert_int_eq(envfile_parse(bad[_i].text, strlen(bad[_i].text), &l, err, sizeof err), -1);
	ck_assert_str_eq(err, bad[_i].err);
	kvlist_clear(&l);
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
	tcase_add_test(tc, test_parse_roundtrip);
	tcase_add_test(tc, test_parse_prefixes);
	tcase_add_loop_test(tc, test_parse_as_sh, 0, (int)(sizeof sh_lines / sizeof sh_lines[0]));
	tcase_add_loop_test(tc, test_parse_errors, 0, (int)(sizeof bad / sizeof bad[0]));
	suite_add_tcase(s, tc);
	return unit_run(s);
}
