/*
 * Small helpers for the integration tests and benchmarks:
 *   testkit freeports N            N distinct free TCP ports on 127.0.0.1
 *   testkit hold PORT [ADDR]       listen on ADDR:PORT (default 127.0.0.1), print "ready", wait for a signal
 *                                  (TESTKIT_HOLD_RETRY_MS=N: retry a busy port for up to N ms)
 *   testkit health-server PORT CONTROL
 *                                  a worker's GET /health on PORT (every address), answered as the file
 *                                  CONTROL says (healthy, unhealthy, hang, exit N); nothing listens
 *                                  for the first FAKE_WORKER_READY_MS; GET /metrics answers as vLLM's
 *                                  MooncakeStoreConnector metrics do (vllm:mooncake_store_operation_*),
 *                                  counting 10 operations a second of each kind since it started
 *   testkit notify-recv PATH       receive sd_notify datagrams on PATH; print "<mono_ns> <pid> <msg>" each
 *   testkit now                    CLOCK_MONOTONIC in ns
 *   testkit alive PID              exit 0 when PID exists and is not a zombie
 *   testkit kill SIG PID           send SIG to PID and print CLOCK_MONOTONIC (ns) taken just before
 *   testkit flood PORT PATH N MS   N concurrent GETs to 127.0.0.1:PORT; after at most MS ms print
 *                                  "CODE COUNT" per status and "unanswered COUNT"
 *   testkit read-endpoints DIR N   read DIR's endpoints.json, mooncake.env and
 *                                  mooncake_store_config.json N times (or until SIGTERM) as a worker
 *                                  should; print what it saw
 *   testkit conns PORT N MODE SEC [SRC,...]
 *                                  hold N connections to 127.0.0.1:PORT for SEC seconds: MODE "idle"
 *                                  sends nothing, "slow" sends a request line then a header byte a
 *                                  second, "/PATH?QUERY" sends one GET of it and reads nothing;
 *                                  from the source addresses SRC in turn (default any); prints
 *                                  "connected N" once they are open, then how many the server closed
 *   testkit token-timing N         time the admin server's bearer-token check of a 64-character
 *                                  token against a guess wrong at its first and at its last
 *                                  character, N tries each, interleaved; print the medians
 *   testkit bcrypt COST PASSWORD   print PASSWORD's bcrypt hash ($2b$, cost COST)
 *   testkit raw PORT FILE          send FILE's bytes to 127.0.0.1:PORT; print the first response line
 *                                  (or "closed"), and how many responses came back
 *   testkit json-get FILE PATH     print the value at PATH (keys and array indices joined by dots,
 *                                  "#" for an array's length) of the JSON in FILE; exit 1 when the file
 *                                  is not JSON or PATH is absent
 *   testkit ep FILE|-              "<generation> <ready 0|1> <master pid>" of an endpoints.json ("none"
 *                                  when empty or missing; exit 1 when it does not parse)
 *   testkit watch-endpoints DIR    on each rename onto DIR/endpoints.json print
 *                                  "<mono_ns> <generation> <ready 0|1>" (until killed)
 *   testkit rtt N                  N one-byte round trips over loopback TCP between two processes
 *                                  (TCP_NODELAY); print the median and the 99th percentile in us:
 *                                  the least a proxy's extra hop to the master can cost
 *   testkit respawn-loop PROG ARG...
 *                                  run PROG again each time it ends: vfork, execvp, waitpid, nothing
 *                                  else (the least a supervisor can do between a death and an exec)
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/inotify.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/tcp.h>
#include <time.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <jansson.h>
#include <crypt.h>
#include "auth.h"

static long long
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Ports below the kernel's ephemeral range (32768 and up here): the thousands of client sockets the
 * storm tests open are bound automatically inside that range and could take a port handed out
 * there between the check and the listener's bind. */
static int
freeports(int n)
{
	int fds[256], got = 0;
	if (n < 1 || n > 256)
		return 2;
	srandom((unsigned)(getpid() ^ now_ns()));
	for (int tries = 0; got < n && tries < 10000; tries++) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY),
		    .sin_port = htons((uint16_t)(10000 + random() % 22000)) };
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0) {
			perror("freeports");
			return 1;
		}
		if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
			close(fd);
			continue;
		}
		fds[got++] = fd;
		printf("%d\n", ntohs(sin.sin_port));
	}
	for (int i = 0; i < got; i++)
		close(fds[i]);
	return got == n ? 0 : 1;
}

