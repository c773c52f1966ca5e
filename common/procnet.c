#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procnet.h"

/* Sockets on a local port in a state ("0A" listening, "01" established): their inodes (at most max
 * stored), and how many. */
static size_t
on_port(const char *text, int port, const char *state, unsigned long *out, size_t max)
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
			if (colon != NULL && strcmp(st, state) == 0 &&
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

size_t
procnet_listeners(const char *text, int port, unsigned long *out, size_t max)
{
	return on_port(text, port, "0A", out, max);
}

size_t
procnet_established(const char *text, int port)
{
	return on_port(text, port, "01", NULL, 0);
}

unsigned long
procnet_socket_inode(const char *link)
{
	unsigned long inode;
	if (sscanf(link, "socket:[%lu]", &inode) == 1)
		return inode;
	return 0;
}
