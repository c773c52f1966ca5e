#ifndef COMMON_DRAIN_H
#define COMMON_DRAIN_H
#include <stddef.h>
#include "xalloc.h"

/*
 * A drain of this node's segments before its workers stop (mooncake_master 0.3.12's drain jobs):
 * which segments are this node's, the request, and the master's answers. Pure.
 */

/* The names in /get_all_segments's text (one a line, "host:port") whose host is host, appended to
 * out. */
void	drain_segments(const char *, size_t, const char *host, struct strv *out);
/* The body of POST /api/v1/drain_jobs for these segments (malloc'd). */
char	*drain_request(const struct strv *);

struct drain_job {
	char		 id[128];	/* job_id (the master's own form: "N-N") */
	char		 status[32];	/* status_name: CREATED, PLANNING, RUNNING, SUCCEEDED, FAILED, CANCELED */
	long long	 succeeded, failed, blocked, active;	/* units (a key on a segment) */
	long long	 bytes;		/* migrated_bytes */
	char		 message[256];	/* message, or error_message when it failed */
};

/* The JSON answer to POST /api/v1/drain_jobs (job_id, status) or GET /api/v1/drain_jobs/query
 * (status_name and the counts) into j. 0, or -1 with err saying why (not JSON, success false and
 * the master's error_message, no job_id). */
int	drain_job_parse(const char *, size_t, struct drain_job *, char *, size_t);
/* The job has ended: SUCCEEDED, FAILED or CANCELED. */
int	drain_job_ended(const struct drain_job *);
#endif
