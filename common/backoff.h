#ifndef COMMON_BACKOFF_H
#define COMMON_BACKOFF_H

/* The restart arithmetic of a child or a gang: doubling backoff, reset after a healthy run, and a
 * burst limit over a window of start times. Times in seconds (monotonic). */

/* The delay before the next start after `failures` consecutive failures (1 for the first):
 * initial doubled failures - 1 times, at most max. */
long	backoff_delay(long initial_ms, long max_ms, unsigned failures);
/* Whether a run that became ready at ready_at (0: never) and ended at now lasted reset_after_ms:
 * the failures then count from 0 again. */
int	backoff_reset_due(double ready_at, double now, long reset_after_ms);

struct burst {
	double		*starts;	/* ring of the last `limit` start times */
	unsigned	 limit;
	unsigned	 n;		/* how many the ring holds */
	unsigned	 next;		/* where the next goes; the oldest once full */
};

/* More than limit starts inside window_ms would be one too many: true when the oldest of the last
 * limit starts is still inside it. */
int	burst_exceeded(const struct burst *, double now, long window_ms);
/* Record a start (allocating the ring of `limit` on first use). */
void	burst_record(struct burst *, unsigned limit, double now);
void	burst_free(struct burst *);
#endif
