#ifndef COMMON_SIZES_H
#define COMMON_SIZES_H
#include <stddef.h>
#include <stdint.h>

/* Parse a size the way Mooncake's client does: lower-cased and stripped, suffix matched in the order
 * kb mb gb tb k m g t b (all binary), the number may be fractional. Returns 0, or -1 with err filled. */
int	size_parse(const char *, uint64_t *, char *, size_t);
#endif
