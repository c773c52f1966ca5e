#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "memtrim.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

static const char *const unused[] = {
	"libgnutls", "libp11-kit", "libnettle", "libhogweed", "libgmp", "libtasn1", "libidn2",
	"libunistring", "libgcrypt", "libgpg-error", "libffi", "liblzma", "libzstd", "liblz4", NULL
};

static long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = 0;
	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	if (f != NULL)
		fclose(f);
	return kib;
}

long
memtrim_unused_libraries(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	long before = rss_kib();
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long lo, hi;
		char path[256] = "";
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, path) < 2 || path[0] != '/')
			continue;
		const char *base = strrchr(path, '/') + 1;
		for (int i = 0; unused[i] != NULL; i++)
			if (strncmp(base, unused[i], strlen(unused[i])) == 0) {
				madvise((void *)lo, hi - lo, MADV_PAGEOUT);
				break;
			}
	}
	fclose(f);
	return before - rss_kib();
}
