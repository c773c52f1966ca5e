/* An event stream as a follower reads it from its head: no crash, no read outside the input; an
 * event taken is re-framed and read back the same. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sse_event ev = { 0 }, back = { 0 };
	const char *p = (const char *)data;
	size_t n, off = 0;
	while ((n = sse_next(p + off, len - off, &ev)) > 0) {
		if (n > len - off)
			abort();
		off += n;
		if (ev.has_data && memchr(ev.data.p, '\0', ev.data.len) == NULL) {
			struct buf b = { 0 };
			sse_event(&b, ev.id, ev.data.p, ev.data.len);
			if (sse_next(b.p, b.len, &back) != b.len || !back.has_data || strcmp(back.id, ev.id) != 0 ||
			    back.data.len != ev.data.len || memcmp(back.data.p, ev.data.p, ev.data.len) != 0)
				abort();
			buf_free(&b);
		}
	}
	sse_event_free(&ev);
	sse_event_free(&back);
	return 0;
}
