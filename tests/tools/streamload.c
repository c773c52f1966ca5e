/*
 * streamload: many event streams in one process, for the fan-out benchmark and its test.
 *
 *   streamload client PORT N PATH   hold N streams of GET PATH on 127.0.0.1:PORT, each from its own
 *                                   loopback address (127.1.x.y, so that a per-address limit is not
 *                                   what is measured), at most 256 connects in flight. Each event's
 *                                   "generation" and "ready" are read from its data (the first
 *                                   members of those names; ready=-1 when there is none, as in
 *                                   /gangs), and its arrival time kept per stream. Prints "held N
 *                                   t=US" once every stream has its first event; on SIGUSR1 and at SIGTERM, per event seen,
 *                                   "event gen=G ready=R streams=K min=US p50=US p99=US max=US" (wall
 *                                   clock microseconds of arrival) and "streams held=H ended=E".
 *   streamload serve PORT           the floor: a trivial epoll server that answers every request
 *                                   with an event stream (chunked, as the sidecar's) and, for each
 *                                   stdin line "GEN READY BYTES", writes one event of BYTES bytes
 *                                   with that generation and ready to every stream; prints
 *                                   "published t=US" before the first write and "written t=US n=K
 *                                   cpu_us=C" after the last (C: its own CPU for the writes).
 *
 * Exit 0; 64 usage; 1 a system call failed.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEYS_MAX	64	/* distinct (generation, ready) events kept */
#define INFLIGHT	256

static volatile sig_atomic_t report, quit;

static void on_usr1(int s) { (void)s; report = 1; }
static void on_term(int s) { (void)s; quit = 1; }

