#include "config.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sizes.h"
#include "xalloc.h"

static const struct {
	const char	*suffix;
	double		 mult;
} suffixes[] = {
	{ "kb", 1024.0 }, { "mb", 1048576.0 }, { "gb", 1073741824.0 }, { "tb", 1099511627776.0 },
	{ "k", 1024.0 }, { "m", 1048576.0 }, { "g", 1073741824.0 }, { "t", 1099511627776.0 },
	{ "b", 1.0 },
};

static char *
strip(char *s)
{
	size_t n;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int
size_parse(const char *in, uint64_t *out, char *err, size_t errlen)
{
	char *buf = xstrdup(in), *s, *end;
	double mult = 1.0, v;
	int rc = -1;

	for (s = buf; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	s = strip(buf);
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t n = strlen(s), k = strlen(suffixes[i].suffix);
		if (n >= k && strcmp(s + n - k, suffixes[i].suffix) == 0) {
			s[n - k] = '\0';
			mult = suffixes[i].mult;
			s = strip(s);
			break;
		}
	}
	/* strtod also takes hex, "inf" and "nan"; Mooncake's float() parser rejects the first and
	 * cannot turn the others into a byte count. */
	if (*s == '\0' || strpbrk(s, "xX") != NULL) {
		snprintf(err, errlen, "invalid size \"%s\"", in);
		goto out;
	}
	v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v)) {
		snprintf(err, errlen, "invalid size \"%s\"", in);
		goto out;
	}
	if (v < 0) {
		snprintf(err, errlen, "size \"%s\" is negative", in);
		goto out;
	}
	v *= mult;
	if (v >= 18446744073709551616.0) {
		snprintf(err, errlen, "size \"%s\" is too large", in);
		goto out;
	}
	*out = (uint64_t)v;
	rc = 0;
out:
	free(buf);
	return rc;
}
