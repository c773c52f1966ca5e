/*
 * store-client RUN_DIR [options]: Mooncake's own store client (its C ABI, store_c.h, loaded with
 * dlopen) set up from nothing but the files the sidecar writes in RUN_DIR, as a worker reads them:
 * mooncake.env, then the store config JSON that MOONCAKE_CONFIG_PATH names (vllm flavor) or the
 * MOONCAKE_* variables (sglang flavor). Then a workload of puts, gets and exists with checksums,
 * one line per operation with its latency. It answers "can a client on this node reach the store
 * the sidecar published?".
 *
 *   --ops N          N operations (put, exist, get and compare), 1 KiB to 8 MiB values (default 8)
 *   --loop MS        a put and a get every MS milliseconds until SIGINT or SIGTERM (the library's
 *                    own handler then tears the client down and ends the process)
 *   --wait-ready MS  first wait up to MS for endpoints.json to say ready (default: do not wait)
 *   --retry-ms MS    retry a failed put for up to MS before counting it failed (the first only)
 *   --prefix P       key prefix (default: <local hostname>-<pid>)
 *   --get KEY:SIZE   only read KEY (put by another client with this tool) and check it
 *   --size BYTES     with --ops: every value BYTES long (1..8 MiB; default: 1 KiB to 8 MiB in turn)
 *   --keep           leave the keys in the store (default: removed at the end); with --loop, once
 *                    a put works again after failing, read the first key again ("old key=K kept"
 *                    or "lost": did the store keep it across the master's restart?)
 *   --batch B        with --ops and --size: put the keys B at a time (batch_put_from from a registered
 *                    buffer), one line per batch, each batch read back once (batch_get_into, the
 *                    content compared: 0.3.12 leases only a key that was read); SIGUSR2 reads them B
 *                    at a time (batch_get_into) and compares them (a benchmark's million keys); the
 *                    keys are left in the store, as with --keep
 *   --stay           after the operations, keep the client (and the segment it mounted) until
 *                    SIGINT or SIGTERM: a worker holding its share of the store; on SIGUSR2 it
 *                    reads its keys again (after a failover: does the store still know them?)
 *   MOONCAKE_STORE_LIB  the library (default: libmooncake_store.so on the library path)
 *
 * Exit: 0 every operation ok, 1 one failed, 2 setup failed, 64 usage, 66 the files are missing or
 * unusable, 69 the library cannot be loaded, 75 the files did not say ready in time.
 */
#include "config.h"
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "envfile.h"
#include "kvlist.h"
#include "sizes.h"
#include "store_c.h"

/* the C ABI, resolved from the library */
static struct {
	mooncake_store_t	(*create)(void);
	void			(*destroy)(mooncake_store_t);
	int			(*setup)(mooncake_store_t, const char *, const char *, uint64_t, uint64_t, const char *,
				    const char *, const char *);
	int			(*put)(mooncake_store_t, const char *, const void *, size_t,
				    const mooncake_replicate_config_t *);
	int64_t			(*get_into)(mooncake_store_t, const char *, void *, size_t);
	int			(*is_exist)(mooncake_store_t, const char *);
	int			(*remove)(mooncake_store_t, const char *, int);
	int			(*batch_put_from)(mooncake_store_t, const char **, void **, const size_t *, size_t,
				    const mooncake_replicate_config_t *, int *);
	int			(*batch_get_into)(mooncake_store_t, const char **, void **, const size_t *, size_t,
				    int64_t *);
	int			(*register_buffer)(mooncake_store_t, void *, size_t);
} mc;

struct params {
	char		local_hostname[256], metadata_server[512], master[512], protocol[64], device[256];
	uint64_t	segment, buffer;
	char		flavor[16];
	long long	generation;
};

/* Set by SIGINT or SIGTERM before the store is set up. Once it is, the library's own handlers take
 * these signals: it tears every client down and ends the process. */
static volatile sig_atomic_t stop, recheck;

static void
on_signal(int s)
{
	(void)s;
	stop = 1;
}

