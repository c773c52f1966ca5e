#ifndef COMMON_PROM_H
#define COMMON_PROM_H
#include "buf.h"

/* Prometheus text exposition format 0.0.4. */

/* "# HELP name help" and "# TYPE name type", once per family. */
void	prom_family(struct buf *, const char *, const char *, const char *);
/* One sample: name{k1="v1",...} value. labels is a NULL-terminated list of key, value pairs;
 * values are escaped (backslash, double quote, newline). */
void	prom_sample(struct buf *, const char *, const char *const *, double);
/* Escape a label value into b. */
void	prom_escape(struct buf *, const char *);
#endif
