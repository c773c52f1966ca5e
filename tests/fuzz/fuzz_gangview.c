/* Another sidecar's /gangs, and a member's report: no crash; what is taken is in range. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gangview.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct gang_view v[8];
	char err[256];
	char etag[32];
	int n = gangview_parse((const char *)data, len, v, 8, err, sizeof err, etag, sizeof etag);
	if (strlen(etag) >= 32 || strcspn(etag, "&=?# %") != strlen(etag) || (n < 0 && etag[0] != '\0'))
		abort();
	for (int i = 0; i < n; i++)
		if (v[i].name[0] == '\0' || strlen(v[i].name) >= GANG_NAME_MAX || v[i].generation < 1 ||
		    v[i].failures < 0)
			abort();
	{	/* the same bytes as a member's report (?failures=) */
		struct gang_report r[8];
		int m = gangview_report_parse((const char *)data, len, r, 8, err, sizeof err);
		for (int i = 0; i < m; i++)
			if (r[i].name[0] == '\0' || strlen(r[i].name) >= GANG_NAME_MAX || r[i].failures < 0 ||
			    r[i].failures > 2147483647 || strcspn(r[i].name, ":,&=?# %") != strlen(r[i].name))
				abort();
	}
	return 0;
}