static void
on_recheck(int s)
{
	(void)s;
	recheck = 1;
}

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	if (ms > 0)
		nanosleep(&ts, NULL);
}

static double
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static long long
wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *p = NULL;
	size_t n = 0, cap = 0, r;
	if (f == NULL)
		return NULL;
	do {
		if (n + 4096 > cap && (p = realloc(p, cap = cap * 2 + 8192)) == NULL)
			abort();
		r = fread(p + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	p[n] = '\0';
	*len = n;
	return p;
}

/* endpoints.json says ready: its generation, or 0 (not ready, or not there yet). */
static long long
files_ready(const char *dir)
{
	char path[4096];
	json_t *j;
	long long gen = 0;
	snprintf(path, sizeof path, "%s/endpoints.json", dir);
	if ((j = json_load_file(path, 0, NULL)) != NULL && json_is_true(json_object_get(j, "ready")))
		gen = json_integer_value(json_object_get(j, "generation"));
	json_decref(j);
	return gen;
}

/* Wait for endpoints.json to say ready: woken by its rename into the directory (inotify), checked
 * again every 100 ms besides. */
static long long
wait_ready(const char *dir, long timeout_ms)
{
	double deadline = now_ms() + (double)timeout_ms;
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	long long gen;
	if (fd >= 0)
		inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE);
	while ((gen = files_ready(dir)) == 0 && !stop && now_ms() < deadline) {
		struct pollfd p = { fd, POLLIN, 0 };
		char buf[4096];
		int left = (int)(deadline - now_ms());
		if (poll(&p, fd >= 0 ? 1 : 0, left < 100 ? (left > 0 ? left : 0) : 100) > 0)
			while (read(fd, buf, sizeof buf) > 0)
				;
	}
	if (fd >= 0)
		close(fd);
	return gen;
}

static int
copy(char *dst, size_t len, const char *src, const char *what, const char *from)
{
	if (src == NULL || *src == '\0') {
		fprintf(stderr, "store-client: %s: no %s\n", from, what);
		return -1;
	}
	snprintf(dst, len, "%s", src);
	return 0;
}

/* A size of the store config, by vLLM's rule: a JSON integer, or a string like "4GB". */
static int
json_size(json_t *o, const char *key, uint64_t dflt, uint64_t *out, const char *from)
{
	json_t *v = json_object_get(o, key);
	char err[256];
	if (v == NULL)
		*out = dflt;
	else if (json_is_integer(v) && json_integer_value(v) >= 0)
		*out = (uint64_t)json_integer_value(v);
	else if (!json_is_string(v) || size_parse_vllm(json_string_value(v), out, err, sizeof err) != 0) {
		fprintf(stderr, "store-client: %s: %s: %s\n", from, key, json_is_string(v) ? err : "not a size");
		return -1;
	}
	return 0;
}

