#include "config.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "httpresp.h"

#define CHUNK_LINE_MAX	1024	/* a chunk-size line with its extensions */

enum {
	S_STATUS, S_HEADER, S_BODY_CL, S_BODY_EOF, S_CHUNK_SIZE, S_CHUNK_DATA, S_CHUNK_CRLF,
	S_TRAILER, S_DONE, S_ERROR
};

void
httpresp_init(struct httpresp *r, size_t max_header, size_t max_body, int head)
{
	memset(r, 0, sizeof *r);
	r->max_header = max_header;
	r->max_body = max_body;
	httpresp_reset(r, head);
}

static void
clear(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

/* Forget the headers of an interim (1xx) response, keep what the caller asked for. */
static void
reset_headers(struct httpresp *r)
{
	r->status = 0;
	r->chunked = r->te = r->conn_close = r->conn_keep = r->busy = 0;
	r->content_length = -1;
	r->left = 0;
	clear(&r->content_type);
	clear(&r->line);
	clear(&r->hdr);
	r->state = S_STATUS;
}

void
httpresp_reset(struct httpresp *r, int head)
{
	reset_headers(r);
	r->head = head;
	r->keep_alive = 0;
	r->err = HR_OK;
	r->header_bytes = 0;
	clear(&r->body);
}

void
httpresp_free(struct httpresp *r)
{
	buf_free(&r->body);
	buf_free(&r->content_type);
	buf_free(&r->line);
	buf_free(&r->hdr);
}

const char *
httpresp_strerror(int e)
{
	switch (e) {
	case HR_OK: return "no error";
	case HR_E_SYNTAX: return "malformed HTTP response";
	case HR_E_STATUS: return "HTTP status outside 100..599";
	case HR_E_HEADER_SIZE: return "response headers too large";
	case HR_E_BODY_SIZE: return "response body too large";
	case HR_E_TRUNCATED: return "connection closed before a whole response";
	}
	return "unknown error";
}

static int
fail(struct httpresp *r, int err)
{
	r->state = S_ERROR;
	r->err = err;
	return HR_ERROR;
}

static int
tchar(int ch)
{
	return isalnum(ch) || (ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* Does the comma-separated list v (length n) hold token t? With last, only as its last element. */
static int
has_token(const char *v, size_t n, const char *t, int last)
{
	size_t tl = strlen(t);
	int found = 0;
	for (size_t i = 0; i < n; ) {
		size_t s, e;
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e == s)
			continue;
		found = e - s == tl && strncasecmp(v + s, t, tl) == 0 ? 1 : last ? 0 : found;
	}
	return found;
}

static int
parse_status(struct httpresp *r, const char *l, size_t n)
{
	if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)l[7]) || l[8] != ' ')
		return fail(r, HR_E_SYNTAX);
	for (int i = 9; i < 12; i++)
		if (!isdigit((unsigned char)l[i]))
			return fail(r, HR_E_SYNTAX);
	if (n > 12 && l[12] != ' ')
		return fail(r, HR_E_SYNTAX);
	r->minor = l[7] - '0';
	r->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	if (r->status < 100 || r->status > 599 || r->status == 101)
		return fail(r, HR_E_STATUS);
	r->state = S_HEADER;
	return HR_MORE;
}

/* One whole header (folded lines already joined). */
static int
header(struct httpresp *r, const char *h, size_t n)
{
	const char *colon = memchr(h, ':', n), *v, *e = h + n;
	size_t nl;
	if (colon == NULL || colon == h)
		return fail(r, HR_E_SYNTAX);
	nl = (size_t)(colon - h);
	for (size_t i = 0; i < nl; i++)
		if (!tchar((unsigned char)h[i]))
			return fail(r, HR_E_SYNTAX);
	for (v = colon + 1; v < e && (*v == ' ' || *v == '\t'); v++)
		;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (nl == 14 && strncasecmp(h, "content-length", nl) == 0) {
		unsigned long long x = 0;
		if (v == e)
			return fail(r, HR_E_SYNTAX);
		for (const char *p = v; p < e; p++) {
			if (!isdigit((unsigned char)*p) || x > (1ULL << 50))
				return fail(r, HR_E_SYNTAX);
			x = x * 10 + (unsigned)(*p - '0');
		}
		if (r->content_length >= 0 && (unsigned long long)r->content_length != x)
			return fail(r, HR_E_SYNTAX);
		r->content_length = (long long)x;
	} else if (nl == 17 && strncasecmp(h, "transfer-encoding", nl) == 0) {
		r->te = 1;
		r->chunked = has_token(v, (size_t)(e - v), "chunked", 1);
	} else if (nl == 10 && strncasecmp(h, "connection", nl) == 0) {
		r->conn_close |= has_token(v, (size_t)(e - v), "close", 0);
		r->conn_keep |= has_token(v, (size_t)(e - v), "keep-alive", 0);
	} else if (nl == 12 && strncasecmp(h, "content-type", nl) == 0) {
		clear(&r->content_type);
		buf_add(&r->content_type, v, (size_t)(e - v));
	} else if (nl == sizeof HTTPRESP_BUSY - 1 && strncasecmp(h, HTTPRESP_BUSY, nl) == 0)
		r->busy = 1;
	return HR_MORE;
}

