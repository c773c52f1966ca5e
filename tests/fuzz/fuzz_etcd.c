/* etcd's answers: no crash; a value taken is NUL-terminated within its buffer, without a NUL inside,
 * and its lease is decimal; base64 decodes what it encoded. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "etcdkv.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char v[ETCDKV_VALUE_MAX + 1], l[ETCDKV_LEASE_MAX], err[256], enc[4096], dec[3072];
	int status = len > 0 && data[0] & 1 ? 404 : 200, rc;
	rc = etcdkv_range_answer(status, (const char *)data, len, v, sizeof v, l, sizeof l, err, sizeof err);
	if (rc == 1 && (strlen(l) == 0 || strspn(l, "0123456789") != strlen(l) || strlen(v) > ETCDKV_VALUE_MAX))
		abort();
	rc = etcdkv_revoke_answer(status, (const char *)data, len, err, sizeof err);
	if (rc < -1 || rc > 1)
		abort();
	if (len <= 3000 && etcdkv_b64_encode(data, len, enc, sizeof enc) > 0 &&
	    (etcdkv_b64_decode(enc, strlen(enc), dec, sizeof dec) != (long)len || memcmp(dec, data, len) != 0))
		abort();
	(void)etcdkv_b64_decode((const char *)data, len, dec, sizeof dec);
	return 0;
}
