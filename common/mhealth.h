#ifndef COMMON_MHEALTH_H
#define COMMON_MHEALTH_H
#include <stddef.h>

/* What the master's admin GET /health says: {"role": "leader"|"standby", "service_ready": bool,
 * "leader_address": "host:port", ...}. A master without HA says no role: it leads. */
struct mhealth {
	char	role[16];
	char	leader[264];		/* host:port, "" when it names none */
	int	service_ready;
};

/* 0 with h filled, or -1 when the body is not a JSON object (h then says a leader, not ready). */
int	mhealth_parse(const char *, size_t, struct mhealth *);
/* Whether the master can be pointed at: ready itself, or a standby naming a leader. */
int	mhealth_usable(const struct mhealth *);
#endif
