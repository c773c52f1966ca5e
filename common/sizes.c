#include "config.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sizes.h"
#include "xalloc.h"

/* Python's str.strip() and str.lower() for ASCII. */
static char *
clean(const char *in, char **buf)
{
	char *s;
	size_t n;
	*buf = xstrdup(in);
	for (s = *buf; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	s = *buf;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int
store(double v, uint64_t *out, const char *in, char *err, size_t errlen)
{
	if (v >= 18446744073709551616.0) {
		snprintf(err, errlen, "size \"%s\" is too large", in);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

int
size_parse_vllm(const char *in, uint64_t *out, char *err, size_t errlen)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "gb", 1073741824.0 }, { "mb", 1048576.0 }, { "kb", 1024.0 }, { "b", 1.0 },
	};
	char *buf, *s = clean(in, &buf), *num, *end;
	double mult = 1.0, v;
	size_t n = 0;
	int rc = -1;

	while (isdigit((unsigned char)s[n]) || s[n] == '.')
		n++;
	num = xstrndup(s, n);
	s += n;
	while (isspace((unsigned char)*s))
		s++;
	for (size_t i = 0; *s && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(s, units[i].unit) == 0) {
			mult = units[i].mult;
			s += strlen(s);
		}
	/* [\d.]+ then float(): "1.2.3" and "." match the pattern and fail in float() */
	v = n > 0 ? strtod(num, &end) : 0;
	if (n == 0 || *s != '\0' || *end != '\0' || !isfinite(v))
		snprintf(err, errlen, "\"%s\" is not a size vLLM reads: a byte count (a JSON integer) or "
		    "a string of digits and '.' with an optional unit gb, mb, kb or b (any case, "
		    "1024-based), like \"4GB\", \"512 mb\" or \"1.5gb\"", in);
	else
		rc = store(v * mult, out, in, err, errlen);
	free(num);
	free(buf);
	return rc;
}

int
size_parse_sglang(const char *in, uint64_t *out, char *err, size_t errlen)
{
	char *buf, *s = clean(in, &buf);
	size_t n = strlen(s);
	double mult = 1.0;
	int rc = -1;

	if (n >= 2 && strcmp(s + n - 2, "gb") == 0) {
		mult = 1073741824.0;
		s[n -= 2] = '\0';
		while (n > 0 && isspace((unsigned char)s[n - 1]))
			s[--n] = '\0';
	}
	if (n == 0 || strspn(s, "0123456789") != n)
		snprintf(err, errlen, "\"%s\" is not a size SGLang reads: an integer byte count, or an "
		    "integer followed by gb (GiB), like \"4294967296\" or \"4gb\"", in);
	else
		rc = store(strtod(s, NULL) * mult, out, in, err, errlen);
	free(buf);
	return rc;
}
