#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <unistd.h>
#include "atomicfile.h"
#include "ports.h"
#include "procnet.h"

#define MAX_LISTENERS	64

struct listener {
	int		port;
	unsigned long	inode;
};

/* Every TCP socket in LISTEN state, asked of the kernel with sock_diag: unlike /proc/net/tcp it does
 * not format the (often thousands of) TIME_WAIT sockets. Returns -1 when netlink is unavailable. */
static int
listeners_netlink(struct listener *out, size_t max, size_t *n)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	static const int families[] = { AF_INET, AF_INET6 };
	if (fd < 0)
		return -1;
	*n = 0;
	for (size_t f = 0; f < 2; f++) {
		struct {
			struct nlmsghdr		nlh;
			struct inet_diag_req_v2	req;
		} msg = {
			.nlh = { .nlmsg_len = sizeof msg, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
			.req = { .sdiag_family = (uint8_t)families[f], .sdiag_protocol = IPPROTO_TCP,
			    .idiag_states = 1U << 10 /* TCP_LISTEN */ },
		};
		struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
		int done = 0;
		if (sendto(fd, &msg, sizeof msg, 0, (struct sockaddr *)&nl, sizeof nl) < 0) {
			close(fd);
			return -1;
		}
		while (!done) {
			char buf[16384];
			ssize_t r = recv(fd, buf, sizeof buf, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(fd);
				return -1;
			}
			for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)r);
			    h = NLMSG_NEXT(h, r)) {
				if (h->nlmsg_type == NLMSG_DONE) {
					done = 1;
					break;
				}
				if (h->nlmsg_type == NLMSG_ERROR) {
					close(fd);
					return -1;
				}
				struct inet_diag_msg *d = NLMSG_DATA(h);
				if (*n < max)
					out[(*n)++] = (struct listener){ ntohs(d->id.idiag_sport), d->idiag_inode };
			}
		}
	}
	close(fd);
	return 0;
}

/* Inodes of the sockets listening on port: netlink, or /proc/net/tcp{,6} where it is not allowed.
 * With all (from listeners_netlink, total of them) the dump is not made again. */
static size_t
listeners_from(const struct listener *all, size_t total, int port, unsigned long *inodes, size_t max)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	size_t n = 0;
	if (all != NULL) {
		for (size_t i = 0; i < total; i++)
			if (all[i].port == port && n < max)
				inodes[n++] = all[i].inode;
		return n;
	}
	for (size_t i = 0; i < 2; i++) {
		char *text = file_read(files[i], NULL);
		if (text != NULL) {
			n += procnet_listeners(text, port, inodes + n, max - n);
			if (n > max)
				n = max;
			free(text);
		}
	}
	return n;
}

/* One netlink dump of every listener (NULL where netlink is not allowed: listeners_from then reads
 * /proc/net/tcp{,6}). */
static const struct listener *
listeners_dump(size_t *total)
{
	static struct listener all[1024];
	*total = 0;
	return listeners_netlink(all, sizeof all / sizeof all[0], total) == 0 ? all : NULL;
}

static size_t
listeners(int port, unsigned long *inodes, size_t max)
{
	size_t total;
	const struct listener *all = listeners_dump(&total);
	return listeners_from(all, total, port, inodes, max);
}

static int
in_set(const unsigned long *set, size_t n, unsigned long inode)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == inode)
			return 1;
	return 0;
}

/* The socket inodes process pid holds (at most max). */
static size_t
pid_socket_inodes(const char *pid, unsigned long *out, size_t max)
{
	char path[300], link[64];
	DIR *d;
	struct dirent *de;
	size_t n = 0;
	snprintf(path, sizeof path, "/proc/%s/fd", pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		char fdpath[600];
		ssize_t r;
		unsigned long ino;
		snprintf(fdpath, sizeof fdpath, "%s/%s", path, de->d_name);
		r = readlink(fdpath, link, sizeof link - 1);
		if (r > 0) {
			link[r] = '\0';
			if ((ino = procnet_socket_inode(link)) != 0)
				out[n++] = ino;
		}
	}
	closedir(d);
	return n;
}

/* Does process pid hold a socket with this inode? */
static int
pid_has_inode(const char *pid, unsigned long inode)
{
	static unsigned long own[4096];
	return in_set(own, pid_socket_inodes(pid, own, sizeof own / sizeof own[0]), inode);
}

