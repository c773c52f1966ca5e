/* The parallel-size flags of vLLM and SGLang, in every spelling their parsers take. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parflags.h"

const char *const *
parflags_spellings(const char *flavor, int pp)
{
	static const char *const vllm[2][4] = {
		{ "--tensor-parallel-size", "--tensor_parallel_size", "-tp", NULL },
		{ "--pipeline-parallel-size", "--pipeline_parallel_size", "-pp", NULL },
	};
	static const char *const sglang[2][6] = {
		{ "--tp-size", "--tensor-parallel-size", "--tp", "--tp_size", "--tensor_parallel_size", NULL },
		{ "--pp-size", "--pipeline-parallel-size", "--pp", "--pp_size", "--pipeline_parallel_size", NULL },
	};
	if (strcmp(flavor, "vllm") == 0)
		return vllm[pp];
	if (strcmp(flavor, "sglang") == 0)
		return sglang[pp];
	return NULL;
}

int
parflags_find(const char *flavor, char *const *argv, int pp, long *value, char *spelling,
    size_t len)
{
	const char *const *sp = parflags_spellings(flavor, pp);
	for (size_t i = 0; sp != NULL && argv[i] != NULL; i++)
		for (size_t k = 0; sp[k] != NULL; k++) {
			size_t n = strlen(sp[k]);
			const char *v = NULL;
			char *end;
			if (strcmp(argv[i], sp[k]) == 0)
				v = argv[i + 1] != NULL ? argv[i + 1] : "";
			else if (strncmp(argv[i], sp[k], n) == 0 && argv[i][n] == '=')
				v = argv[i] + n + 1;
			if (v == NULL)
				continue;
			*value = strtol(v, &end, 10);
			if (*v == '\0' || *end != '\0' || *value < 1)
				*value = -1;
			snprintf(spelling, len, "%s", sp[k]);
			return 1;
		}
	return 0;
}
