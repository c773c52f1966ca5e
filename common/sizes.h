#ifndef COMMON_SIZES_H
#define COMMON_SIZES_H
#include <stddef.h>
#include <stdint.h>

/* Sizes as the programs that read them parse them; each returns 0, or -1 with err naming the forms
 * that program accepts.
 *
 * vLLM's MooncakeStoreConfig (the store config JSON, vllm flavor): a string stripped and lower-cased,
 * then ^\s*([\d.]+)\s*(gb|mb|kb|b)?\s*$ with the number read by Python's float() (binary units).
 * A JSON integer is taken as it is; the caller checks that. */
int	size_parse_vllm(const char *, uint64_t *, char *, size_t);
/* SGLang's _parse_global_segment_size (MOONCAKE_GLOBAL_SEGMENT_SIZE, sglang flavor): stripped and
 * lower-cased, an integer, or an integer followed by "gb" (GiB). */
int	size_parse_sglang(const char *, uint64_t *, char *, size_t);
#endif
