#include "config.h"
#include <string.h>
#include "sse.h"

void
sse_event(struct buf *b, const char *id, const char *data, size_t len)
{
	size_t i = 0;
	buf_puts(b, "id: ");
	buf_puts(b, id);
	buf_puts(b, "\n");
	for (;;) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t n = nl != NULL ? (size_t)(nl - (data + i)) : len - i;
		buf_puts(b, "data: ");
		buf_add(b, data + i, n);
		buf_puts(b, "\n");
		if (nl == NULL)
			break;
		i += n + 1;
	}
	buf_puts(b, "\n");
}

/* The end of the line at p[i]: its length, and *eol the length of its ending (0: not whole yet). */
static size_t
line_at(const char *p, size_t len, size_t i, size_t *eol)
{
	size_t j = i;
	while (j < len && p[j] != '\n' && p[j] != '\r')
		j++;
	*eol = 0;
	if (j == len)
		return j - i;
	if (p[j] == '\n')
		*eol = 1;
	else if (j + 1 < len)		/* a CR: CRLF, or a CR alone */
		*eol = p[j + 1] == '\n' ? 2 : 1;
	return j - i;
}

static void
field(struct sse_event *ev, const char *l, size_t n)
{
	const char *colon = memchr(l, ':', n);
	size_t klen = colon != NULL ? (size_t)(colon - l) : n;
	const char *v = colon != NULL ? colon + 1 : l + n;
	size_t vlen = (size_t)(l + n - v);
	if (vlen > 0 && *v == ' ') {
		v++;
		vlen--;
	}
	if (klen == 4 && memcmp(l, "data", 4) == 0) {
		if (ev->has_data)
			buf_add(&ev->data, "\n", 1);
		else
			buf_add(&ev->data, "", 0);
		buf_add(&ev->data, v, vlen);
		ev->has_data = 1;
	} else if (klen == 2 && memcmp(l, "id", 2) == 0 && memchr(v, '\0', vlen) == NULL) {
		if (vlen < sizeof ev->id) {
			memcpy(ev->id, v, vlen);
			ev->id[vlen] = '\0';
		} else
			ev->id[0] = '\0';
	}
}

size_t
sse_next(const char *p, size_t len, struct sse_event *ev)
{
	size_t i = 0, n, eol, end;
	ev->has_data = 0;
	ev->id[0] = '\0';
	ev->data.len = 0;
	if (ev->data.p != NULL)
		ev->data.p[0] = '\0';
	/* a first pass finds the blank line, so that nothing is filled for an event not yet whole */
	for (;;) {
		n = line_at(p, len, i, &eol);
		if (eol == 0)
			return 0;
		if (n == 0)
			break;
		i += n + eol;
	}
	end = i + eol;
	for (size_t j = 0; j < i; ) {
		n = line_at(p, len, j, &eol);
		if (n > 0 && p[j] != ':')	/* a line starting with a colon is a comment */
			field(ev, p + j, n);
		j += n + eol;
	}
	return end;
}

void
sse_event_free(struct sse_event *ev)
{
	buf_free(&ev->data);
}
