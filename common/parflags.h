#ifndef COMMON_PARFLAGS_H
#define COMMON_PARFLAGS_H
#include <stddef.h>

/* The spellings of the tensor (pp 0) or pipeline (pp 1) parallel size that a flavor's parser takes,
 * its own first (vLLM: --tensor-parallel-size, --tensor_parallel_size, -tp; SGLang: --tp-size,
 * --tensor-parallel-size, --tp, ...), NULL-terminated; NULL for a flavor without them. */
const char *const *parflags_spellings(const char *flavor, int pp);
/* The parallel size a command carries, in any of those spellings, as "FLAG V" or "FLAG=V". Returns
 * 1 with *value (-1 when it is not a plain number) and the spelling found, or 0. */
int	parflags_find(const char *flavor, char *const *argv, int pp, long *value, char *spelling,
	    size_t len);
#endif