/* Everything the client is set up with, from the files of the run directory only. */
static int
read_files(const char *dir, struct params *p)
{
	char path[4096], err[256];
	struct kvlist env = { 0 };
	size_t len;
	char *text;
	const char *cfg, *v;
	int rc = -1;
	snprintf(path, sizeof path, "%s/mooncake.env", dir);
	if ((text = slurp(path, &len)) == NULL) {
		fprintf(stderr, "store-client: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (envfile_parse(text, len, &env, err, sizeof err) != 0) {
		fprintf(stderr, "store-client: %s: %s\n", path, err);
		free(text);
		return -1;
	}
	free(text);
	memset(p, 0, sizeof *p);
	cfg = kvlist_get(&env, "MOONCAKE_CONFIG_PATH");
	if (cfg != NULL && *cfg != '\0') {
		/* vLLM's MooncakeStoreConnector: everything from the JSON, local_hostname from the node */
		json_error_t je;
		json_t *j = json_load_file(cfg, 0, &je);
		snprintf(p->flavor, sizeof p->flavor, "vllm");
		if (j == NULL) {
			fprintf(stderr, "store-client: %s (MOONCAKE_CONFIG_PATH): %s\n", cfg, je.text);
			goto out;
		}
		v = json_string_value(json_object_get(j, "local_hostname"));
		if (copy(p->local_hostname, sizeof p->local_hostname, v ? v : kvlist_get(&env, "MOONCAKE_LOCAL_HOSTNAME"),
		    "local_hostname (nor MOONCAKE_LOCAL_HOSTNAME in mooncake.env)", cfg) != 0 ||
		    copy(p->metadata_server, sizeof p->metadata_server,
		    json_string_value(json_object_get(j, "metadata_server")), "metadata_server", cfg) != 0 ||
		    copy(p->master, sizeof p->master, json_string_value(json_object_get(j, "master_server_address")),
		    "master_server_address", cfg) != 0 ||
		    json_size(j, "global_segment_size", 3355443200ULL, &p->segment, cfg) != 0 ||
		    json_size(j, "local_buffer_size", 1073741824ULL, &p->buffer, cfg) != 0) {
			json_decref(j);
			goto out;
		}
		v = json_string_value(json_object_get(j, "protocol"));
		snprintf(p->protocol, sizeof p->protocol, "%s", v ? v : "tcp");
		v = json_string_value(json_object_get(j, "device_name"));
		snprintf(p->device, sizeof p->device, "%s", v ? v : "");
		json_decref(j);
	} else {
		/* SGLang's load_from_env: the MOONCAKE_* variables */
		snprintf(p->flavor, sizeof p->flavor, "sglang");
		v = kvlist_get(&env, "MOONCAKE_TE_META_DATA_SERVER");
		snprintf(p->metadata_server, sizeof p->metadata_server, "%s", v ? v : "P2PHANDSHAKE");
		v = kvlist_get(&env, "MOONCAKE_PROTOCOL");
		snprintf(p->protocol, sizeof p->protocol, "%s", v ? v : "tcp");
		v = kvlist_get(&env, "MOONCAKE_DEVICE");
		snprintf(p->device, sizeof p->device, "%s", v ? v : "");
		v = kvlist_get(&env, "MOONCAKE_GLOBAL_SEGMENT_SIZE");
		p->segment = 4ULL << 30;
		if (v != NULL && size_parse_sglang(v, &p->segment, err, sizeof err) != 0) {
			fprintf(stderr, "store-client: %s: MOONCAKE_GLOBAL_SEGMENT_SIZE: %s\n", path, err);
			goto out;
		}
		p->buffer = 16ULL << 20;
		if (copy(p->local_hostname, sizeof p->local_hostname, kvlist_get(&env, "MOONCAKE_LOCAL_HOSTNAME"),
		    "MOONCAKE_LOCAL_HOSTNAME", path) != 0 ||
		    copy(p->master, sizeof p->master, kvlist_get(&env, "MOONCAKE_MASTER"), "MOONCAKE_MASTER", path) != 0)
			goto out;
	}
	rc = 0;
out:
	kvlist_clear(&env);
	return rc;
}

static int
load_library(void)
{
	const char *lib = getenv("MOONCAKE_STORE_LIB");
	void *h = dlopen(lib && *lib ? lib : "libmooncake_store.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "store-client: cannot load the store library: %s (set MOONCAKE_STORE_LIB)\n", dlerror());
		return -1;
	}
#define SYM(f, name) if ((*(void **)&mc.f = dlsym(h, name)) == NULL) { \
		fprintf(stderr, "store-client: %s lacks %s\n", lib ? lib : "libmooncake_store.so", name); return -1; }
	SYM(create, "mooncake_store_create");
	SYM(destroy, "mooncake_store_destroy");
	SYM(setup, "mooncake_store_setup");
	SYM(put, "mooncake_store_put");
	SYM(get_into, "mooncake_store_get_into");
	SYM(is_exist, "mooncake_store_is_exist");
	SYM(remove, "mooncake_store_remove");
	SYM(batch_put_from, "mooncake_store_batch_put_from");
	SYM(batch_get_into, "mooncake_store_batch_get_into");
	SYM(register_buffer, "mooncake_store_register_buffer");
#undef SYM
	return 0;
}

