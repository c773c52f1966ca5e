#ifndef COMMON_ARENA_H
#define COMMON_ARENA_H
#include <stddef.h>
/*
 * Strings that all die together (one worker command's): each is carved from a block, none is freed
 * on its own. arena_reset empties the arena for the next set and keeps its room, in one block.
 */
struct arena_block;
struct arena {
	struct arena_block	*blocks;	/* the newest first */
};
char	*arena_strndup(struct arena *, const char *, size_t);
char	*arena_strdup(struct arena *, const char *);
void	 arena_reset(struct arena *);
void	 arena_free(struct arena *);
size_t	 arena_blocks(const struct arena *);	/* how many blocks it holds (for the tests) */
#endif
