/* Env-file quoting: any value renders as one KEY="..." assignment whose inside has no unescaped
 * double quote, $, backtick or backslash, and envfile_parse() reads it back as it was; any input
 * read as a file parses or is refused, without a crash. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "envfile.h"
#include "kvlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *value = malloc(len + 1);
	struct buf b = { 0 };
	memcpy(value, data, len);
	value[len] = '\0';
	envfile_line(&b, "K", value);
	if (strncmp(b.p, "K=\"", 3) != 0 || b.len < 5 || b.p[b.len - 1] != '\n' || b.p[b.len - 2] != '"')
		abort();
	for (size_t i = 3; i < b.len - 2; i++) {
		if (b.p[i] == '\\') {
			if (strchr("\\\"$`", b.p[i + 1]) == NULL)
				abort();
			i++;
		} else if (strchr("\"$`", b.p[i]) != NULL)
			abort();
	}
	{
		struct kvlist l = { 0 };
		char err[128];
		if (memchr(data, '\0', len) == NULL &&
		    (envfile_parse(b.p, b.len, &l, err, sizeof err) != 0 || l.n != 1 || strcmp(l.v[0].value, value) != 0))
			abort();
		kvlist_clear(&l);
		(void)envfile_parse((const char *)data, len, &l, err, sizeof err);
		kvlist_clear(&l);
	}
	buf_free(&b);
	free(value);
	return 0;
}
