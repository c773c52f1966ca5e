#ifndef COMMON_GANGVIEW_H
#define COMMON_GANGVIEW_H
#include <stddef.h>

/*
 * What a sidecar's GET /gangs says, as another node reads it: for each gang (the processes of one
 * endpoint, restarted together) with members on that node, its name, the generation the node
 * knows (the gang's leader node sets it) and how many times a member there has failed.
 * {"node": "n1", "gangs": [{"name": "agg_w0", "generation": 3, "failures": 2}, ...]}
 * The leader's answer also says whether the gang stays down ("state": "fatal" or "stopped") and,
 * while a new generation's members wait for their backoff, in how long they start
 * ("starts_in_ms"); both are optional.
 */

#define GANG_NAME_MAX	64

struct gang_view {
	char		name[GANG_NAME_MAX];
	long long	generation;	/* 1..2^31-1 */
	long long	failures;	/* 0..2^31-1 */
	long long	starts_in_ms;	/* 0..2^31-1, 0 when absent */
	int		over;		/* GANGVIEW_RUNNING, _FATAL or _STOPPED */
};

enum { GANGVIEW_RUNNING, GANGVIEW_FATAL, GANGVIEW_STOPPED };

/* Parse body into at most max entries, and its "etag" (1 to 31 characters of [0-9a-zA-Z-], for
 * the next GET /gangs?since=) into etag ("" when it has none: an older sidecar). Returns how many,
 * or -1 with err saying what is wrong; nothing else in the body is trusted. */
int	gangview_parse(const char *, size_t, struct gang_view *, size_t, char *, size_t, char *, size_t);
/*
 * What a member node tells the gang's leader in each poll of its /gangs, since the leader polls no
 * one: "?node=<name>&failures=<gang>:<count>,<gang>:<count>...", its failure count for every gang the
 * leader leads and it has members of. A name is 1 to 63 of [A-Za-z0-9_.-], a count 0..2^31-1.
 */
struct gang_report {
	char		name[GANG_NAME_MAX];
	long long	failures;
};
/* Parse the failures value into at most max entries: how many, or -1 with err saying what is
 * wrong (nothing of a bad report is taken). An empty value is no entry. */
int	gangview_report_parse(const char *, size_t, struct gang_report *, size_t, char *, size_t);

/* The entry named name among n, or NULL. */
const struct gang_view *gangview_find(const struct gang_view *, size_t, const char *);
#endif
