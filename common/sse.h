#ifndef COMMON_SSE_H
#define COMMON_SSE_H
#include <stddef.h>
#include "buf.h"

/*
 * Server-sent events (text/event-stream, as the HTML standard defines them), the framing of the
 * admin routes' streamed answers: each event is an "id:" line and one "data:" line per line of the
 * document, ended by a blank line. Pure: no I/O.
 */

#define SSE_CTYPE	"text/event-stream"
#define SSE_ID_MAX	64

/* Append one event to b: the id, then data (len bytes, any of them but NUL) line by line. */
void	sse_event(struct buf *b, const char *id, const char *data, size_t len);

struct sse_event {
	int		 has_data;	/* a "data:" field came: the event is dispatched */
	char		 id[SSE_ID_MAX];	/* its "id:" ("" when none, or when it was too long) */
	struct buf	 data;		/* the data lines joined by LF (the last LF dropped) */
};

/* The first event of p[0..len): the bytes it took (lines up to and including the blank line that
 * ends it, which may hold only comments or nothing), with ev filled (has_data 0 for such a
 * block); 0 when no whole event is there yet, whatever follows. Lines end in LF, CRLF or CR; a CR
 * at the end of p is not taken before the byte after it is known. Fields other than id and data
 * are ignored, and an id holding a NUL is, as the standard says. */
size_t	sse_next(const char *p, size_t len, struct sse_event *ev);
void	sse_event_free(struct sse_event *);
#endif
