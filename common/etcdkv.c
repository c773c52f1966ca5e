#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "etcdkv.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
etcdkv_b64_encode(const void *in, size_t n, char *out, size_t len)
{
	const unsigned char *p = in;
	size_t o = 0;
	if ((n + 2) / 3 * 4 + 1 > len)
		return 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

long
etcdkv_b64_decode(const char *in, size_t n, char *out, size_t len)
{
	size_t o = 0, pad = 0;
	unsigned v = 0;
	if (n % 4 != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *c = in[i] != '\0' ? strchr(b64, in[i]) : NULL;
		if (in[i] == '=' && i >= n - 2 && (i == n - 1 || in[n - 1] == '=')) {
			pad++;
			v <<= 6;
		} else if (c == NULL || pad > 0)
			return -1;
		else
			v = v << 6 | (unsigned)(c - b64);
		if (i % 4 == 3) {
			size_t k = 3 - pad;
			if (o + k + 1 > len)
				return -1;
			for (size_t j = 0; j < k; j++)
				out[o++] = (char)(v >> (16 - 8 * j) & 255);
			v = 0;
		}
	}
	if (o + 1 > len)
		return -1;
	out[o] = '\0';
	return (long)o;
}

size_t
etcdkv_range_request(const char *key, char *out, size_t len)
{
	char k[4 * ETCDKV_VALUE_MAX];
	int n;
	if (etcdkv_b64_encode(key, strlen(key), k, sizeof k) == 0)
		return 0;
	n = snprintf(out, len, "{\"key\":\"%s\"}", k);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* a lease ID as etcd writes it: decimal digits, at most an int64's */
static int
lease_id(const char *s)
{
	size_t n = strspn(s, "0123456789");
	return n > 0 && n == strlen(s) && n < ETCDKV_LEASE_MAX && !(n > 1 && s[0] == '0');
}

size_t
etcdkv_revoke_request(const char *lease, char *out, size_t len)
{
	int n;
	if (!lease_id(lease))
		return 0;
	n = snprintf(out, len, "{\"ID\":\"%s\"}", lease);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* etcd's own error in an answer ({"error": ..., "code": N}, or 3.5's {"code": N, "message": ...}):
 * its gRPC code, or -1 when the answer is none */
static int
grpc_error(json_t *root, char *err, size_t errlen)
{
	json_t *code = json_object_get(root, "code");
	const char *msg = json_string_value(json_object_get(root, "message"));
	if (msg == NULL)
		msg = json_string_value(json_object_get(root, "error"));
	if (!json_is_integer(code))
		return -1;
	snprintf(err, errlen, "etcd: %.200s (code %lld)", msg != NULL ? msg : "an error", (long long)json_integer_value(code));
	return (int)json_integer_value(code);
}

static json_t *
load(int status, const char *body, size_t len, char *err, size_t errlen, int *code)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, 0, &je);
	*code = -1;
	if (root == NULL || !json_is_object(root)) {
		snprintf(err, errlen, "etcd answered HTTP %d with %s", status, root == NULL ? "no JSON" : "no object");
		json_decref(root);
		return NULL;
	}
	if ((*code = grpc_error(root, err, errlen)) >= 0 || status != 200) {
		if (*code < 0)
			snprintf(err, errlen, "etcd answered HTTP %d", status);
		json_decref(root);
		return NULL;
	}
	return root;
}

int
etcdkv_range_answer(int status, const char *body, size_t len, char *value, size_t vlen, char *lease,
    size_t llen, char *err, size_t errlen)
{
	int code, rc = -1;
	json_t *root = load(status, body, len, err, errlen, &code), *kvs, *kv, *v, *l;
	const char *ls;
	char buf[ETCDKV_VALUE_MAX + 1];
	long n;
	if (root == NULL)
		return -1;
	kvs = json_object_get(root, "kvs");
	if (kvs == NULL || (json_is_array(kvs) && json_array_size(kvs) == 0)) {
		rc = 0;
		goto out;
	}
	if (!json_is_array(kvs) || !json_is_object(kv = json_array_get(kvs, 0))) {
		snprintf(err, errlen, "etcd's range answer has no key-value object");
		goto out;
	}
	v = json_object_get(kv, "value");
	l = json_object_get(kv, "lease");
	if (v != NULL && !json_is_string(v)) {
		snprintf(err, errlen, "etcd's value is not a string");
		goto out;
	}
	n = v != NULL ? etcdkv_b64_decode(json_string_value(v), json_string_length(v), buf, sizeof buf) : 0;
	if (n < 0) {
		snprintf(err, errlen, "etcd's value is not base64 of at most %d bytes", ETCDKV_VALUE_MAX);
		goto out;
	}
	if (v == NULL)
		buf[0] = '\0';
	if ((size_t)n != strlen(buf)) {
		snprintf(err, errlen, "etcd's value has a NUL byte");
		goto out;
	}
	ls = json_is_string(l) ? json_string_value(l) : NULL;
	if (l != NULL && (ls == NULL || !lease_id(ls))) {
		snprintf(err, errlen, "etcd's lease is not a decimal lease ID");
		goto out;
	}
	if ((size_t)n + 1 > vlen || strlen(ls != NULL ? ls : "0") + 1 > llen) {
		snprintf(err, errlen, "etcd's value does not fit");
		goto out;
	}
	memcpy(value, buf, (size_t)n + 1);
	snprintf(lease, llen, "%s", ls != NULL ? ls : "0");
	rc = 1;
out:
	json_decref(root);
	return rc;
}

int
etcdkv_revoke_answer(int status, const char *body, size_t len, char *err, size_t errlen)
{
	int code;
	json_t *root = load(status, body, len, err, errlen, &code);
	if (root == NULL)
		return code == 5 || (code < 0 && status == 404) ? 0 : -1;	/* NotFound: no such lease */
	json_decref(root);
	return 1;
}