static pid_t
pid_pgid(const char *pid)
{
	char path[300], *stat, *rp;
	long pgid = -1;
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	if ((stat = file_read(path, NULL)) == NULL)
		return -1;
	/* "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses. */
	if ((rp = strrchr(stat, ')')) != NULL)
		sscanf(rp + 1, " %*c %*d %ld", &pgid);
	free(stat);
	return (pid_t)pgid;
}

static void
pid_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], *c;
	snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
	if ((c = file_read(path, NULL)) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	c[strcspn(c, "\n")] = '\0';
	snprintf(buf, len, "%s", c);
	free(c);
}

/* The pid holding inode, or 0 when /proc does not tell (another user's process, say). */
static pid_t
inode_holder(unsigned long inode)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t pid = 0;
	if (d == NULL)
		return 0;
	while (pid == 0 && (de = readdir(d)) != NULL)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && pid_has_inode(de->d_name, inode))
			pid = (pid_t)atol(de->d_name);
	closedir(d);
	return pid;
}

static void
describe_holder(unsigned long inode, int port, char *msg, size_t len)
{
	pid_t pid = inode_holder(inode);
	char comm[64];
	if (pid == 0) {
		snprintf(msg, len, "port %d is already in use (holder not visible in /proc)", port);
		return;
	}
	pid_comm(pid, comm, sizeof comm);
	snprintf(msg, len, "port %d is already in use by pid %ld (%s)", port, (long)pid, comm);
}

int
ports_check_free(int port, char *msg, size_t len)
{
	unsigned long inodes[MAX_LISTENERS];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	    .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd, one = 1, busy;

	/* A wildcard bind conflicts with any listener on the port; /proc is read only to name it. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	busy = bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 && errno == EADDRINUSE;
	close(fd);
	if (!busy)
		return 0;
	if (listeners(port, inodes, MAX_LISTENERS) > 0)
		describe_holder(inodes[0], port, msg, len);
	else
		snprintf(msg, len, "port %d is already in use", port);
	return -1;
}

pid_t
ports_holder(int port)
{
	unsigned long inodes[MAX_LISTENERS];
	return listeners(port, inodes, MAX_LISTENERS) > 0 ? inode_holder(inodes[0]) : 0;
}

static int
port_owned(pid_t pgid, int port, const struct listener *all, size_t total, const unsigned long *own,
    size_t nown, char *msg, size_t len)
{
	unsigned long inodes[MAX_LISTENERS];
	size_t n = listeners_from(all, total, port, inodes, MAX_LISTENERS);

	if (n == 0) {
		snprintf(msg, len, "nothing listens on port %d", port);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		int mine = in_set(own, nown, inodes[i]);
		if (!mine) {
			/* A wrapper may have forked the real server: accept any process of the group. */
			DIR *d = opendir("/proc");
			struct dirent *de;
			while (!mine && d != NULL && (de = readdir(d)) != NULL)
				if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
				    pid_pgid(de->d_name) == pgid)
					mine = pid_has_inode(de->d_name, inodes[i]);
			if (d != NULL)
				closedir(d);
		}
		if (!mine) {
			describe_holder(inodes[i], port, msg, len);
			return 0;
		}
	}
	return 1;
}

int
ports_owned_by(pid_t pgid, const int *ports, size_t nports, char *msg, size_t len)
{
	static unsigned long own[4096];
	size_t total, nown;
	char leader[32];
	/* one dump of the listeners and one look at the leader's descriptors for every port */
	const struct listener *all = listeners_dump(&total);

	snprintf(leader, sizeof leader, "%ld", (long)pgid);
	nown = pid_socket_inodes(leader, own, sizeof own / sizeof own[0]);
	for (size_t k = 0; k < nports; k++)
		if (!port_owned(pgid, ports[k], all, total, own, nown, msg, len))
			return 0;
	return 1;
}


size_t
ports_clients(int port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	size_t n = 0;
	for (size_t i = 0; i < 2; i++) {
		char *text = file_read(files[i], NULL);
		if (text != NULL) {
			n += procnet_established(text, port);
			free(text);
		}
	}
	return n;
}
