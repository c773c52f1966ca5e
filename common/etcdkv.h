#ifndef COMMON_ETCDKV_H
#define COMMON_ETCDKV_H
/*
 * etcd's v3 API as its JSON gateway speaks it (POST /v3/kv/range, POST /v3/lease/revoke on the
 * client port; etcd 3.4 and 3.5), as far as the sidecar asks it of an HA master's leadership: the
 * requests written, the answers read. Keys and values travel base64-encoded, 64-bit integers as
 * strings. Pure: no I/O.
 */
#include <stddef.h>

#define ETCDKV_PATH_RANGE	"/v3/kv/range"
#define ETCDKV_PATH_REVOKE	"/v3/lease/revoke"
#define ETCDKV_VALUE_MAX	512	/* a leader's address, or 0.3.13's warming marker */
#define ETCDKV_LEASE_MAX	24	/* an int64 in decimal */
/* What a master leading in its warmup writes instead of its address (0.3.13 and later, upstream
 * PR #3743): no leader to send clients to yet. */
#define ETCDKV_WARMING		"__mooncake_service_warming__:"

/* The body of a range request for one key: NUL-terminated, in out (at most len bytes): its length,
 * or 0 when it does not fit. */
size_t	etcdkv_range_request(const char *key, char *out, size_t len);
/* The body of a revoke of lease (decimal): as above. */
size_t	etcdkv_revoke_request(const char *lease, char *out, size_t len);
/* A range answer (HTTP status, body): 1 with the key's value (decoded, NUL-terminated) and its lease
 * ("0" when none); 0 when there is no such key; -1 when it is not an answer (err says why: etcd's
 * error, a status, broken JSON or base64, a value over ETCDKV_VALUE_MAX). */
int	etcdkv_range_answer(int status, const char *body, size_t len, char *value, size_t vlen, char *lease,
	    size_t llen, char *err, size_t errlen);
/* A revoke answer: 1 revoked, 0 no such lease (it lapsed, or was revoked already), -1 with why. */
int	etcdkv_revoke_answer(int status, const char *body, size_t len, char *err, size_t errlen);
/* base64 (RFC 4648, padded): encode n bytes into out (NUL-terminated): its length, 0 when it does
 * not fit; decode: the bytes (NUL-terminated), or -1 when not base64 or too long. */
size_t	etcdkv_b64_encode(const void *in, size_t n, char *out, size_t len);
long	etcdkv_b64_decode(const char *in, size_t n, char *out, size_t len);
#endif
