#include "config.h"
#include <string.h>
#include "query.h"

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
query_unescape(char *s)
{
	char *w = s;
	for (char *p = s; *p; p++) {
		int hi, lo;
		if (*p != '%') {
			*w++ = *p;
			continue;
		}
		if ((hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
			char ch = (char)(hi * 16 + lo);
			*w++ = ch == '\0' ? 0x7f : ch;
			p += 2;
		} else
			*w++ = 0x7f;
	}
	*w = '\0';
	return (size_t)(w - s);
}

int
query_has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

int
query_forward(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int hi, lo;
		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c != '%')
			continue;
		if (i + 2 >= n || (hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0)
			return -1;
		if (hi * 16 + lo < 0x20 || hi * 16 + lo == 0x7f)
			return -1;
		i += 2;
	}
	for (size_t i = 0; i < n; i++)
		buf_add(b, s[i] == ' ' ? "+" : s + i, 1);
	return 0;
}

long
query_ms(const char *s, long def, long max)
{
	long v = 0;
	if (s == NULL || *s == '\0' || strlen(s) > 12)
		return def;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return def;
		v = v * 10 + (*p - '0');
	}
	return v > max ? max : v;
}

void
query_escape(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-._~,:", c))
			buf_add(b, s, 1);
		else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			buf_add(b, e, 3);
		}
	}
}
