/* Query strings: unescape never grows the string, and what the admin server forwards (the decoded
 * text re-encoded) decodes back to the same text. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1), *again, empty[1] = "";
	struct buf b = { NULL, 0, 0 };
	size_t n;
	memcpy(s, data, len);
	s[len] = '\0';
	n = query_unescape(s);
	if (n != strlen(s) || n > len)
		abort();
	if (!query_has_control(s, n)) {
		query_encode(&b, s, n);
		if (b.p != NULL && (strchr(b.p, '&') || strchr(b.p, '=') || strchr(b.p, ' ')))
			abort();
		again = b.p ? b.p : empty;
		if (query_unescape(again) != n || memcmp(again, s, n) != 0)
			abort();
	}
	buf_free(&b);
	free(s);
	return 0;
}