/* The bytes of a value follow from its key alone, so that any client can check what another put. */
static void
fill(unsigned char *b, size_t n, const char *key)
{
	uint64_t x = 1469598103934665603ULL;
	for (const char *k = key; *k; k++)
		x = (x ^ (unsigned char)*k) * 1099511628211ULL;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)x;
	}
}

static uint32_t
crc(const unsigned char *b, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* Read key back (size bytes) and compare it with what fill() makes of it. */
static int
get_check(mooncake_store_t s, const char *key, size_t size, unsigned char *got, unsigned char *want)
{
	double t0 = now_ms();
	int64_t n = mc.get_into(s, key, got, size);
	double ms = now_ms() - t0;
	int ok;
	fill(want, size, key);
	ok = n == (int64_t)size && memcmp(got, want, size) == 0;
	printf("get key=%s bytes=%" PRId64 " ms=%.3f t=%lld %s", key, n, ms, wall_ms(), ok ? "ok" : "error");
	if (n == (int64_t)size)
		printf(" crc=%08x%s", crc(got, size), ok ? "" : " (differs)");
	printf("\n");
	return ok ? 0 : -1;
}

static int
put_one(mooncake_store_t s, const char *key, const unsigned char *v, size_t size, long retry_ms)
{
	double t0 = now_ms(), deadline = t0 + (double)retry_ms;
	int rc, tries = 0;
	do {
		rc = mc.put(s, key, v, size, NULL);
		tries++;
	} while (rc != 0 && !stop && now_ms() < deadline);
	printf("put key=%s bytes=%zu ms=%.3f t=%lld tries=%d %s rc=%d\n", key, size, now_ms() - t0, wall_ms(), tries,
	    rc == 0 ? "ok" : "error", rc);
	return rc == 0 ? 0 : -1;
}

/* --batch: the keys pfx-from .. pfx-(from+n-1), size bytes each, in one registered area. */
struct batch {
	size_t		 n, size;
	unsigned char	*area;
	char		**keys;
	void		**bufs;
	size_t		*sizes;
	int		*rc;
	int64_t		*got;
};

static int
batch_new(struct batch *bt, mooncake_store_t s, size_t n, size_t size)
{
	bt->n = n;
	bt->size = size;
	if ((bt->area = malloc(n * size)) == NULL || (bt->keys = calloc(n, sizeof *bt->keys)) == NULL ||
	    (bt->bufs = calloc(n, sizeof *bt->bufs)) == NULL || (bt->sizes = calloc(n, sizeof *bt->sizes)) == NULL ||
	    (bt->rc = calloc(n, sizeof *bt->rc)) == NULL || (bt->got = calloc(n, sizeof *bt->got)) == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		if ((bt->keys[i] = malloc(512)) == NULL)
			abort();
		bt->bufs[i] = bt->area + i * size;
		bt->sizes[i] = size;
	}
	if (mc.register_buffer(s, bt->area, n * size) != 0) {
		fprintf(stderr, "store-client: mooncake_store_register_buffer of %zu bytes failed\n", n * size);
		return -1;
	}
	return 0;
}

static void
batch_keys(struct batch *bt, const char *pfx, long from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(bt->keys[i], 512, "%s-%ld", pfx, from + (long)i);
}

/* Put n keys from: the ones that failed. */
static long
batch_put(struct batch *bt, mooncake_store_t s, const char *pfx, long from, size_t n)
{
	double t0 = now_ms();
	long bad = 0;
	batch_keys(bt, pfx, from, n);
	for (size_t i = 0; i < n; i++)
		fill(bt->bufs[i], bt->size, bt->keys[i]);
	if (mc.batch_put_from(s, (const char **)bt->keys, bt->bufs, bt->sizes, n, NULL, bt->rc) != 0)
		bad = (long)n;
	else
		for (size_t i = 0; i < n; i++)
			bad += bt->rc[i] != 0;
	printf("batch put from=%ld n=%zu ms=%.3f t=%lld failed=%ld\n", from, n, now_ms() - t0, wall_ms(), bad);
	return bad;
}

/* Read n keys from back and compare them: the ones found with their content. */
static long
batch_check(struct batch *bt, mooncake_store_t s, const char *pfx, long from, size_t n, unsigned char *want)
{
	long found = 0;
	batch_keys(bt, pfx, from, n);
	if (mc.batch_get_into(s, (const char **)bt->keys, bt->bufs, bt->sizes, n, bt->got) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		fill(want, bt->size, bt->keys[i]);
		found += bt->got[i] == (int64_t)bt->size && memcmp(bt->bufs[i], want, bt->size) == 0;
	}
	return found;
}

static void
usage(void)
{
	fprintf(stderr, "usage: store-client RUN_DIR [--ops N] [--loop MS] [--wait-ready MS] [--retry-ms MS] "
	    "[--prefix P] [--get KEY:SIZE] [--size BYTES] [--batch B] [--keep] [--stay]\n");
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 8 << 20 };
	const char *dir = NULL, *prefix = NULL, *get = NULL;
	long ops = 8, loop_ms = 0, wait_ms = -1, retry_ms = 0, fixed = 0, batch = 0;
	struct batch bt = { 0 };
	int keep = 0, stay = 0, failed = 0, down = 0;
	char key[512], pfx[300];
	struct params p;
	mooncake_store_t s;
	unsigned char *a, *b;
	double t0;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--keep") == 0)
			keep = 1;
		else if (strcmp(argv[i], "--stay") == 0)
			stay = 1;
		else if (next != NULL && strcmp(argv[i], "--ops") == 0)
			ops = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--loop") == 0)
			loop_ms = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--wait-ready") == 0)
			wait_ms = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--retry-ms") == 0)
			retry_ms = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--size") == 0)
			fixed = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--batch") == 0)
			batch = atol(argv[++i]);
		else if (next != NULL && strcmp(argv[i], "--prefix") == 0)
			prefix = argv[++i];
		else if (next != NULL && strcmp(argv[i], "--get") == 0)
			get = argv[++i];
		else if (argv[i][0] != '-' && dir == NULL)
			dir = argv[i];
		else {
			usage();
			return 64;
		}
	}
	if (dir == NULL || fixed < 0 || fixed > (long)sizes[7] || batch < 0 || (batch > 0 && (fixed == 0 ||
	    get != NULL || loop_ms > 0))) {
		usage();
		return 64;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR2, on_recheck);
	/* The library is loaded (and the client object made) first: a client waiting for the files
	 * then only has to set up once they say ready. */
	if (load_library() != 0)
		return 69;
	if ((s = mc.create()) == NULL) {
		fprintf(stderr, "store-client: mooncake_store_create failed\n");
		return 2;
	}
	if (wait_ms >= 0) {
		t0 = now_ms();
		if (wait_ready(dir, wait_ms) == 0) {
			fprintf(stderr, "store-client: %s/endpoints.json did not say ready within %ld ms\n", dir, wait_ms);
			return 75;
		}
		printf("files ready after %.3f ms t=%lld\n", now_ms() - t0, wall_ms());
	}
	if (read_files(dir, &p) != 0)
		return 66;
	p.generation = files_ready(dir);
	printf("config (%s flavor, generation %lld): local_hostname=%s metadata_server=%s master_server_address=%s "
	    "global_segment_size=%" PRIu64 " local_buffer_size=%" PRIu64 " protocol=%s device_name=%s\n", p.flavor,
	    p.generation, p.local_hostname, p.metadata_server, p.master, p.segment, p.buffer, p.protocol, p.device);
	t0 = now_ms();
	rc = mc.setup(s, p.local_hostname, p.metadata_server, p.segment, p.buffer, p.protocol, p.device, p.master);
	printf("setup ms=%.3f t=%lld %s rc=%d\n", now_ms() - t0, wall_ms(), rc == 0 ? "ok" : "error", rc);
	if (rc != 0) {
		mc.destroy(s);
		return 2;
	}

	snprintf(pfx, sizeof pfx, "%s", prefix ? prefix : "");
	if (prefix == NULL)
		snprintf(pfx, sizeof pfx, "%s-%ld", p.local_hostname, (long)getpid());
	a = malloc(sizes[7]);
	b = malloc(sizes[7]);
	if (get != NULL) {
		char k[512];
		const char *colon = strrchr(get, ':');
		size_t size = colon ? (size_t)strtoull(colon + 1, NULL, 10) : 0;
		snprintf(k, sizeof k, "%.*s", colon ? (int)(colon - get) : (int)strlen(get), get);
		if (size == 0 || size > sizes[7]) {
			fprintf(stderr, "store-client: --get KEY:SIZE with SIZE 1..%zu\n", sizes[7]);
			return 64;
		}
		printf("exist key=%s %d\n", k, mc.is_exist(s, k));
		failed = get_check(s, k, size, a, b) != 0;
	} else if (batch > 0) {
		if (batch_new(&bt, s, (size_t)batch, (size_t)fixed) != 0) {
			mc.destroy(s);
			return 2;
		}
		/* each batch read back once: 0.3.12 leases a key only when it is read (PutEnd grants
		 * none), and a restore keeps only leased keys */
		for (long i = 0; i < ops && !stop; i += batch) {
			size_t n = (size_t)(ops - i < batch ? ops - i : batch);
			failed += (int)batch_put(&bt, s, pfx, i, n);
			failed += (int)n - (int)batch_check(&bt, s, pfx, i, n, a);
		}
	} else if (loop_ms > 0) {
		for (long i = 0; !stop; i++) {
			size_t size = sizes[i % 4];
			snprintf(key, sizeof key, "%s-%ld", pfx, i);
			fill(a, size, key);
			if (put_one(s, key, a, size, 0) == 0) {
				get_check(s, key, size, b, a);
				/* --keep: once it stores again after failing, is its first key still there? */
				if (keep && down && i > 0) {
					snprintf(key, sizeof key, "%s-0", pfx);
					fill(a, sizes[0], key);
					printf("old key=%s %s after the store came back\n", key,
					    get_check(s, key, sizes[0], b, a) == 0 ? "kept" : "lost");
				}
				down = 0;
			} else
				down = 1;
			if (!keep)
				mc.remove(s, key, 0);
			pause_ms(loop_ms);
		}
	} else {
		for (long i = 0; i < ops && !stop; i++) {
			size_t size = fixed ? (size_t)fixed : sizes[i % 8];
			int e;
			snprintf(key, sizeof key, "%s-%ld", pfx, i);
			fill(a, size, key);
			if (put_one(s, key, a, size, i == 0 ? retry_ms : 0) != 0) {
				failed++;
				continue;
			}
			e = mc.is_exist(s, key);
			printf("exist key=%s %d\n", key, e);
			failed += e != 1;
			failed += get_check(s, key, size, b, a) != 0;
		}
		for (long i = 0; i < ops && !keep; i++) {
			snprintf(key, sizeof key, "%s-%ld", pfx, i);
			mc.remove(s, key, 0);
		}
	}
	printf("done: %d failed\n", failed);
	if (stay) {
		printf("staying t=%lld\n", wall_ms());
		while (!stop) {
			pause_ms(50);
			if (recheck) {
				int found = 0;
				recheck = 0;
				for (long i = 0; batch > 0 && i < ops; i += batch)
					found += (int)batch_check(&bt, s, pfx, i, (size_t)(ops - i < batch ? ops - i : batch), a);
				for (long i = 0; batch == 0 && i < ops; i++) {
					snprintf(key, sizeof key, "%s-%ld", pfx, i);
					found += get_check(s, key, fixed ? (size_t)fixed : sizes[i % 8], b, a) == 0;
				}
				printf("rechecked: %d of %ld found t=%lld\n", found, ops, wall_ms());
				fflush(stdout);
			}
		}
		printf("leaving t=%lld\n", wall_ms());
	}
	free(a);
	free(b);
	mc.destroy(s);
	return failed ? 1 : 0;
}
