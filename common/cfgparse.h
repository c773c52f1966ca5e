#ifndef COMMON_CFGPARSE_H
#define COMMON_CFGPARSE_H
#include <jansson.h>
#include "cfgtypes.h"

/* root's keys into c (which holds the defaults): each problem appended to errs as "json.path:
 * message". Returns 0 when it added none. */
int		 cfg_parse(json_t *root, struct cfg *, struct strv *errs);
/* "${VAR}" and "${VAR:-default}" from the environment. Returns NULL with err filled when a
 * variable without a default is unset or the syntax is broken. */
char		*cfg_expand(const char *, char *, size_t);
const char	*cfg_policy_name(int);
/* "an object", "a string", ...: what an error says a value was. */
const char	*cfg_json_kind(const json_t *);
#endif
