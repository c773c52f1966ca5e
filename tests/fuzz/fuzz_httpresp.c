/* HTTP responses: no crash, and the input fed whole or split at a point the input chooses gives the
 * same outcome, status and body. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "httpresp.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
parse(const char *d, size_t len, size_t cut, struct httpresp *r)
{
	size_t used;
	int rc;
	httpresp_init(r, 4096, 65536, len > 0 && d[0] == 'H' && len % 7 == 0);
	rc = httpresp_feed(r, d, cut, &used);
	if (rc == HR_MORE)
		rc = httpresp_feed(r, d + cut, len - cut, &used);
	if (rc == HR_MORE)
		rc = httpresp_eof(r);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct httpresp a, b;
	size_t cut = len > 0 ? data[0] % (len + 1) : 0;
	int ra = parse((const char *)data, len, len, &a), rb = parse((const char *)data, len, cut, &b);
	if (ra != rb || (ra == HR_DONE && (a.status != b.status || a.body.len != b.body.len ||
	    memcmp(a.body.p, b.body.p, a.body.len) != 0 || a.keep_alive != b.keep_alive)) ||
	    (ra == HR_ERROR && a.err != b.err))
		abort();
	httpresp_free(&a);
	httpresp_free(&b);
	return 0;
}