/* A listening socket on addr:port, or -1 (said on stderr). */
static int
listen_on(int port, const char *addr, const char *who)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	inet_pton(AF_INET, addr, &sin.sin_addr);
	long long give_up = now_ns() + (getenv("TESTKIT_HOLD_RETRY_MS") ?
	    atoll(getenv("TESTKIT_HOLD_RETRY_MS")) * 1000000LL : 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	/* with TESTKIT_HOLD_RETRY_MS, keep trying while another process has the port */
	while (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
		struct timespec ts = { 0, 10000000 };
		if (errno != EADDRINUSE || now_ns() >= give_up) {
			fprintf(stderr, "%s %s:%d: %s\n", who, addr, port, strerror(errno));
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	if (listen(fd, SOMAXCONN) != 0) {	/* a holder that never accepts must not run out of backlog */
		fprintf(stderr, "%s %s:%d: %s\n", who, addr, port, strerror(errno));
		return -1;
	}
	return fd;
}

static int
hold(int port, const char *addr)
{
	if (listen_on(port, addr, "hold") < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* A model server's /health as the sidecar sees it: nothing listens for FAKE_WORKER_READY_MS (the
 * model loading), then each GET /health is answered by what the control file says: "healthy" (or
 * no file) 200, "unhealthy" 503, "hang" no answer at all, "exit N" exit N. With FAKE_WORKER_EVENTS
 * it appends "listening PORT <CLOCK_MONOTONIC ns>" to that file once it listens. */
/* vLLM's Mooncake store families (vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store
 * metrics): per operation and status, a histogram of the time and counters of calls, keys, bytes and
 * failed keys. Every operation took 3 ms, moved 4 keys of 64 KiB; 10 a second since t0. */
static void
store_metrics(int fd, long long t0)
{
	static const char *const ops[] = { "lookup_exists", "save_exists", "save_put", "load_get" };
	static const char *const le[] = { "0.0001", "0.0005", "0.001", "0.005", "0.01", "0.025", "0.05", "0.1",
		"0.2", "0.3", "0.4", "0.5", "0.75", "1.0", "1.5", "2.0", "+Inf" };
	long long n = (now_ns() - t0) / 100000000LL;	/* 10 a second */
	char body[32768];
	size_t len = 0;
#define OUT(...) (len += (size_t)snprintf(body + len, len < sizeof body ? sizeof body - len : 0, __VA_ARGS__))
	OUT("# HELP vllm:mooncake_store_operation_time_seconds Histogram of Mooncake store communication time.\n"
	    "# TYPE vllm:mooncake_store_operation_time_seconds histogram\n");
	for (int o = 0; o < 4; o++) {
		for (int b = 0; b < 17; b++)
			OUT("vllm:mooncake_store_operation_time_seconds_bucket{engine=\"0\",le=\"%s\",model_name=\"/m\","
			    "operation=\"%s\",status=\"ok\"} %lld\n", le[b], ops[o], b >= 3 ? n : 0);
		OUT("vllm:mooncake_store_operation_time_seconds_count{engine=\"0\",model_name=\"/m\",operation=\"%s\","
		    "status=\"ok\"} %lld\n", ops[o], n);
		OUT("vllm:mooncake_store_operation_time_seconds_sum{engine=\"0\",model_name=\"/m\",operation=\"%s\","
		    "status=\"ok\"} %.3f\n", ops[o], (double)n * 0.003);
	}
	{
		static const char *const fam[] = { "total", "keys_total", "bytes_total", "failed_keys_total" };
		static const char *const doc[] = { "Number of Mooncake store communication operations.",
			"Number of Mooncake store keys touched by operations.",
			"Number of bytes transferred by Mooncake store operations.",
			"Number of Mooncake store keys that failed in operations." };
		const long long per[] = { 1, 4, 4 * 65536, 0 };
		for (int k = 0; k < 4; k++) {
			OUT("# HELP vllm:mooncake_store_operation_%s %s\n# TYPE vllm:mooncake_store_operation_%s counter\n",
			    fam[k], doc[k], fam[k]);
			for (int o = 0; o < 4; o++)
				OUT("vllm:mooncake_store_operation_%s{engine=\"0\",model_name=\"/m\",operation=\"%s\","
				    "status=\"ok\"} %lld\n", fam[k], ops[o], n * per[k]);
		}
	}
#undef OUT
	if (len >= sizeof body)
		len = sizeof body - 1;
	dprintf(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", len);
	if (write(fd, body, len) < 0)
		return;
}

static int
health_server(int port, const char *control)
{
	const char *ready = getenv("FAKE_WORKER_READY_MS");
	struct timespec ts = { 0, 0 };
	long ms = ready ? atol(ready) : 0;
	int lfd;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	long long t0 = now_ns();
	if ((lfd = listen_on(port, "0.0.0.0", "health-server")) < 0)	/* as vLLM: every address */
		return 1;
	if (getenv("FAKE_WORKER_EVENTS") != NULL) {	/* when it listens, for the benchmarks */
		FILE *ev = fopen(getenv("FAKE_WORKER_EVENTS"), "a");
		if (ev != NULL) {
			fprintf(ev, "listening %d %lld\n", port, now_ns());
			fclose(ev);
		}
	}
	for (;;) {
		char req[4096], what[64] = "healthy";
		size_t n = 0;
		ssize_t r;
		int fd = accept(lfd, NULL, NULL);
		FILE *f;
		if (fd < 0)
			continue;
		while (n < sizeof req - 1 && (r = read(fd, req + n, sizeof req - 1 - n)) > 0) {
			n += (size_t)r;
			req[n] = '\0';
			if (strstr(req, "\r\n\r\n") != NULL)
				break;
		}
		req[n] = '\0';
		if ((f = fopen(control, "r")) != NULL) {
			if (fgets(what, sizeof what, f) == NULL)
				snprintf(what, sizeof what, "healthy");
			fclose(f);
		}
		what[strcspn(what, "\r\n")] = '\0';
		if (strncmp(what, "exit ", 5) == 0)
			exit(atoi(what + 5));
		if (strcmp(what, "hang") == 0)
			continue;	/* the connection stays open, unanswered */
		if (strncmp(req, "GET /metrics ", 13) == 0) {
			store_metrics(fd, t0);
			close(fd);
			continue;
		}
		const char *status = strncmp(req, "GET /health ", 12) != 0 ? "404 Not Found" :
		    strcmp(what, "unhealthy") == 0 ? "503 Service Unavailable" : "200 OK";
		dprintf(fd, "HTTP/1.1 %s\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", status);
		close(fd);
	}
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* Whether a wrong token's rejection takes longer the longer its matching prefix: it must not. */
static int
token_timing(int n)
{
	static const char token[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
	char first[80], last[80], right[80];
	long long *t[3];
	const char *h[3] = { first, last, right };
	volatile int sink = 0;
	snprintf(first, sizeof first, "Bearer X%s", token + 1);
	snprintf(last, sizeof last, "Bearer %.*sX", (int)strlen(token) - 1, token);
	snprintf(right, sizeof right, "Bearer %s", token);
	for (int k = 0; k < 3; k++)
		t[k] = calloc((size_t)n, sizeof **t);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			long long s = now_ns();
			for (int r = 0; r < 16; r++)
				sink += auth_bearer_ok(h[k], token);
			t[k][i] = now_ns() - s;
		}
	for (int k = 0; k < 3; k++)
		qsort(t[k], (size_t)n, sizeof **t, cmp_ll);
	printf("wrong at the first character: %.1f ns, wrong at the last (63 matching): %.1f ns, right: %.1f ns "
	    "(median of %d tries of 16 checks each)\n", t[0][n / 2] / 16.0, t[1][n / 2] / 16.0, t[2][n / 2] / 16.0, n);
	for (int k = 0; k < 3; k++)
		free(t[k]);
	return sink == n * 16 ? 0 : 1;
}

static int
rtt(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	long long *t = calloc((size_t)n, sizeof *t);
	int l = socket(AF_INET, SOCK_STREAM, 0), s, one = 1;
	char b = 'x';
	pid_t pid;
	if (t == NULL || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) != 0) {
		perror("rtt");
		return 1;
	}
	if ((pid = fork()) == 0) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&a, sizeof a) != 0)
			_exit(1);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		while (read(c, &b, 1) == 1 && write(c, &b, 1) == 1)
			;
		_exit(0);
	}
	if (pid < 0 || (s = accept(l, NULL, NULL)) < 0) {
		perror("rtt");
		return 1;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();
		if (write(s, &b, 1) != 1 || read(s, &b, 1) != 1) {
			perror("rtt");
			return 1;
		}
		t[i] = now_ns() - t0;
	}
	close(s);
	waitpid(pid, NULL, 0);
	qsort(t, (size_t)n, sizeof *t, cmp_ll);
	printf("%.1f %.1f\n", t[n / 2] / 1e3, t[(size_t)n * 99 / 100] / 1e3);
	free(t);
	return 0;
}

static int
respawn_loop(char **argv)
{
	for (;;) {
		pid_t pid = vfork();
		if (pid == 0) {
			execvp(argv[0], argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) < 0) {
			perror("respawn-loop");
			return 1;
		}
	}
}

static int
notify_recv(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), one = 1;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		fprintf(stderr, "bind %s: %s\n", path, strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		char buf[4096], cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct iovec iov = { buf, sizeof buf - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
		    .msg_controllen = sizeof cbuf };
		ssize_t n = recvmsg(fd, &mh, 0);
		long long t = now_ns();
		long pid = 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
				pid = ((struct ucred *)CMSG_DATA(c))->pid;
		buf[n] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\n')
				*p = '|';
		printf("%lld %ld %s\n", t, pid, buf);
	}
}

