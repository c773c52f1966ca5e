/* Server-sent events: what the head writes reads back as it was, whole or split at every byte, and
 * the reader keeps to the standard's lines, fields and comments. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sse.h"
#include "unit.h"

/* Every event of s[0..len) fed as a stream split at cut: arrived bytes are kept until an event is
 * whole, as a reader of a socket would. Returns the events' ids and data as "id=data;" lines. */
static char *
read_split(const char *s, size_t len, size_t cut)
{
	struct buf got = { 0 }, pend = { 0 };
	struct sse_event ev = { 0 };
	size_t at[2] = { cut, len }, from = 0;
	for (int k = 0; k < 2; k++) {
		size_t n, off = 0;
		buf_add(&pend, s + from, at[k] - from);
		from = at[k];
		while ((n = sse_next(pend.p + off, pend.len - off, &ev)) > 0) {
			off += n;
			if (ev.has_data)
				buf_printf(&got, "%s=%s;", ev.id, ev.data.p);
		}
		memmove(pend.p, pend.p + off, pend.len - off);
		pend.len -= off;
	}
	buf_free(&pend);
	sse_event_free(&ev);
	buf_add(&got, "", 0);
	return buf_take(&got, NULL);
}

static void
same_at_every_cut(const char *s, const char *want)
{
	size_t len = strlen(s);
	for (size_t cut = 0; cut <= len; cut++) {
		char *got = read_split(s, len, cut);
		ck_assert_msg(strcmp(got, want) == 0, "cut at %zu: got \"%s\", want \"%s\"", cut, got, want);
		free(got);
	}
}

START_TEST(test_round_trip)
{
	static const char *docs[] = { "{\"a\": 1}", "{\n  \"a\": 1\n}\n", "", "\n", "\n\n", "x\n\ny" };
	struct buf b = { 0 }, want = { 0 };
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		char id[16];
		snprintf(id, sizeof id, "%zu-ready", i);
		sse_event(&b, id, docs[i], strlen(docs[i]));
		buf_printf(&want, "%s=%s;", id, docs[i]);
	}
	same_at_every_cut(b.p, want.p);
	buf_free(&b);
	buf_free(&want);
}
END_TEST

START_TEST(test_standard)
{
	/* CRLF and CR line ends, comments, no space after the colon, a field without a value,
	 * unknown fields, a block of only comments, data with a colon in it */
	same_at_every_cut(": hello\r\n\r\nid:7\r\ndata:a:b\r\nevent: x\r\nretry: 5\r\n\r\n", "7=a:b;");
	same_at_every_cut("id: 1\rdata: x\rdata\r\r\n", "1=x\n;");
	same_at_every_cut("data:  two spaces\n\n", "= two spaces;");
	same_at_every_cut("id: 1\n\n", "");			/* no data: nothing dispatched */
	same_at_every_cut("data: a\n", "");			/* not ended by a blank line */
	same_at_every_cut("\n\n\ndata: z\n\n", "=z;");
}
END_TEST

START_TEST(test_partial)
{
	struct sse_event ev = { 0 };
	/* a CR at the end may be the start of a CRLF: not taken yet */
	ck_assert_uint_eq(sse_next("data: a\r\r", 9, &ev), 0);
	ck_assert_uint_eq(sse_next("data: a\r\r\n", 10, &ev), 10);
	ck_assert_str_eq(ev.data.p, "a");
	ck_assert_uint_eq(sse_next("data: a\n\nda", 11, &ev), 9);
	ck_assert_uint_eq(sse_next("", 0, &ev), 0);
	sse_event_free(&ev);
}
END_TEST

START_TEST(test_id)
{
	struct sse_event ev = { 0 };
	char s[200];
	memset(s, 'x', sizeof s);
	memcpy(s, "id: ", 4);
	memcpy(s + 150, "\ndata: y\n\n", 10);
	ck_assert_uint_eq(sse_next(s, 160, &ev), 160);
	ck_assert_str_eq(ev.id, "");		/* too long: none */
	ck_assert_int_eq(ev.has_data, 1);
	ck_assert_uint_eq(sse_next("id: a\0b\ndata: y\n\n", 17, &ev), 17);
	ck_assert_str_eq(ev.id, "");		/* holds a NUL: ignored */
	sse_event_free(&ev);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sse");
	TCase *tc = tcase_create("sse");
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_standard);
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_id);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
