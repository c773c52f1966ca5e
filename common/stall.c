#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stall.h"

void
stall_check(const struct stall_in *in, struct stall_out *out)
{
	int probe = in->probe_since > 0 && in->now - in->probe_since >= in->probe_timeout;
	int flat = in->flat_since > 0 && in->now - in->flat_since >= in->window;
	memset(out, 0, sizeof *out);
	if (!probe && !flat)
		return;
	out->stalled = 1;
	/* the stall began when its first sign did: the probe was sent, or the counter last moved */
	if (probe && (!flat || in->probe_since <= in->flat_since))
		out->since = in->probe_since;
	else
		out->since = in->flat_since;
	if (probe && flat)
		snprintf(out->why, sizeof out->why, "the lock probe (/batch_query_keys) has not answered for %.1f s, and "
		    "master_ping_requests_total has not moved for %.1f s with clients connected",
		    in->now - in->probe_since, in->now - in->flat_since);
	else if (probe)
		snprintf(out->why, sizeof out->why, "the lock probe (/batch_query_keys) has not answered for %.1f s",
		    in->now - in->probe_since);
	else
		snprintf(out->why, sizeof out->why, "master_ping_requests_total has not moved for %.1f s with clients "
		    "connected", in->now - in->flat_since);
	out->restart = in->restart_after > 0 && in->now - out->since >= in->restart_after;
}

int
stall_metric(const char *text, size_t len, const char *name, double *v)
{
	size_t nl = strlen(name);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t ll = eol ? (size_t)(eol - p) : (size_t)(end - p);
		if (ll > nl + 1 && memcmp(p, name, nl) == 0 && (p[nl] == ' ' || p[nl] == '\t')) {
			char buf[64], *e;
			const char *q = p + nl;
			size_t n;
			while (q < p + ll && (*q == ' ' || *q == '\t'))
				q++;
			n = (size_t)(p + ll - q);
			if (n > 0 && n < sizeof buf) {
				memcpy(buf, q, n);
				buf[n] = '\0';
				buf[strcspn(buf, " \t\r")] = '\0';	/* a timestamp may follow */
				*v = strtod(buf, &e);
				if (e != buf && *e == '\0')
					return 0;
			}
		}
		p = eol ? eol + 1 : end;
	}
	return -1;
}
