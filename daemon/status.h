#ifndef DAEMON_STATUS_H
#define DAEMON_STATUS_H
/* --status [URL]: query a running sidecar (with a bearer token file, or NULL; https trusting the
 * CA file, or NULL for the system's) and print a summary; the exit code says whether it is ready. */
int	status_main(const char *, const char *, const char *);
/* The same through a client already open (who: how messages begin). */
struct oneshot;
int	status_show(struct oneshot *, const char *who);
#endif