static int
alive(long pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp != NULL && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X' ? 0 : 1;
}

static int
flood(int port, const char *path, int n, int ms)
{
	struct pollfd *pf = calloc((size_t)n, sizeof *pf);
	char (*resp)[16] = calloc((size_t)n, sizeof *resp);
	int *got = calloc((size_t)n, sizeof *got), open_n = 0, codes[600] = { 0 }, unanswered = 0;
	char req[512];
	long long deadline = now_ns() + (long long)ms * 1000000LL;
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	for (int i = 0; i < n; i++) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
		    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		pf[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		if (pf[i].fd < 0 || connect(pf[i].fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
		    write(pf[i].fd, req, strlen(req)) != (ssize_t)strlen(req)) {
			perror("flood");
			return 1;
		}
		fcntl(pf[i].fd, F_SETFL, O_NONBLOCK);
		pf[i].events = POLLIN;
		open_n++;
	}
	while (open_n > 0 && now_ns() < deadline) {
		if (poll(pf, (nfds_t)n, 10) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			char buf[4096];
			ssize_t r;
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pf[i].fd, buf, sizeof buf);
			if (r > 0 && got[i] < 15) {
				int k = r < 15 - got[i] ? (int)r : 15 - got[i];
				memcpy(resp[i] + got[i], buf, (size_t)k);
				got[i] += k;
			}
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_n--;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		int code = got[i] >= 12 && strncmp(resp[i], "HTTP/1.", 7) == 0 ? atoi(resp[i] + 9) : 0;
		if (code > 0 && code < 600)
			codes[code]++;
		else
			unanswered++;
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	}
	for (int c = 0; c < 600; c++)
		if (codes[c])
			printf("%d %d\n", c, codes[c]);
	printf("unanswered %d\n", unanswered);
	free(pf);
	free(resp);
	free(got);
	return 0;
}

static long long
gone_since(long pid, long long now, long *last_pid, long long *since)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld", pid);
	if (access(path, F_OK) == 0 && alive(pid) == 0) {
		*last_pid = 0;
		return 0;
	}
	if (*last_pid != pid) {
		*last_pid = pid;
		*since = now;
	}
	return now - *since;
}

