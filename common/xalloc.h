#ifndef COMMON_XALLOC_H
#define COMMON_XALLOC_H
#include <stddef.h>
#include <stdarg.h>

/* Allocation that cannot fail: the daemon has no useful way to continue without memory. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* NULL-terminated string vectors (argv, error lists). */
struct strv {
	char	**v;
	size_t	  n;
	size_t	  cap;
};
void	 strv_push(struct strv *, const char *);
void	 strv_pushf(struct strv *, const char *, ...) __attribute__((format(printf, 2, 3)));
void	 strv_take(struct strv *, char *);
void	 strv_free(struct strv *);
char	**strv_dup(char *const *);
int	 strv_eq(char *const *, char *const *);	/* same strings in the same order; NULL only equals NULL */
void	 strv_freev(char **);
#endif
