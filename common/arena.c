#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "xalloc.h"

#define ARENA_FIRST	2048	/* one worker command's strings take about 1 KiB */

struct arena_block {
	struct arena_block	*next;
	size_t			 size, used;
	char			 data[];
};

static struct arena_block *
block_new(size_t size, struct arena_block *next)
{
	struct arena_block *b = xmalloc(sizeof *b + size);
	b->next = next;
	b->size = size;
	b->used = 0;
	return b;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	struct arena_block *b = a->blocks;
	char *p;
	if (b == NULL || b->size - b->used < n + 1) {
		/* Each new block at least doubles the room, so that n strings take O(log n) blocks. */
		size_t size = b != NULL ? 2 * b->size : ARENA_FIRST;
		if (size < n + 1)
			size = n + 1;
		b = a->blocks = block_new(size, b);
	}
	p = b->data + b->used;
	b->used += n + 1;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void
arena_reset(struct arena *a)
{
	size_t total = 0;
	if (a->blocks == NULL)
		return;
	if (a->blocks->next == NULL) {
		a->blocks->used = 0;
		return;
	}
	/* What the last set needed, in one block: the next set of the same size takes no malloc. */
	for (struct arena_block *b = a->blocks; b != NULL; b = b->next)
		total += b->size;
	arena_free(a);
	a->blocks = block_new(total, NULL);
}

void
arena_free(struct arena *a)
{
	while (a->blocks != NULL) {
		struct arena_block *next = a->blocks->next;
		free(a->blocks);
		a->blocks = next;
	}
}

size_t
arena_blocks(const struct arena *a)
{
	size_t n = 0;
	for (const struct arena_block *b = a->blocks; b != NULL; b = b->next)
		n++;
	return n;
}