static long long
wall_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static long long
cpu_us(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static void
die(const char *what)
{
	fprintf(stderr, "streamload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- the client ---- */

enum { S_CONNECTING, S_HEADERS, S_SIZE, S_DATA, S_DATA_END, S_PLAIN, S_DONE };

struct stream {
	int		 fd, state, chunked, events;
	long		 left;		/* of the current chunk */
	char		*b;		/* the headers, then the event being read */
	size_t		 len, cap;
	char		 line[24];	/* a chunk-size line */
	size_t		 line_len;
};

struct key {
	long		 gen;
	int		 ready;
	long long	*at;		/* per stream; 0 not yet */
	long		 count;
};

static struct key keys[KEYS_MAX];
static int nkeys;
static long nstreams, held, ended;

static void
add(struct stream *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		if ((s->b = realloc(s->b, s->cap)) == NULL)
			abort();
	}
	memcpy(s->b + s->len, p, n);
	s->len += n;
	s->b[s->len] = '\0';
}

/* The value of the first member called name (a key: followed by ':', not a string value). */
static long
num_after(const char *ev, const char *name, int *found)
{
	const char *p = ev;
	*found = 0;
	while ((p = strstr(p, name)) != NULL) {
		p += strlen(name);
		while (*p == ' ')
			p++;
		if (*p == ':')
			break;
	}
	if (p == NULL)
		return 0;
	*found = 1;
	p++;
	while (*p == ' ')
		p++;
	if (strncmp(p, "true", 4) == 0)
		return 1;
	if (strncmp(p, "false", 5) == 0)
		return 0;
	return strtol(p, NULL, 10);
}

static void
event_seen(struct stream *s, long idx, const char *ev, long long t)
{
	int fg, fr, i;
	long gen = num_after(ev, "\"generation\"", &fg), ready = num_after(ev, "\"ready\"", &fr);
	if (!fg)
		return;
	if (!fr)	/* a document without it (/gangs): its events told apart by generation only */
		ready = -1;
	if (s->events++ == 0)
		held++;
	for (i = 0; i < nkeys && (keys[i].gen != gen || keys[i].ready != ready); i++)
		;
	if (i == nkeys) {
		if (nkeys == KEYS_MAX)
			return;
		keys[i].gen = gen;
		keys[i].ready = (int)ready;
		if ((keys[i].at = calloc((size_t)nstreams, sizeof *keys[i].at)) == NULL)
			abort();
		nkeys++;
	}
	if (keys[i].at[idx] == 0) {
		keys[i].at[idx] = t;
		keys[i].count++;
	}
}

/* Event-stream bytes: whole events ("\n\n") taken from the stream's buffer. */
static void
body(struct stream *s, long idx, const char *p, size_t n, long long t)
{
	char *end;
	add(s, p, n);
	while ((end = strstr(s->b, "\n\n")) != NULL) {
		*end = '\0';
		event_seen(s, idx, s->b, t);
		s->len -= (size_t)(end + 2 - s->b);
		memmove(s->b, end + 2, s->len + 1);
	}
}

static void
feed(struct stream *s, long idx, const char *p, size_t n, long long t)
{
	while (n > 0 && s->state != S_DONE) {
		if (s->state == S_HEADERS) {
			char *e;
			add(s, p, n);
			n = 0;
			if ((e = strstr(s->b, "\r\n\r\n")) == NULL)
				return;
			s->chunked = strcasestr(s->b, "transfer-encoding: chunked") != NULL;
			s->state = s->chunked ? S_SIZE : S_PLAIN;
			size_t rest = s->len - (size_t)(e + 4 - s->b);
			char *tail = malloc(rest + 1);
			if (tail == NULL)
				abort();
			memcpy(tail, e + 4, rest);
			s->len = 0;
			feed(s, idx, tail, rest, t);
			free(tail);
			return;
		} else if (s->state == S_PLAIN) {
			body(s, idx, p, n, t);
			return;
		} else if (s->state == S_SIZE) {
			char c = *p++;
			n--;
			if (c == '\n') {
				s->line[s->line_len] = '\0';
				s->left = strtol(s->line, NULL, 16);
				s->line_len = 0;
				s->state = s->left == 0 ? S_DONE : S_DATA;
			} else if (c != '\r' && s->line_len + 1 < sizeof s->line)
				s->line[s->line_len++] = c;
		} else if (s->state == S_DATA) {
			size_t k = (size_t)s->left < n ? (size_t)s->left : n;
			body(s, idx, p, k, t);
			p += k;
			n -= k;
			if ((s->left -= (long)k) == 0)
				s->state = S_DATA_END;
		} else {	/* S_DATA_END: the CRLF after a chunk */
			if (*p == '\n')
				s->state = S_SIZE;
			p++;
			n--;
		}
	}
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static void
print_report(void)
{
	long long *v = malloc((size_t)nstreams * sizeof *v);
	if (v == NULL)
		abort();
	for (int i = 0; i < nkeys; i++) {
		long k = 0;
		for (long j = 0; j < nstreams; j++)
			if (keys[i].at[j] != 0)
				v[k++] = keys[i].at[j];
		qsort(v, (size_t)k, sizeof *v, cmp_ll);
		if (k > 0)
			printf("event gen=%ld ready=%d streams=%ld min=%lld p50=%lld p99=%lld max=%lld\n", keys[i].gen,
			    keys[i].ready, k, v[0], v[(k - 1) / 2], v[(k * 99 + 99) / 100 - 1], v[k - 1]);
	}
	printf("streams held=%ld ended=%ld\n", held, ended);
	fflush(stdout);
	free(v);
}

static int
start_connect(struct stream *s, long i, int ep, int port)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	struct epoll_event e = { .events = EPOLLIN | EPOLLOUT, .data.u64 = (uint64_t)i };
	int one = 1;
	if ((s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		die("socket");
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(s->fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
	src.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | (uint32_t)((i / 250) << 8) | (uint32_t)(i % 250 + 1));
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons((uint16_t)port);
	if (bind(s->fd, (struct sockaddr *)&src, sizeof src) != 0)
		die("bind");
	if (connect(s->fd, (struct sockaddr *)&dst, sizeof dst) != 0 && errno != EINPROGRESS)
		die("connect");
	s->state = S_CONNECTING;
	return epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &e);
}

static int
client(int port, long n, const char *path)
{
	struct stream *st = calloc((size_t)n, sizeof *st);
	struct epoll_event evs[256];
	char req[1024], buf[65536];
	long next = 0, inflight = 0, said = 0;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (st == NULL || ep < 0)
		die("setup");
	nstreams = n;
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", path);
	while (!quit) {
		while (next < n && inflight < INFLIGHT) {
			if (start_connect(&st[next], next, ep, port) != 0)
				die("epoll_ctl");
			next++;
			inflight++;
		}
		int k = epoll_wait(ep, evs, 256, 100);
		long long t = wall_us();
		for (int j = 0; j < k; j++) {
			long i = (long)evs[j].data.u64;
			struct stream *s = &st[i];
			if (s->state == S_CONNECTING) {
				int err = 0;
				socklen_t el = sizeof err;
				struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)i };
				getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				inflight--;
				if (err != 0 || write(s->fd, req, strlen(req)) != (ssize_t)strlen(req)) {
					fprintf(stderr, "streamload: stream %ld: %s\n", i, strerror(err ? err : errno));
					close(s->fd);
					s->state = S_DONE;
					ended++;
					continue;
				}
				epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &e);
				s->state = S_HEADERS;
				continue;
			}
			for (;;) {
				ssize_t r = read(s->fd, buf, sizeof buf);
				if (r > 0) {
					feed(s, i, buf, (size_t)r, t);
					continue;
				}
				if (r < 0 && (errno == EAGAIN || errno == EINTR))
					break;
				if (s->events > 0)
					held--;
				ended++;
				s->state = S_DONE;
				epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
				close(s->fd);
				break;
			}
		}
		if (!said && held == n) {
			printf("held %ld t=%lld\n", n, wall_us());
			fflush(stdout);
			said = 1;
		}
		if (report) {
			report = 0;
			print_report();
		}
	}
	print_report();
	return 0;
}

