#include "config.h"
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnutls/crypto.h>
#include "basic.h"
#include "log.h"
#include "xalloc.h"

#define BASIC_CACHE	64
/* Passwords waiting for the bcrypt thread: a user of basic_auth_users, and apart from them an
 * unknown one (checked against a dummy hash, so that it costs the same): a flood of unknown users
 * fills only its own small queue, and the thread takes a known user's first, so the real users
 * (Prometheus after a restart of the sidecar, before its password is remembered) are served. */
#define BASIC_QUEUE		32
#define BASIC_UNKNOWN_QUEUE	4

/* the hash an unknown user's password is checked against (cost 10, like the usual ones) */
static const char dummy_hash[] = "$2b$10$abcdefghijklmnopqrstuuqflPDzB6gcMhKa1rZqKiun2YGL5sa2u";

struct basic_req {
	struct basic		*b;
	struct basic_req	*next;
	char			*hash;		/* what crypt_r checks against */
	char			*pass;
	int			 known;		/* the user exists */
	unsigned char		 key[32];	/* SHA-256 of user NUL password, for the cache */
	int			 ok;		/* the thread's verdict */
	int			 cancelled;
	basic_cb		 cb;
	void			*arg;
};

struct basic {
	const struct kvlist	*users;
	pthread_t		 thread;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct basic_req	*queue[2], *done;	/* guarded by mu; [0] known users, [1] unknown */
	int			 nqueued[2];
	int			 stop;
	int			 pipe[2];	/* the thread tells the loop */
	struct event		*ev;
	unsigned char		 cache[BASIC_CACHE][32];
	unsigned		 ncache, next;
};

static void
req_free(struct basic_req *r)
{
	if (r->pass != NULL) {
		explicit_bzero(r->pass, strlen(r->pass));
		free(r->pass);
	}
	free(r->hash);
	free(r);
}

static void *
worker(void *arg)
{
	struct basic *b = arg;
	struct crypt_data *cd = xcalloc(1, sizeof *cd);
	pthread_mutex_lock(&b->mu);
	for (;;) {
		struct basic_req *r;
		int q;
		while (b->queue[0] == NULL && b->queue[1] == NULL && !b->stop)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->stop)
			break;
		q = b->queue[0] != NULL ? 0 : 1;	/* a known user's first */
		r = b->queue[q];
		b->queue[q] = r->next;
		b->nqueued[q]--;
		pthread_mutex_unlock(&b->mu);
		{
			const char *out = crypt_r(r->pass, r->hash, cd);
			r->ok = r->known && out != NULL && out[0] != '*' && strlen(out) == strlen(r->hash) &&
			    memcmp(out, r->hash, strlen(out)) == 0;
		}
		pthread_mutex_lock(&b->mu);
		r->next = b->done;
		b->done = r;
		(void)!write(b->pipe[1], "x", 1);
	}
	pthread_mutex_unlock(&b->mu);
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return NULL;
}

static int
cached(const struct basic *b, const unsigned char *key)
{
	int hit = 0;
	for (unsigned i = 0; i < b->ncache; i++) {
		unsigned char d = 0;
		for (int k = 0; k < 32; k++)
			d |= b->cache[i][k] ^ key[k];
		hit |= d == 0;
	}
	return hit;
}

/* The loop's side: every verdict the thread has, to its request (unless it left). */
static void
verdicts(evutil_socket_t fd, short what, void *arg)
{
	struct basic *b = arg;
	struct basic_req *r, *next;
	char buf[64];
	(void)what;
	while (read(fd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&b->mu);
	r = b->done;
	b->done = NULL;
	pthread_mutex_unlock(&b->mu);
	for (; r != NULL; r = next) {
		next = r->next;
		if (r->ok && !cached(b, r->key)) {
			memcpy(b->cache[b->next], r->key, 32);
			b->next = (b->next + 1) % BASIC_CACHE;
			if (b->ncache < BASIC_CACHE)
				b->ncache++;
		}
		if (!r->cancelled)
			r->cb(r->ok, r->arg);
		req_free(r);
	}
}

struct basic *
basic_new(struct event_base *base, const struct kvlist *users)
{
	struct basic *b;
	if (users->n == 0)
		return NULL;
	b = xcalloc(1, sizeof *b);
	b->users = users;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pipe2(b->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		fatalx(70, "admin.auth.basic_auth_users: pipe: %s", strerror(errno));
	b->ev = event_new(base, b->pipe[0], EV_READ | EV_PERSIST, verdicts, b);
	event_add(b->ev, NULL);
	if ((errno = pthread_create(&b->thread, NULL, worker, b)) != 0)
		fatalx(70, "admin.auth.basic_auth_users: cannot start the bcrypt thread: %s", strerror(errno));
	return b;
}

void
basic_free(struct basic *b)
{
	struct basic_req *r, *next;
	if (b == NULL)
		return;
	pthread_mutex_lock(&b->mu);
	b->stop = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	for (int q = 0; q < 2; q++)
		for (r = b->queue[q]; r != NULL; r = next) {
			next = r->next;
			req_free(r);
		}
	for (r = b->done; r != NULL; r = next) {
		next = r->next;
		req_free(r);
	}
	event_free(b->ev);
	close(b->pipe[0]);
	close(b->pipe[1]);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	explicit_bzero(b->cache, sizeof b->cache);
	free(b);
}

int
basic_check(struct basic *b, const char *user, const char *pass, basic_cb cb, void *arg,
    struct basic_req **out)
{
	const char *hash = kvlist_get(b->users, user);
	size_t ul = strlen(user), pl = strlen(pass);
	int q;
	char *material = xmalloc(ul + pl + 2);
	struct basic_req *r = xcalloc(1, sizeof *r);
	memcpy(material, user, ul + 1);
	memcpy(material + ul + 1, pass, pl + 1);
	gnutls_hash_fast(GNUTLS_DIG_SHA256, material, ul + pl + 1, r->key);
	explicit_bzero(material, ul + pl + 2);
	free(material);
	if (hash != NULL && cached(b, r->key)) {
		free(r);
		return BASIC_OK;
	}
	q = hash == NULL;
	pthread_mutex_lock(&b->mu);
	if (b->nqueued[q] >= (q ? BASIC_UNKNOWN_QUEUE : BASIC_QUEUE)) {
		pthread_mutex_unlock(&b->mu);
		free(r);
		return BASIC_BUSY;
	}
	r->b = b;
	r->known = hash != NULL;
	r->hash = xstrdup(hash != NULL ? hash : dummy_hash);
	r->pass = xstrdup(pass);
	r->cb = cb;
	r->arg = arg;
	{	/* in arrival order */
		struct basic_req **pp = &b->queue[q];
		while (*pp != NULL)
			pp = &(*pp)->next;
		*pp = r;
	}
	b->nqueued[q]++;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	*out = r;
	return BASIC_PENDING;
}

void
basic_cancel(struct basic_req *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->b->mu);
	r->cancelled = 1;
	pthread_mutex_unlock(&r->b->mu);
}
