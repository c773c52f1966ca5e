/*
 * stamp FILE: append "<pid> <CLOCK_MONOTONIC ns>" to FILE, then wait for a signal. Linked
 * statically so that its exec costs no dynamic linking: benchmarks of how fast processes are
 * started measure the starter, not the started program's loader.
 */
#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec ts;
	char line[64];
	int fd, n;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (argc < 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
		return 1;
	n = snprintf(line, sizeof line, "%ld %lld\n", (long)getpid(),
	    (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (write(fd, line, (size_t)n) != n)
		return 1;
	close(fd);
	for (;;)
		pause();
}