/* endpoints.json's generation (or -1), whether it says ready, master.pid, and the address clients
 * are given into rpc. */
static long long
json_gen(const char *path, int *ready, long *pid, char *rpc, size_t len)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	const char *r;
	long long g;
	if (j == NULL)
		return -1;
	g = json_integer_value(json_object_get(j, "generation"));
	*ready = json_is_true(json_object_get(j, "ready"));
	*pid = (long)json_integer_value(json_object_get(json_object_get(j, "master"), "pid"));
	/* what the other files must name: master.client_address (the HA entry), else master.rpc */
	r = json_string_value(json_object_get(json_object_get(j, "master"), "client_address"));
	if (r == NULL)
		r = json_string_value(json_object_get(json_object_get(j, "master"), "rpc"));
	snprintf(rpc, len, "%s", r ? r : "");
	json_decref(j);
	return g;
}

/* Read the files as a worker should: endpoints.json, then the env file and the store config, then
 * endpoints.json again. Every file must parse whole and the generation never go back. When the
 * generation did not change meanwhile and it says ready both times, the three must be of that
 * generation (the env file's first line names it) and name the same master; a generation (or its
 * ready) that changed meanwhile is a torn read, to be read again (counted): a master lost between
 * the reads writes its generation not ready, then the next one's files (README, "Reading the
 * files"). A ready:true file naming a master that is gone is
 * stale, and how long such staleness lasts is reported. SIGTERM ends the reads early. */
static volatile sig_atomic_t stop_reads;

static void
on_term(int sig)
{
	stop_reads = 1;
}