static int
done(struct httpresp *r)
{
	r->state = S_DONE;
	if (r->body.p == NULL)
		buf_add(&r->body, "", 0);
	return HR_DONE;
}

/* The empty line after the headers: decide how the body is delimited. */
static int
headers_end(struct httpresp *r)
{
	if (r->status < 200) {		/* 100 Continue, 102, 103: the real answer follows */
		reset_headers(r);
		return HR_MORE;
	}
	r->keep_alive = r->minor >= 1 ? !r->conn_close : r->conn_keep && !r->conn_close;
	if (r->head || r->status == 204 || r->status == 304)
		return done(r);
	if (r->te) {
		if (r->chunked) {
			r->state = S_CHUNK_SIZE;
			return HR_MORE;
		}
		r->keep_alive = 0;
		r->state = S_BODY_EOF;
		return HR_MORE;
	}
	if (r->content_length >= 0) {
		if ((unsigned long long)r->content_length > r->max_body)
			return fail(r, HR_E_BODY_SIZE);
		if (r->content_length == 0)
			return done(r);
		r->left = (unsigned long long)r->content_length;
		r->state = S_BODY_CL;
		return HR_MORE;
	}
	r->keep_alive = 0;
	r->state = S_BODY_EOF;
	return HR_MORE;
}

static int
chunk_size(struct httpresp *r, const char *l, size_t n)
{
	unsigned long long x = 0;
	size_t i = 0;
	for (; i < n && isxdigit((unsigned char)l[i]); i++) {
		if (i >= 15)
			return fail(r, HR_E_SYNTAX);
		x = x * 16 + (unsigned)(isdigit((unsigned char)l[i]) ? l[i] - '0' :
		    tolower((unsigned char)l[i]) - 'a' + 10);
	}
	if (i == 0)
		return fail(r, HR_E_SYNTAX);
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < n && l[i] != ';')
		return fail(r, HR_E_SYNTAX);
	if (x == 0) {
		r->state = S_TRAILER;
		r->header_bytes = 0;
		return HR_MORE;
	}
	if (x > r->max_body || r->body.len + x > r->max_body)
		return fail(r, HR_E_BODY_SIZE);
	r->left = x;
	r->state = S_CHUNK_DATA;
	return HR_MORE;
}

/* A whole line (without its LF, and without a CR before it) in a line-reading state; next is the
 * byte after it, or -1 when it has not arrived yet. */
static int
line(struct httpresp *r, const char *l, size_t n, int next)
{
	int rc;
	switch (r->state) {
	case S_STATUS:
		if (n == 0 && r->header_bytes <= 2)
			return HR_MORE;		/* tolerate one stray empty line before the status */
		return parse_status(r, l, n);
	case S_HEADER:
		if (n > 0 && (l[0] == ' ' || l[0] == '\t')) {	/* obs-fold: joins the header before */
			if (r->hdr.len == 0)
				return fail(r, HR_E_SYNTAX);
			buf_add(&r->hdr, " ", 1);
			buf_add(&r->hdr, l, n);
			return HR_MORE;
		}
		if (r->hdr.len > 0) {
			rc = header(r, r->hdr.p, r->hdr.len);
			clear(&r->hdr);
			if (rc == HR_ERROR)
				return rc;
		}
		if (n == 0)
			return headers_end(r);
		if (next >= 0 && next != ' ' && next != '\t')
			return header(r, l, n);		/* no folded line follows: no copy */
		buf_add(&r->hdr, l, n);
		return HR_MORE;
	case S_CHUNK_SIZE:
		return chunk_size(r, l, n);
	case S_CHUNK_CRLF:
		if (n != 0)
			return fail(r, HR_E_SYNTAX);
		r->state = S_CHUNK_SIZE;
		return HR_MORE;
	case S_TRAILER:
		return n == 0 ? done(r) : HR_MORE;
	}
	return fail(r, HR_E_SYNTAX);
}

