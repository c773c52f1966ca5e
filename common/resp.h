#ifndef COMMON_RESP_H
#define COMMON_RESP_H
/*
 * Redis's protocol (RESP2), as far as the sidecar speaks it to an HA backend: a command as an
 * array of bulk strings, and one reply read from what has arrived so far. Pure: no I/O.
 */
#include <stddef.h>
#include "buf.h"

enum resp_type { RESP_SIMPLE = 1, RESP_ERROR, RESP_INTEGER, RESP_BULK, RESP_NIL, RESP_ARRAY };

#define RESP_ELEMS	8	/* the elements of an array reply kept (bulk, simple, nil, integer) */
#define RESP_DEPTH	8	/* arrays nested deeper are refused */
#define RESP_BULK_MAX	(512L * 1024 * 1024)	/* Redis's own limit of a bulk string */

struct resp_elem {
	int		 type;		/* enum resp_type; RESP_ARRAY for a nested one (not kept) */
	const char	*s;		/* into the input, not NUL-terminated; NULL for nil and arrays */
	size_t		 len;
	long long	 integer;
};

struct resp_reply {
	int		 type;		/* enum resp_type */
	const char	*s;		/* simple, error, bulk: into the input, not NUL-terminated */
	size_t		 len;
	long long	 integer;	/* integer; array: its length (-1: a nil array, type RESP_NIL) */
	struct resp_elem elem[RESP_ELEMS];	/* an array's first elements */
	size_t		 nelem;		/* how many of them are in elem */
};

/* Append the command argv[0..argc) (each len[i] bytes; len NULL: strlen) to b. */
void	resp_command(struct buf *, int argc, const char *const *argv, const size_t *len);
/* One reply from the start of p[0..n): the bytes it takes (> 0), 0 when more must arrive, or -1
 * when it is not RESP or would take more than max bytes (err says why). max is what the question
 * can get back: a bulk string announced longer is refused at its length line, before its bytes
 * arrive, and so is a reply still incomplete after max bytes, so that a peer cannot make the
 * sidecar buffer more than that. */
long	resp_parse(const char *p, size_t n, size_t max, struct resp_reply *, char *err, size_t errlen);
/* Is element i (of an array reply) the string s? */
int	resp_elem_is(const struct resp_reply *, size_t i, const char *s);
#endif