static int
read_endpoints(const char *dir, int n)
{
	int i;
	char p_json[512], p_env[512], p_store[512];
	long long max_stale = 0, since = 0, gen = 0;
	long last_pid = 0, bad = 0, ready = 0, backwards = 0, gens = 0, torn = 0, mixed = 0;
	snprintf(p_json, sizeof p_json, "%s/endpoints.json", dir);
	snprintf(p_env, sizeof p_env, "%s/mooncake.env", dir);
	snprintf(p_store, sizeof p_store, "%s/mooncake_store_config.json", dir);
	signal(SIGTERM, on_term);
	for (i = 0; i < n && !stop_reads; i++) {
		json_error_t je;
		char rpc[256], rpc2[256], env_master[256] = "", line[512];
		int rdy = 0, rdy2 = 0, env_ok = 0;
		long pid = 0, pid2;
		long long g = json_gen(p_json, &rdy, &pid, rpc, sizeof rpc), g2, env_gen = -1;
		json_t *st = json_load_file(p_store, 0, &je);
		FILE *f = fopen(p_env, "r");
		const char *store_addr = st ? json_string_value(json_object_get(st, "master_server_address")) : NULL;
		if (f != NULL) {
			while (fgets(line, sizeof line, f) != NULL) {
				char *gp = strstr(line, ", generation ");
				if (line[0] == '#' && gp != NULL)
					env_gen = atoll(gp + 13);
				if (strncmp(line, "MOONCAKE_MASTER=\"", 17) == 0 && strchr(line + 17, '"') != NULL) {
					env_ok = 1;
					snprintf(env_master, sizeof env_master, "%.*s",
					    (int)(strchr(line + 17, '"') - (line + 17)), line + 17);
				}
			}
			fclose(f);
		}
		g2 = json_gen(p_json, &rdy2, &pid2, rpc2, sizeof rpc2);
		if (g < 0 || g2 < 0 || st == NULL || !env_ok || env_gen < 0 || store_addr == NULL) {
			bad++;
		} else {
			if (g < gen || g2 < g)
				backwards++;
			if (g != gen)
				gens++;
			gen = g2;
			if (g != g2 || rdy != rdy2)	/* the rule: the same generation, ready both times */
				torn++;
			else if (rdy && (env_gen != g || strcmp(env_master, rpc) != 0 ||
			    strcmp(store_addr, rpc) != 0)) {
				if (mixed++ == 0)
					fprintf(stderr, "mixed: endpoints.json generation %lld rpc %s, env "
					    "generation %lld MOONCAKE_MASTER %s, store %s\n", g, rpc, env_gen,
					    env_master, store_addr);
			}
			if (rdy) {
				if (pid > 0) {
					long long st_ns = gone_since(pid, now_ns(), &last_pid, &since);
					if (st_ns > max_stale)
						max_stale = st_ns;
				}
				ready++;
			} else
				last_pid = 0;
		}
		json_decref(st);
	}
	printf("reads %d partial %ld ready %ld generations %ld backwards %ld max_stale_ms %.3f torn %ld "
	    "mixed %ld last_generation %lld\n", i, bad, ready, gens, backwards, (double)max_stale / 1e6,
	    torn, mixed, gen);
	return 0;
}

static int
watch_endpoints(const char *dir)
{
	char path[512], buf[4096] __attribute__((aligned(8)));
	int fd = inotify_init1(IN_CLOEXEC);
	snprintf(path, sizeof path, "%s/endpoints.json", dir);
	if (fd < 0 || inotify_add_watch(fd, dir, IN_MOVED_TO) < 0) {
		perror("inotify");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		long long t = now_ns();
		for (char *p = buf; n > 0 && p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			if (ev->len > 0 && strcmp(ev->name, "endpoints.json") == 0) {
				json_t *j = json_load_file(path, 0, NULL);
				printf("%lld %lld %d\n", t, (long long)json_integer_value(json_object_get(j, "generation")),
				    json_is_true(json_object_get(j, "ready")));
				json_decref(j);
			}
			p += sizeof *ev + ev->len;
		}
	}
}

static int
json_get(const char *file, const char *path)
{
	json_error_t je;
	json_t *root = json_load_file(file, 0, &je), *j = root;
	char *copy = strdup(path), *save = NULL, *k;
	int rc = 0;
	if (root == NULL) {
		fprintf(stderr, "%s: %s\n", file, je.text);
		free(copy);
		return 1;
	}
	for (k = strtok_r(copy, ".", &save); j != NULL && k != NULL; k = strtok_r(NULL, ".", &save)) {
		if (strcmp(k, "#") == 0) {
			printf("%zu\n", json_is_array(j) ? json_array_size(j) : json_object_size(j));
			goto out;
		}
		j = json_is_array(j) ? json_array_get(j, strtoul(k, NULL, 10)) : json_object_get(j, k);
	}
	if (j == NULL)
		rc = 1;
	else if (json_is_string(j))
		printf("%s\n", json_string_value(j));
	else {
		char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
		printf("%s\n", s);
		free(s);
	}
out:
	free(copy);
	json_decref(root);
	return rc;
}

