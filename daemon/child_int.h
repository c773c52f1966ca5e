#ifndef DAEMON_CHILD_INT_H
#define DAEMON_CHILD_INT_H
/* The child's insides shared by daemon/child.c (the process, its states and timers) and
 * daemon/childlog.c (its output: the log file, rotated, and the tail); nothing else includes it. */
#include <stddef.h>

struct child;

void	childlog_open(struct child *);		/* (re)open log_path for appending */
void	childlog_tail_add(struct child *, const char *, size_t);
/* Append to the log, rotating it past the size child_log_rotation() set. */
void	childlog_write(struct child *, const char *, size_t);
/* Log the last lines of what it wrote (it failed while starting). */
void	childlog_tail(struct child *, int);
#endif