/* ---- the floor server ---- */

static int
serve(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct epoll_event e = { .events = EPOLLIN }, evs[256];
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n";
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), ep = epoll_create1(0);
	int *fds = NULL;
	long nfds = 0, cap = 0;
	char buf[4096], line[256], *ev = NULL;
	size_t line_len = 0;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (lfd < 0 || ep < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 4096) != 0)
		die("listen");
	e.data.fd = lfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e);
	e.data.fd = 0;
	epoll_ctl(ep, EPOLL_CTL_ADD, 0, &e);
	printf("serving %d\n", port);
	fflush(stdout);
	while (!quit) {
		int k = epoll_wait(ep, evs, 256, 1000);
		for (int j = 0; j < k; j++) {
			int fd = evs[j].data.fd;
			if (fd == lfd) {
				int c;
				while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					struct epoll_event ce = { .events = EPOLLIN, .data.fd = c };
					setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
					epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
				}
			} else if (fd == 0) {
				ssize_t r = read(0, buf, sizeof buf);
				if (r <= 0)
					return 0;
				for (ssize_t i = 0; i < r; i++) {
					long gen, bytes;
					int ready;
					if (buf[i] != '\n') {
						if (line_len + 1 < sizeof line)
							line[line_len++] = buf[i];
						continue;
					}
					line[line_len] = '\0';
					line_len = 0;
					if (sscanf(line, "%ld %d %ld", &gen, &ready, &bytes) != 3 || bytes < 64 || bytes > 1 << 20)
						continue;
					/* one chunk: its size line, the event (padded to BYTES), CRLF */
					char pre[160];
					int pl = snprintf(pre, sizeof pre, "id: %ld\ndata: {\"generation\": %ld, \"ready\": %s, "
					    "\"pad\": \"", gen, gen, ready ? "true" : "false");
					long pad = bytes - pl - 4;
					if (pad < 0)
						continue;
					free(ev);
					if ((ev = malloc((size_t)bytes + 32)) == NULL)
						abort();
					int hs = snprintf(ev, 32, "%lx\r\n", (unsigned long)bytes);
					memcpy(ev + hs, pre, (size_t)pl);
					memset(ev + hs + pl, 'x', (size_t)pad);
					memcpy(ev + hs + pl + pad, "\"}\n\n\r\n", 6);
					size_t total = (size_t)hs + (size_t)bytes + 2;
					long long t0 = wall_us(), c0 = cpu_us();
					long ok = 0;
					printf("published t=%lld\n", t0);
					for (long f = 0; f < nfds; f++)
						ok += write(fds[f], ev, total) == (ssize_t)total;
					printf("written t=%lld n=%ld cpu_us=%lld\n", wall_us(), ok, cpu_us() - c0);
					fflush(stdout);
				}
			} else {
				ssize_t r = read(fd, buf, sizeof buf);
				if (r <= 0) {
					close(fd);
					for (long f = 0; f < nfds; f++)
						if (fds[f] == fd)
							fds[f] = fds[--nfds];
					continue;
				}
				if (memmem(buf, (size_t)r, "\r\n\r\n", 4) == NULL)
					continue;	/* a request in one read, as this client sends it */
				if (nfds == cap && (fds = realloc(fds, (size_t)(cap = cap * 2 + 1024) * sizeof *fds)) == NULL)
					abort();
				fds[nfds++] = fd;
				char first[160];
				int fl = snprintf(first, sizeof first, "%s", head);
				static const char ev0[] = "id: 0\ndata: {\"generation\": 0, \"ready\": false}\n\n";
				fl += snprintf(first + fl, sizeof first - (size_t)fl, "%zx\r\n%s\r\n", sizeof ev0 - 1, ev0);
				if (write(fd, first, (size_t)fl) != fl)
					continue;
			}
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	if (argc == 5 && strcmp(argv[1], "client") == 0)
		return client(atoi(argv[2]), atol(argv[3]), argv[4]);
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(atoi(argv[2]));
	fprintf(stderr, "usage: streamload client PORT N PATH | streamload serve PORT\n");
	return 64;
}
