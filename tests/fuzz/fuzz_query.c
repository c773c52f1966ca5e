/* Query strings: unescape never grows the string; what the admin server forwards is the argument as
 * it came (a space given back as '+'), never holds a control character or a space, and is refused
 * exactly when the argument decodes to a control character. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1), *d = malloc(len + 1);
	struct buf b = { NULL, 0, 0 };
	size_t n;
	int rc;
	memcpy(s, data, len);
	s[len] = '\0';
	len = strlen(s);		/* libmicrohttpd's arguments are C strings */
	memcpy(d, s, len + 1);
	n = query_unescape(d);
	if (n != strlen(d) || n > len)
		abort();
	rc = query_forward(&b, s, len);
	if (rc == 0) {
		if (b.len != len || query_has_control(b.p ? b.p : "", b.len) ||
		    (b.p != NULL && memchr(b.p, ' ', b.len) != NULL))
			abort();
		for (size_t i = 0; i < len; i++)
			if (b.p[i] != (s[i] == ' ' ? '+' : s[i]))
				abort();
		if (query_has_control(d, n))
			abort();
	} else if (rc != -1 || b.len != 0 || !query_has_control(d, n))
		abort();
	buf_free(&b);
	free(s);
	free(d);
	return 0;
}