static int
connect_from(int port, const char *src)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && src != NULL && *src != '\0') {
		struct sockaddr_in from = { .sin_family = AF_INET };
		inet_pton(AF_INET, src, &from.sin_addr);
		if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0) {
			close(fd);
			return -1;
		}
	}
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int
connect_local(int port)
{
	return connect_from(port, NULL);
}

static int
conns(int port, int n, const char *mode, int secs, const char *srcs)
{
	int *fd = calloc((size_t)n, sizeof *fd), closed = 0, slow = strcmp(mode, "slow") == 0;
	long long end = now_ns() + (long long)secs * 1000000000LL;
	char *req = mode[0] == '/' ? malloc(strlen(mode) + 64) : NULL, *list = strdup(srcs ? srcs : "");
	char *src[64], *save = NULL;
	int nsrc = 0;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (char *t = strtok_r(list, ",", &save); t != NULL && nsrc < 64; t = strtok_r(NULL, ",", &save))
		src[nsrc++] = t;
	if (req != NULL)
		sprintf(req, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", mode);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < n; i++) {
		if ((fd[i] = connect_from(port, nsrc ? src[i % nsrc] : NULL)) < 0) {
			closed++;
			continue;
		}
		if (slow && write(fd[i], "GET /livez HTTP/1.1\r\nX-Slow: ", 30) < 0)
			closed++;
		if (req != NULL && write(fd[i], req, strlen(req)) < 0)
			closed++;
	}
	free(req);
	printf("connected %d\n", n - closed);
	fflush(stdout);
	while (now_ns() < end) {
		sleep(1);
		for (int i = 0; slow && i < n; i++)
			if (fd[i] >= 0 && write(fd[i], "a", 1) < 0) {
				close(fd[i]);
				fd[i] = -1;
				closed++;
			}
	}
	for (int i = 0; i < n; i++) {
		char c;
		if (fd[i] < 0)
			continue;
		fcntl(fd[i], F_SETFL, O_NONBLOCK);
		if (read(fd[i], &c, 1) == 0)
			closed++;
		close(fd[i]);
	}
	printf("held %d closed %d\n", n, closed);
	free(fd);
	free(list);
	return 0;
}

