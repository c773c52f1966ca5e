#ifndef COMMON_HTTPRESP_H
#define COMMON_HTTPRESP_H
#include <stddef.h>
#include "buf.h"

/*
 * An incremental HTTP/1.x response parser: bytes go in as they arrive, split anywhere, and the result
 * is the same as for the whole response at once. Content-Length, chunked (extensions and trailers
 * skipped), close-delimited bodies, 1xx interim responses, 204/304/HEAD without a body, obs-folded
 * header lines. Pure: no I/O, no allocation beyond its two buffers.
 */

enum httpresp_rc { HR_MORE, HR_DONE, HR_ERROR };

/* The header a sidecar's admin server adds to an answer that says it is busy (at admin.max_waiters),
 * not that the master is down: the asker comes back within milliseconds. */
#define HTTPRESP_BUSY	"X-Mooncake-Sidecar-Busy"

enum httpresp_err {
	HR_OK,
	HR_E_SYNTAX,		/* not HTTP/1.x, a bad header or chunk line */
	HR_E_STATUS,		/* a status outside 100..599, or 101 (no upgrades here) */
	HR_E_HEADER_SIZE,	/* the status line and headers are larger than the cap */
	HR_E_BODY_SIZE,		/* the body is larger than the cap */
	HR_E_TRUNCATED		/* the connection closed before the response was whole */
};

struct httpresp {
	/* results */
	int		 status;
	int		 keep_alive;	/* the connection may carry another request */
	struct buf	 body;
	struct buf	 content_type;	/* empty when the response had none */
	int		 busy;		/* it carried HTTPRESP_BUSY: another sidecar is at a limit of its own */
	int		 err;		/* enum httpresp_err when HR_ERROR was returned */
	/* limits and the request's method */
	size_t		 max_header;
	size_t		 max_body;
	int		 head;
	/* parser state */
	int		 state;
	int		 minor;
	int		 chunked;
	int		 conn_close, conn_keep;
	long long	 content_length;	/* -1: none given */
	unsigned long long left;	/* bytes left of a Content-Length body or of a chunk */
	size_t		 header_bytes;
	struct buf	 line;		/* the line being read */
	struct buf	 hdr;		/* the header being read, with its folded lines */
	int		 te;		/* a Transfer-Encoding header was seen */
};

void	httpresp_init(struct httpresp *, size_t max_header, size_t max_body, int head);
/* Start over for the next response on the same connection, keeping the limits and buffers. */
void	httpresp_reset(struct httpresp *, int head);
void	httpresp_free(struct httpresp *);
/* Feed bytes. *used (may be NULL) tells how many belong to this response: after HR_DONE the rest
 * is the start of whatever the server sent next. */
int	httpresp_feed(struct httpresp *, const char *, size_t, size_t *used);
/* The status line and headers are read, and the body is arriving or whole: status, content_type
 * and busy hold, and body is what came of it so far (a streamed answer). */
int	httpresp_in_body(const struct httpresp *);
/* A streaming reader used the body's first n bytes: they are dropped, and the cap counts only what
 * is left. */
void	httpresp_consume(struct httpresp *, size_t n);
/* The connection closed: HR_DONE for a close-delimited body, HR_ERROR (truncated) otherwise. */
int	httpresp_eof(struct httpresp *);
const char *httpresp_strerror(int);
#endif
