#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procnet.h"

size_t
procnet_listeners(const char *text, int port, unsigned long *out, size_t max)
{
	const char *line = strchr(text, '\n');	/* skip the header */
	size_t n = 0;
	while (line != NULL && *++line != '\0') {
		/* "  0: 0100007F:C383 00000000:0000 0A ... uid timeout inode" */
		char local[64], remote[64], st[8];
		unsigned long inode;
		int slot, uid, timeout;
		unsigned long txq, rxq, tr, tm, retr;
		if (sscanf(line, "%d: %63s %63s %7s %lx:%lx %lx:%lx %lx %d %d %lu", &slot, local, remote,
		    st, &txq, &rxq, &tr, &tm, &retr, &uid, &timeout, &inode) == 12) {
			const char *colon = strrchr(local, ':');
			if (colon != NULL && strcmp(st, "0A") == 0 &&
			    strtol(colon + 1, NULL, 16) == port) {
				if (n < max)
					out[n] = inode;
				n++;
			}
		}
		line = strchr(line, '\n');
	}
	return n;
}

unsigned long
procnet_socket_inode(const char *link)
{
	unsigned long inode;
	if (sscanf(link, "socket:[%lu]", &inode) == 1)
		return inode;
	return 0;
}