static int
line_state(int s)
{
	return s == S_STATUS || s == S_HEADER || s == S_CHUNK_SIZE || s == S_CHUNK_CRLF || s == S_TRAILER;
}

int
httpresp_feed(struct httpresp *r, const char *p, size_t n, size_t *used)
{
	size_t i = 0;
	int rc = HR_MORE;
	while (i < n && rc == HR_MORE) {
		/* A header kept for a possible folded line: the first byte of the next line decides,
		 * so it is checked at the same point however the input was split. */
		if (r->state == S_HEADER && r->hdr.len > 0 && r->line.len == 0 && p[i] != ' ' &&
		    p[i] != '\t') {
			rc = header(r, r->hdr.p, r->hdr.len);
			clear(&r->hdr);
			continue;
		}
		if (line_state(r->state)) {
			const char *nl = memchr(p + i, '\n', n - i);
			if (nl != NULL && r->line.len == 0) {
				/* the whole line is here: parse it where it lies */
				size_t take = (size_t)(nl - (p + i)) + 1, ll = take - 1;
				size_t cap = r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ? CHUNK_LINE_MAX :
				    r->max_header;
				const char *l = p + i;
				r->header_bytes += take;
				if (r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ? take > cap :
				    r->header_bytes > cap) {
					rc = fail(r, r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ?
					    HR_E_SYNTAX : HR_E_HEADER_SIZE);
					break;
				}
				i += take;
				if (ll > 0 && l[ll - 1] == '\r')
					ll--;
				if (memchr(l, '\0', ll) != NULL) {
					rc = fail(r, HR_E_SYNTAX);
					break;
				}
				rc = line(r, l, ll, i < n ? (unsigned char)p[i] : -1);
				continue;
			}
			size_t take = nl ? (size_t)(nl - (p + i)) + 1 : n - i;
			size_t cap = r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ? CHUNK_LINE_MAX :
			    r->max_header;
			r->header_bytes += take;
			if (r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ?
			    r->line.len + take > cap : r->header_bytes > cap) {
				rc = fail(r, r->state == S_CHUNK_SIZE || r->state == S_CHUNK_CRLF ?
				    HR_E_SYNTAX : HR_E_HEADER_SIZE);
				break;
			}
			buf_add(&r->line, p + i, take);
			i += take;
			if (nl == NULL)
				break;
			size_t ll = r->line.len - 1;
			if (ll > 0 && r->line.p[ll - 1] == '\r')
				ll--;
			if (memchr(r->line.p, '\0', ll) != NULL) {
				rc = fail(r, HR_E_SYNTAX);
				break;
			}
			rc = line(r, r->line.p, ll, i < n ? (unsigned char)p[i] : -1);
			clear(&r->line);
			continue;
		}
		if (r->state == S_BODY_CL || r->state == S_CHUNK_DATA) {
			size_t take = n - i < r->left ? n - i : (size_t)r->left;
			buf_add(&r->body, p + i, take);
			i += take;
			r->left -= take;
			if (r->left == 0)
				rc = r->state == S_BODY_CL ? done(r) : (r->state = S_CHUNK_CRLF, HR_MORE);
			continue;
		}
		if (r->state == S_BODY_EOF) {
			if (r->body.len + (n - i) > r->max_body) {
				rc = fail(r, HR_E_BODY_SIZE);
				break;
			}
			buf_add(&r->body, p + i, n - i);
			i = n;
			continue;
		}
		rc = r->state == S_DONE ? HR_DONE : HR_ERROR;
		break;
	}
	if (r->state == S_DONE)
		rc = HR_DONE;
	else if (r->state == S_ERROR)
		rc = HR_ERROR;
	if (used != NULL)
		*used = i;
	return rc;
}

int
httpresp_in_body(const struct httpresp *r)
{
	return r->state >= S_BODY_CL && r->state <= S_DONE;
}

void
httpresp_consume(struct httpresp *r, size_t n)
{
	if (n > r->body.len)
		n = r->body.len;
	if (n == 0)
		return;
	memmove(r->body.p, r->body.p + n, r->body.len - n + 1);
	r->body.len -= n;
}

int
httpresp_eof(struct httpresp *r)
{
	if (r->state == S_BODY_EOF)
		return done(r);
	if (r->state == S_DONE)
		return HR_DONE;
	if (r->state == S_ERROR)
		return HR_ERROR;
	return fail(r, HR_E_TRUNCATED);
}
