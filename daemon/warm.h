#ifndef DAEMON_WARM_H
#define DAEMON_WARM_H
/*
 * master.snapshot's files: the snapshots 0.3.12 writes under <dir>/mooncake_master_snapshot/<cluster>/
 * (<id>/{descriptor.txt, manifest.txt, metadata, segments, task_manager}, latest.txt naming the
 * newest), checked after each one the master says persisted, and the last good one kept.
 *
 * 0.3.12 does not check its writes: on a full disk it writes every file of a snapshot empty, says
 * "successfully persisted state", points latest.txt at it and deletes the older, good ones
 * (snapshot_retention_count). So the sidecar checks each snapshot the master says it persisted
 * (every file there and non-empty), keeps hard links of the last good one in <dir>/last-good/<id>
 * (no copy: the master's deletion then leaves its data), and before a start whose latest snapshot is
 * not good, puts the last good one back and points latest.txt at it. A few stat, link and rename
 * calls on a local directory, from the loop.
 */
#include <stddef.h>

struct warm;

struct warm	*warm_new(const char *dir, const char *cluster);
void		 warm_free(struct warm *);
/* The master says it persisted snapshot id: 0 good (kept as the last good one), or -1 with why. */
int		 warm_persisted(struct warm *, const char *id, char *why, size_t);
/* The last good snapshot kept: its id ("" none) and its bytes on disk. */
const char	*warm_good(const struct warm *, long long *bytes);
/* Before a start (NULL: none): the directory made, and when the latest snapshot is not good and a
 * good one is kept, that one put back; each said in the log. */
void		 warm_prepare(struct warm *);
#endif
