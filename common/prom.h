#ifndef COMMON_PROM_H
#define COMMON_PROM_H
#include "buf.h"

/* Prometheus text exposition format 0.0.4. */

/* "# HELP name help" and "# TYPE name type", once per family. */
void	prom_family(struct buf *, const char *, const char *, const char *);
/* One sample: name{k1="v1",...} value. labels is a NULL-terminated list of key, value pairs;
 * values are escaped (backslash, double quote, newline). */
void	prom_sample(struct buf *, const char *, const char *const *, double);
/* A histogram's counts over ascending upper bounds (at most PROM_HIST_MAX of them). */
#define PROM_HIST_MAX	16
struct prom_hist {
	unsigned long	bucket[PROM_HIST_MAX];	/* observations <= bounds[i] */
	unsigned long	count;
	double		sum;
};
void	prom_hist_observe(struct prom_hist *, const double *, size_t, double);
/* name_bucket{labels...,le="..."} for each bound and +Inf, then name_sum and name_count; labels as
 * prom_sample's (at most 6 pairs). */
void	prom_histogram(struct buf *, const char *, const char *const *, const double *, size_t,
	    const struct prom_hist *);
/* Escape a label value into b. */
void	prom_escape(struct buf *, const char *);
#endif
