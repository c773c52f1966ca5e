/* The HTTP response parser: every case fed whole, split in two at every byte offset, and one byte
 * at a time must give the same outcome, status, body, content type and keep-alive. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "httpresp.h"
#include "unit.h"

#define CRLF "\r\n"

static const struct hcase {
	const char	*name;
	const char	*in;
	int		 head;		/* the request was HEAD */
	int		 eof;		/* the connection closes after the input */
	int		 rc;		/* HR_DONE or HR_ERROR (HR_MORE: still waiting) */
	int		 err;
	int		 status;
	const char	*body;
	const char	*ctype;
	int		 keep;
	size_t		 rest;		/* bytes after the response (the next one's) */
} cases[] = {
	{ "content-length", "HTTP/1.1 200 OK" CRLF "Content-Type: application/json" CRLF
	  "Content-Length: 7" CRLF CRLF "{\"a\":1}", 0, 0, HR_DONE, 0, 200, "{\"a\":1}", "application/json", 1, 0 },
	{ "no reason phrase", "HTTP/1.1 404" CRLF "Content-Length: 0" CRLF CRLF, 0, 0, HR_DONE, 0, 404, "", "", 1, 0 },
	{ "bare LF lines", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 0, 0, HR_DONE, 0, 200, "ok", "", 1, 0 },
	{ "chunked", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF
	  "5" CRLF "hello" CRLF "6" CRLF " world" CRLF "0" CRLF CRLF, 0, 0, HR_DONE, 0, 200, "hello world", "", 1, 0 },
	{ "chunked, extensions and trailers", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: gzip, chunked" CRLF
	  "Content-Type: text/plain" CRLF CRLF "3;name=value" CRLF "abc" CRLF "A ; x" CRLF "0123456789" CRLF
	  "0;last" CRLF "X-Trailer: 1" CRLF "Another: 2" CRLF CRLF, 0, 0, HR_DONE, 0, 200, "abc0123456789",
	  "text/plain", 1, 0 },
	{ "chunked wins over Content-Length", "HTTP/1.1 200 OK" CRLF "Content-Length: 100" CRLF
	  "Transfer-Encoding: chunked" CRLF CRLF "2" CRLF "hi" CRLF "0" CRLF CRLF, 0, 0, HR_DONE, 0, 200, "hi", "", 1, 0 },
	{ "close-delimited", "HTTP/1.1 200 OK" CRLF "Content-Type: text/plain" CRLF CRLF "until the end",
	  0, 1, HR_DONE, 0, 200, "until the end", "text/plain", 0, 0 },
	{ "close-delimited, waiting", "HTTP/1.1 200 OK" CRLF CRLF "part", 0, 0, HR_MORE, 0, 200, NULL, NULL, 0, 0 },
	{ "non-chunked transfer coding: read to the end", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: gzip" CRLF
	  CRLF "xyz", 0, 1, HR_DONE, 0, 200, "xyz", "", 0, 0 },
	{ "1xx before the final status", "HTTP/1.1 100 Continue" CRLF CRLF "HTTP/1.1 103 Early Hints" CRLF
	  "Link: </x>" CRLF CRLF "HTTP/1.1 201 Created" CRLF "Content-Length: 1" CRLF CRLF "x", 0, 0, HR_DONE, 0,
	  201, "x", "", 1, 0 },
	{ "204 without a body", "HTTP/1.1 204 No Content" CRLF "Content-Length: 5" CRLF CRLF, 0, 0, HR_DONE, 0,
	  204, "", "", 1, 0 },
	{ "304 without a body", "HTTP/1.1 304 Not Modified" CRLF CRLF, 0, 0, HR_DONE, 0, 304, "", "", 1, 0 },
	{ "HEAD: no body despite Content-Length", "HTTP/1.1 200 OK" CRLF "Content-Length: 50" CRLF CRLF,
	  1, 0, HR_DONE, 0, 200, "", "", 1, 0 },
	{ "the next response is left alone", "HTTP/1.1 200 OK" CRLF "Content-Length: 2" CRLF CRLF "okHTTP/1.1",
	  0, 0, HR_DONE, 0, 200, "ok", "", 1, 8 },
	{ "Connection: close", "HTTP/1.1 200 OK" CRLF "Connection: keep-alive, close" CRLF "Content-Length: 0" CRLF
	  CRLF, 0, 0, HR_DONE, 0, 200, "", "", 0, 0 },
	{ "HTTP/1.0 closes", "HTTP/1.0 200 OK" CRLF "Content-Length: 1" CRLF CRLF "a", 0, 0, HR_DONE, 0, 200,
	  "a", "", 0, 0 },
	{ "HTTP/1.0 keep-alive", "HTTP/1.0 200 OK" CRLF "Connection: Keep-Alive" CRLF "Content-Length: 1" CRLF
	  CRLF "a", 0, 0, HR_DONE, 0, 200, "a", "", 1, 0 },
	{ "folded header", "HTTP/1.1 200 OK" CRLF "Content-Type: text/plain;" CRLF "\t charset=utf-8" CRLF
	  "Content-Length: 1" CRLF CRLF "z", 0, 0, HR_DONE, 0, 200, "z", "text/plain; \t charset=utf-8", 1, 0 },
	{ "header names are case-insensitive", "HTTP/1.1 200 OK" CRLF "CONTENT-LENGTH:3" CRLF
	  "content-TYPE:   a/b   " CRLF CRLF "abc", 0, 0, HR_DONE, 0, 200, "abc", "a/b", 1, 0 },
	{ "same Content-Length twice", "HTTP/1.1 200 OK" CRLF "Content-Length: 1" CRLF "Content-Length: 1" CRLF
	  CRLF "q", 0, 0, HR_DONE, 0, 200, "q", "", 1, 0 },
	{ "conflicting Content-Length", "HTTP/1.1 200 OK" CRLF "Content-Length: 1" CRLF "Content-Length: 2" CRLF
	  CRLF "q", 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "negative Content-Length", "HTTP/1.1 200 OK" CRLF "Content-Length: -1" CRLF CRLF, 0, 0, HR_ERROR,
	  HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "huge Content-Length", "HTTP/1.1 200 OK" CRLF "Content-Length: 99999999999999999999999" CRLF CRLF, 0, 0,
	  HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "body over the cap", "HTTP/1.1 200 OK" CRLF "Content-Length: 1025" CRLF CRLF, 0, 0, HR_ERROR,
	  HR_E_BODY_SIZE, 0, NULL, NULL, 0, 0 },
	{ "chunked body over the cap", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF
	  "401" CRLF, 0, 0, HR_ERROR, HR_E_BODY_SIZE, 0, NULL, NULL, 0, 0 },
	{ "chunk size overflow", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF
	  "fffffffffffffffff" CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "bad chunk size", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF "zz" CRLF, 0, 0,
	  HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "chunk without its CRLF", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF "2" CRLF
	  "abX" CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "status 600", "HTTP/1.1 600 Odd" CRLF CRLF, 0, 0, HR_ERROR, HR_E_STATUS, 0, NULL, NULL, 0, 0 },
	{ "status 099", "HTTP/1.1 099 Odd" CRLF CRLF, 0, 0, HR_ERROR, HR_E_STATUS, 0, NULL, NULL, 0, 0 },
	{ "101 upgrade", "HTTP/1.1 101 Switching Protocols" CRLF CRLF, 0, 0, HR_ERROR, HR_E_STATUS, 0, NULL,
	  NULL, 0, 0 },
	{ "two-digit status", "HTTP/1.1 20 OK" CRLF CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "four-digit status", "HTTP/1.1 2000 OK" CRLF CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "not HTTP", "SSH-2.0-OpenSSH_9.2" CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "HTTP/2 preface", "HTTP/2 200" CRLF CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "header without a colon", "HTTP/1.1 200 OK" CRLF "Broken header" CRLF CRLF, 0, 0, HR_ERROR,
	  HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "space before the colon", "HTTP/1.1 200 OK" CRLF "Content-Length : 1" CRLF CRLF "x", 0, 0, HR_ERROR,
	  HR_E_SYNTAX, 0, NULL, NULL, 0, 0 },
	{ "fold before any header", "HTTP/1.1 200 OK" CRLF " folded" CRLF CRLF, 0, 0, HR_ERROR, HR_E_SYNTAX, 0,
	  NULL, NULL, 0, 0 },
	{ "truncated in the status line", "HTTP/1.1 2", 0, 1, HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
	{ "truncated in the headers", "HTTP/1.1 200 OK" CRLF "Content-Le", 0, 1, HR_ERROR, HR_E_TRUNCATED, 0,
	  NULL, NULL, 0, 0 },
	{ "truncated in a Content-Length body", "HTTP/1.1 200 OK" CRLF "Content-Length: 10" CRLF CRLF "abc", 0, 1,
	  HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
	{ "truncated in a chunk", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF "a" CRLF "abc", 0,
	  1, HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
	{ "truncated before the last chunk", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF "1" CRLF
	  "a" CRLF, 0, 1, HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
	{ "truncated in the trailers", "HTTP/1.1 200 OK" CRLF "Transfer-Encoding: chunked" CRLF CRLF "0" CRLF
	  "X: 1" CRLF, 0, 1, HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
	{ "nothing at all", "", 0, 1, HR_ERROR, HR_E_TRUNCATED, 0, NULL, NULL, 0, 0 },
};

struct outcome {
	int	rc, err, status, keep;
	char	*body, *ctype;
	size_t	rest;
	int	busy;
};

static void
run(const struct hcase *c, const size_t *cuts, size_t ncuts, struct outcome *o)
{
	struct httpresp r;
	size_t len = strlen(c->in), at = 0, used, consumed = 0;
	int rc = HR_MORE;
	httpresp_init(&r, 256, 1024, c->head);
	for (size_t i = 0; i <= ncuts && rc == HR_MORE; i++) {
		size_t end = i < ncuts ? cuts[i] : len;
		rc = httpresp_feed(&r, c->in + at, end - at, &used);
		consumed += used;
		if (rc != HR_MORE)
			break;
		ck_assert_uint_eq(used, end - at);
		at = end;
	}
	if (rc == HR_MORE && c->eof)
		rc = httpresp_eof(&r);
	o->rc = rc;
	o->err = rc == HR_ERROR ? r.err : 0;
	o->status = r.status;
	o->keep = r.keep_alive;
	o->body = rc == HR_DONE ? strdup(r.body.p) : NULL;
	o->ctype = rc == HR_DONE ? strdup(r.content_type.p ? r.content_type.p : "") : NULL;
	o->rest = rc == HR_DONE ? len - consumed : 0;
	o->busy = r.busy;
	httpresp_free(&r);
}

static void
expect(const struct hcase *c, const struct outcome *o, const char *how)
{
	ck_assert_msg(o->rc == c->rc, "%s (%s): rc %d, want %d", c->name, how, o->rc, c->rc);
	if (c->rc == HR_ERROR)
		ck_assert_msg(o->err == c->err, "%s (%s): err %d (%s), want %d", c->name, how, o->err,
		    httpresp_strerror(o->err), c->err);
	if (c->rc == HR_DONE) {
		ck_assert_msg(o->status == c->status, "%s (%s): status %d", c->name, how, o->status);
		ck_assert_msg(strcmp(o->body, c->body) == 0, "%s (%s): body \"%s\"", c->name, how, o->body);
		ck_assert_msg(strcmp(o->ctype, c->ctype) == 0, "%s (%s): type \"%s\"", c->name, how, o->ctype);
		ck_assert_msg(o->keep == c->keep, "%s (%s): keep %d", c->name, how, o->keep);
		ck_assert_msg(o->rest == c->rest, "%s (%s): rest %zu", c->name, how, o->rest);
	}
	free(o->body);
	free(o->ctype);
}

/* X-Mooncake-Sidecar-Busy, whole and split at every byte; one in an interim response is forgotten. */
START_TEST(test_busy)
{
	static const struct { const char *in; int busy; } b[] = {
		{ "HTTP/1.1 503 Service Unavailable" CRLF "Retry-After: 1" CRLF "x-mooncake-sidecar-BUSY: admin.max_waiters"
		  CRLF "Content-Length: 2" CRLF CRLF "{}", 1 },
		{ "HTTP/1.1 100 Continue" CRLF "X-Mooncake-Sidecar-Busy: 1" CRLF CRLF "HTTP/1.1 503 No" CRLF
		  "Content-Length: 0" CRLF CRLF, 0 },
		{ "HTTP/1.1 503 No" CRLF "X-Mooncake-Sidecar-Busyness: 1" CRLF "Content-Length: 0" CRLF CRLF, 0 },
	};
	for (size_t k = 0; k < sizeof b / sizeof b[0]; k++) {
		size_t len = strlen(b[k].in);
		for (size_t cut = 0; cut <= len; cut++) {
			struct hcase c = { "busy", b[k].in, 0, 0, HR_DONE, 0, 503, b[k].busy ? "{}" : "", "", 1, 0 };
			struct outcome o;
			run(&c, &cut, 1, &o);
			ck_assert_msg(o.rc == HR_DONE && o.busy == b[k].busy, "case %zu split at %zu: rc %d busy %d", k, cut,
			    o.rc, o.busy);
			free(o.body);
			free(o.ctype);
		}
	}
}
END_TEST

START_TEST(test_whole)
{
	struct outcome o;
	run(&cases[_i], NULL, 0, &o);
	expect(&cases[_i], &o, "whole");
}
END_TEST

START_TEST(test_split)
{
	const struct hcase *c = &cases[_i];
	size_t len = strlen(c->in);
	for (size_t cut = 0; cut <= len; cut++) {
		struct outcome o;
		char how[32];
		snprintf(how, sizeof how, "split at %zu", cut);
		run(c, &cut, 1, &o);
		expect(c, &o, how);
	}
}
END_TEST

START_TEST(test_bytewise)
{
	const struct hcase *c = &cases[_i];
	size_t len = strlen(c->in), *cuts = malloc((len + 1) * sizeof *cuts);
	struct outcome o;
	for (size_t i = 0; i < len; i++)
		cuts[i] = i + 1;
	run(c, cuts, len, &o);
	expect(c, &o, "byte by byte");
	free(cuts);
}
END_TEST

/* A body larger than one read arrives in many pieces (the landed proxy gave 502 for these). */
START_TEST(test_large_chunked)
{
	struct httpresp r;
	struct { size_t body, piece; } sizes[] = { { 500, 7 }, { 5000, 1000 }, { 50000, 4096 }, { 200000, 65536 } };
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		char *in = malloc(sizes[s].body * 2 + 256), *p = in;
		size_t n, left = sizes[s].body, used;
		int rc = HR_MORE;
		p += sprintf(p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
		while (left > 0) {
			size_t c = left < 3000 ? left : 3000;
			p += sprintf(p, "%zx\r\n", c);
			memset(p, 'a' + (int)(left % 26), c);
			p += c;
			p += sprintf(p, "\r\n");
			left -= c;
		}
		p += sprintf(p, "0\r\n\r\n");
		n = (size_t)(p - in);
		httpresp_init(&r, 8192, 1 << 20, 0);
		for (size_t at = 0; at < n && rc == HR_MORE; at += sizes[s].piece)
			rc = httpresp_feed(&r, in + at, n - at < sizes[s].piece ? n - at : sizes[s].piece, &used);
		ck_assert_int_eq(rc, HR_DONE);
		ck_assert_uint_eq(r.body.len, sizes[s].body);
		httpresp_free(&r);
		free(in);
	}
}
END_TEST

/* Two responses on one kept-alive connection: reset keeps the limits and parses the next. */
START_TEST(test_reset)
{
	struct httpresp r;
	const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 503 No\r\nContent-Length: 2\r\n\r\nbc";
	size_t used, n = strlen(two);
	httpresp_init(&r, 256, 1024, 0);
	ck_assert_int_eq(httpresp_feed(&r, two, n, &used), HR_DONE);
	ck_assert_str_eq(r.body.p, "a");
	httpresp_reset(&r, 0);
	ck_assert_int_eq(httpresp_feed(&r, two + used, n - used, &used), HR_DONE);
	ck_assert_int_eq(r.status, 503);
	ck_assert_str_eq(r.body.p, "bc");
	httpresp_free(&r);
}
END_TEST

START_TEST(test_nul_and_eof_cap)
{
	struct httpresp r;
	static const char nul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
	char big[1100];
	httpresp_init(&r, 256, 1024, 0);
	ck_assert_int_eq(httpresp_feed(&r, nul, sizeof nul - 1, NULL), HR_ERROR);
	ck_assert_int_eq(r.err, HR_E_SYNTAX);
	httpresp_reset(&r, 0);
	memset(big, 'x', sizeof big);
	ck_assert_int_eq(httpresp_feed(&r, "HTTP/1.1 200 OK\r\n\r\n", 19, NULL), HR_MORE);
	ck_assert_int_eq(httpresp_feed(&r, big, 1000, NULL), HR_MORE);
	ck_assert_int_eq(httpresp_feed(&r, big, 100, NULL), HR_ERROR);
	ck_assert_int_eq(r.err, HR_E_BODY_SIZE);
	httpresp_free(&r);
}
END_TEST

/* A streamed body: a reader that uses what has come after every piece sees the whole body, split at
 * every byte, and the cap counts only what it has not used. */
START_TEST(test_consume)
{
	static const char in[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n";
	size_t n = sizeof in - 1, hdr = strstr(in, "\r\n\r\n") + 4 - in;
	for (size_t cut = 0; cut <= n; cut++) {
		struct httpresp r;
		struct buf got = { 0 };
		size_t at[2] = { cut, n }, from = 0;
		int rc = HR_MORE;
		httpresp_init(&r, 256, 11, 0);
		for (int k = 0; k < 2; k++) {
			rc = httpresp_feed(&r, in + from, at[k] - from, NULL);
			from = at[k];
			ck_assert_int_ne(rc, HR_ERROR);
			ck_assert_int_eq(httpresp_in_body(&r), from >= hdr);
			if (httpresp_in_body(&r)) {
				ck_assert_int_eq(r.status, 200);
				ck_assert_str_eq(r.content_type.p, "text/event-stream");
				if (r.body.len > 0)	/* (no body yet: body.p may still be NULL) */
					buf_add(&got, r.body.p, r.body.len);
				httpresp_consume(&r, r.body.len);
				ck_assert_uint_eq(r.body.len, 0);
			}
		}
		ck_assert_int_eq(rc, HR_DONE);
		ck_assert_str_eq(got.p, "hello world");
		buf_free(&got);
		httpresp_free(&r);
	}
	{	/* the cap counts what is left: 8 bytes, used, then 8 more under a cap of 11 */
		struct httpresp r;
		httpresp_init(&r, 256, 11, 0);
		ck_assert_int_eq(httpresp_feed(&r, "HTTP/1.1 200 OK\r\n\r\n12345678", 27, NULL), HR_MORE);
		httpresp_consume(&r, 8);
		ck_assert_int_eq(httpresp_feed(&r, "abcdefgh", 8, NULL), HR_MORE);
		ck_assert_str_eq(r.body.p, "abcdefgh");
		ck_assert_int_eq(httpresp_feed(&r, "ijkl", 4, NULL), HR_ERROR);
		httpresp_free(&r);
	}
}
END_TEST

START_TEST(test_header_cap)
{
	struct httpresp r;
	char in[600];
	snprintf(in, sizeof in, "HTTP/1.1 200 OK\r\nX-Big: %0300d\r\n\r\n", 0);
	httpresp_init(&r, 256, 1024, 0);
	ck_assert_int_eq(httpresp_feed(&r, in, strlen(in), NULL), HR_ERROR);
	ck_assert_int_eq(r.err, HR_E_HEADER_SIZE);
	httpresp_free(&r);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("httpresp");
	TCase *tc = tcase_create("httpresp");
	int n = (int)(sizeof cases / sizeof cases[0]);
	tcase_add_test(tc, test_busy);
	tcase_add_loop_test(tc, test_whole, 0, n);
	tcase_add_loop_test(tc, test_split, 0, n);
	tcase_add_loop_test(tc, test_bytewise, 0, n);
	tcase_add_test(tc, test_large_chunked);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_header_cap);
	tcase_add_test(tc, test_consume);
	tcase_add_test(tc, test_nul_and_eof_cap);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