static int
raw(int port, const char *file)
{
	char buf[70000], resp[65536], first[256] = "closed";
	FILE *f = fopen(file, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0, got = 0;
	int fd = connect_local(port), lines = 0;
	if (f != NULL)
		fclose(f);
	if (fd < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (write(fd, buf, n) < 0) {
		printf("closed 0\n");
		close(fd);
		return 0;
	}
	for (;;) {	/* until the server closes or is quiet for a second */
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;
		if (poll(&p, 1, 1000) != 1)
			break;
		r = read(fd, resp + got, sizeof resp - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	resp[got] = '\0';
	if (got > 0)
		snprintf(first, sizeof first, "%.*s", (int)strcspn(resp, "\r\n"), resp);
	for (char *p = resp; (p = strstr(p, "HTTP/1.")) != NULL; p++)	/* bodies here never hold it */
		lines++;
	printf("%s\n%d\n", first, lines);
	close(fd);
	return 0;
}

/* ep FILE|-: "<generation> <ready 0|1> <master pid or 0>" of an endpoints.json; "none" for an empty
 * or missing one; exit 1 when it does not parse. */
static int
ep(const char *file)
{
	json_error_t je;
	json_t *j;
	char buf[65536];
	size_t n = 0;
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (f != NULL) {
		n = fread(buf, 1, sizeof buf - 1, f);
		if (f != stdin)
			fclose(f);
	}
	if (n == 0) {
		printf("none\n");
		return 0;
	}
	if ((j = json_loadb(buf, n, 0, &je)) == NULL || !json_is_integer(json_object_get(j, "generation")) ||
	    !json_is_boolean(json_object_get(j, "ready"))) {
		printf("unparseable: %s\n", j == NULL ? je.text : "fields");
		json_decref(j);
		return 1;
	}
	printf("%lld %d %lld\n", (long long)json_integer_value(json_object_get(j, "generation")),
	    json_is_true(json_object_get(j, "ready")),
	    (long long)json_integer_value(json_object_get(json_object_get(j, "master"), "pid")));
	json_decref(j);
	return 0;
}

/* fanout-floor N ROUNDS DIR: the least a fan-out can cost on this machine, for tests/bench/fanout.sh
 * to print beside the sidecars' figures. N processes of this small program each wait in read() on a
 * loopback connection of one writer; at each round the writer sends every one of them 512 bytes,
 * and each, woken, writes them to its own file in DIR the way a follower writes endpoints.json
 * (a new file, fsync, rename, fsync of the directory) and reports when its rename was done. Prints
 * the p50, p99 and max of send-start -> rename over all rounds, in ms. */
static int
fanout_floor(int n, int rounds, const char *dir)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), pfd[2], *s = calloc((size_t)n, sizeof *s), one = 1;
	long long *lat = calloc((size_t)n * (size_t)rounds, sizeof *lat);
	pid_t *pid = calloc((size_t)n, sizeof *pid);
	char msg[512];
	memset(msg, 'x', sizeof msg);
	if (s == NULL || lat == NULL || pid == NULL || pipe(pfd) != 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 ||
	    listen(l, 4096) != 0 || getsockname(l, (struct sockaddr *)&a, &al) != 0) {
		perror("fanout-floor");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if ((pid[i] = fork()) == 0) {
			char tmp[4096], path[4096], buf[4096];
			int c = socket(AF_INET, SOCK_STREAM, 0);
			ssize_t got;
			close(l);
			close(pfd[0]);
			snprintf(tmp, sizeof tmp, "%s/floor%d.tmp", dir, i);
			snprintf(path, sizeof path, "%s/floor%d", dir, i);
			if (connect(c, (struct sockaddr *)&a, sizeof a) != 0)
				_exit(1);
			while ((got = read(c, buf, sizeof buf)) > 0) {
				int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), d;
				long long t;
				if (fd < 0 || write(fd, buf, (size_t)got) != got || fsync(fd) != 0 || close(fd) != 0 ||
				    rename(tmp, path) != 0 || (d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
					_exit(1);
				fsync(d);
				close(d);
				t = now_ns();
				if (write(pfd[1], &t, sizeof t) != sizeof t)
					_exit(1);
			}
			_exit(0);
		}
		if (pid[i] < 0 || (s[i] = accept(l, NULL, NULL)) < 0) {
			perror("fanout-floor");
			return 1;
		}
		setsockopt(s[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	close(pfd[1]);
	for (int r = 0; r < rounds; r++) {
		long long t0;
		poll(NULL, 0, 300);
		t0 = now_ns();
		for (int i = 0; i < n; i++)
			if (write(s[i], msg, sizeof msg) != (ssize_t)sizeof msg) {
				perror("fanout-floor: write");
				return 1;
			}
		for (int i = 0; i < n; i++) {
			long long t;
			if (read(pfd[0], &t, sizeof t) != sizeof t) {
				fprintf(stderr, "fanout-floor: a process did not write its file\n");
				return 1;
			}
			lat[(size_t)r * (size_t)n + (size_t)i] = t - t0;
		}
	}
	for (int i = 0; i < n; i++)
		close(s[i]);
	for (int i = 0; i < n; i++)
		waitpid(pid[i], NULL, 0);
	n *= rounds;
	qsort(lat, (size_t)n, sizeof *lat, cmp_ll);
	printf("%.1f %.1f %.1f\n", lat[n / 2] / 1e6, lat[(size_t)n * 99 / 100] / 1e6, lat[n - 1] / 1e6);
	free(s);
	free(lat);
	free(pid);
	return 0;
}

/* wait-logs SECONDS PATTERN FILE...: until every FILE holds PATTERN, reading only what each one
 * gained since the last look (every 100 ms), in this one process: a benchmark's wait for a thousand
 * logs then costs the machine it measures almost nothing (a shell loop forks at every look). Exit 0,
 * or 1 after SECONDS, saying how many did. */
static int
wait_logs(int secs, const char *pat, char **files, int n)
{
	size_t plen = strlen(pat);
	off_t *off = calloc((size_t)n, sizeof *off);
	char *seen = calloc((size_t)n, 1), buf[65536];
	long long deadline = now_ns() + (long long)secs * 1000000000LL;
	int left = n;
	if (off == NULL || seen == NULL || plen == 0 || plen > sizeof buf / 2)
		return 2;
	for (;;) {
		for (int i = 0; i < n; i++) {
			int fd;
			ssize_t got;
			if (seen[i] || (fd = open(files[i], O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			/* from plen - 1 bytes before where the last look ended: a match across two looks */
			while ((got = pread(fd, buf, sizeof buf, off[i])) > 0) {
				if (memmem(buf, (size_t)got, pat, plen) != NULL) {
					seen[i] = 1;
					left--;
					break;
				}
				off[i] += got >= (ssize_t)plen ? got - (ssize_t)plen + 1 : 0;
				if (got < (ssize_t)sizeof buf)
					break;
			}
			close(fd);
		}
		if (left == 0 || now_ns() >= deadline)
			break;
		poll(NULL, 0, 100);
	}
	free(off);
	free(seen);
	if (left > 0)
		fprintf(stderr, "wait-logs: %d of %d files hold \"%s\"\n", n - left, n, pat);
	return left > 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "fanout-floor") == 0)
		return atoi(argv[2]) > 0 && atoi(argv[3]) > 0 ? fanout_floor(atoi(argv[2]), atoi(argv[3]), argv[4]) : 2;
	if (argc >= 5 && strcmp(argv[1], "wait-logs") == 0)
		return wait_logs(atoi(argv[2]), argv[3], argv + 4, argc - 4);
	if (argc >= 3 && strcmp(argv[1], "freeports") == 0)
		return freeports(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "hold") == 0)
		return hold(atoi(argv[2]), argc > 3 ? argv[3] : "127.0.0.1");
	if (argc >= 4 && strcmp(argv[1], "health-server") == 0)
		return health_server(atoi(argv[2]), argv[3]);
	if (argc >= 3 && strcmp(argv[1], "notify-recv") == 0)
		return notify_recv(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "now") == 0)
		return printf("%lld\n", now_ns()) < 0;
	if (argc >= 3 && strcmp(argv[1], "alive") == 0)
		return alive(atol(argv[2]));
	if (argc >= 6 && strcmp(argv[1], "conns") == 0)
		return conns(atoi(argv[2]), atoi(argv[3]), argv[4], atoi(argv[5]), argc > 6 ? argv[6] : NULL);
	if (argc >= 4 && strcmp(argv[1], "raw") == 0)
		return raw(atoi(argv[2]), argv[3]);
	if (argc >= 4 && strcmp(argv[1], "json-get") == 0)
		return json_get(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "rtt") == 0)
		return atoi(argv[2]) > 0 ? rtt(atoi(argv[2])) : 2;
	if (argc >= 3 && strcmp(argv[1], "respawn-loop") == 0)
		return respawn_loop(argv + 2);
	if (argc >= 3 && strcmp(argv[1], "watch-endpoints") == 0)
		return watch_endpoints(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "ep") == 0)
		return ep(argv[2]);
	if (argc >= 4 && strcmp(argv[1], "read-endpoints") == 0)
		return read_endpoints(argv[2], atoi(argv[3]));
	if (argc >= 6 && strcmp(argv[1], "flood") == 0)
		return flood(atoi(argv[2]), argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc >= 4 && strcmp(argv[1], "bcrypt") == 0) {
		char salt[CRYPT_GENSALT_OUTPUT_SIZE];
		const char *h;
		if (crypt_gensalt_rn("$2b$", (unsigned long)atol(argv[2]), NULL, 0, salt, sizeof salt) == NULL ||
		    (h = crypt(argv[3], salt)) == NULL || h[0] == '*')
			return 1;
		return printf("%s\n", h) < 0;
	}
	if (argc >= 3 && strcmp(argv[1], "token-timing") == 0)
		return token_timing(atoi(argv[2]) > 0 ? atoi(argv[2]) : 10000);
	if (argc >= 4 && strcmp(argv[1], "kill") == 0) {
		long long t = now_ns();
		if (kill((pid_t)atol(argv[3]), atoi(argv[2])) != 0) {
			perror("kill");
			return 1;
		}
		return printf("%lld\n", t) < 0;
	}
	fprintf(stderr, "usage: testkit freeports N | hold PORT [ADDR] | health-server PORT CONTROL | notify-recv PATH | now | alive PID | kill SIG PID | flood PORT PATH N MS | read-endpoints DIR N | watch-endpoints DIR | json-get FILE PATH | conns PORT N MODE SEC [SRC,...] | raw PORT FILE | token-timing N | bcrypt COST PASSWORD | wait-logs SECONDS PATTERN FILE... | fanout-floor N ROUNDS DIR\n");
	return 2;
}
