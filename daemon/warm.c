#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomicfile.h"
#include "log.h"
#include "warm.h"
#include "xalloc.h"

/* what 0.3.12 writes for each snapshot (ha/snapshot: catalog and payloads) */
static const char *const parts[] = { "descriptor.txt", "manifest.txt", "metadata", "segments", "task_manager", NULL };

struct warm {
	char	*dir;
	char	*catalog;	/* <dir>/mooncake_master_snapshot/<cluster> */
	char	*keep;		/* <dir>/last-good */
	char	 good[128];	/* the id kept there, "" none */
	long long good_bytes;
};

/* Is the id a plain name (no path in it)? */
static int
plain(const char *id)
{
	return id[0] != '\0' && id[0] != '.' && strchr(id, '/') == NULL && strlen(id) < 100;
}

/* Every part of the snapshot in dir there and not empty: 0 (bytes: their sum, when not NULL), or -1
 * with why. */
static int
complete(const char *dir, char *why, size_t len, long long *bytes)
{
	char p[4096];
	struct stat st;
	long long sum = 0;
	for (int i = 0; parts[i] != NULL; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, parts[i]);
		if (stat(p, &st) != 0) {
			snprintf(why, len, "%s: %s", parts[i], strerror(errno));
			return -1;
		}
		if (st.st_size == 0) {
			snprintf(why, len, "%s is empty (the master wrote nothing: a full disk?)", parts[i]);
			return -1;
		}
		sum += st.st_size;
	}
	if (bytes != NULL)
		*bytes = sum;
	return 0;
}

static void
remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096];
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/* Hard links of every part of from in to (made afresh). */
static int
link_parts(const char *from, const char *to, char *why, size_t len)
{
	char a[4096], b[4096];
	remove_tree(to);
	if (mkdir_p(to, 0700, why, len) != 0)
		return -1;
	for (int i = 0; parts[i] != NULL; i++) {
		snprintf(a, sizeof a, "%s/%s", from, parts[i]);
		snprintf(b, sizeof b, "%s/%s", to, parts[i]);
		if (link(a, b) != 0) {
			snprintf(why, len, "link %.300s: %s", b, strerror(errno));
			remove_tree(to);
			return -1;
		}
	}
	return 0;
}

struct warm *
warm_new(const char *dir, const char *cluster)
{
	struct warm *w = xcalloc(1, sizeof *w);
	DIR *d;
	struct dirent *e;
	w->dir = xstrdup(dir);
	w->catalog = xasprintf("%s/mooncake_master_snapshot/%s", dir, cluster);
	w->keep = xasprintf("%s/last-good", dir);
	/* what an earlier run kept */
	if ((d = opendir(w->keep)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (plain(e->d_name) && strcmp(e->d_name, w->good) > 0)
				snprintf(w->good, sizeof w->good, "%.100s", e->d_name);
		closedir(d);
	}
	return w;
}

void
warm_free(struct warm *w)
{
	if (w == NULL)
		return;
	free(w->dir);
	free(w->catalog);
	free(w->keep);
	free(w);
}

int
warm_persisted(struct warm *w, const char *id, char *why, size_t len)
{
	char snap[4096], kept[4096], old[4096];
	long long bytes = 0;
	if (!plain(id)) {
		snprintf(why, len, "no snapshot id in its line");
		return -1;
	}
	snprintf(snap, sizeof snap, "%s/%s", w->catalog, id);
	if (complete(snap, why, len, &bytes) != 0)
		return -1;
	snprintf(kept, sizeof kept, "%s/%s", w->keep, id);
	if (link_parts(snap, kept, old, sizeof old) != 0) {
		log_warn("mooncake_master: the snapshot %s is good but not kept aside (%s)", id, old);
		return 0;
	}
	if (w->good[0] && strcmp(w->good, id) != 0) {
		snprintf(old, sizeof old, "%s/%s", w->keep, w->good);
		remove_tree(old);
	}
	snprintf(w->good, sizeof w->good, "%.100s", id);
	w->good_bytes = bytes;
	return 0;
}

static int
put_back(struct warm *w, char *what, size_t len)
{
	char latest[4096], snap[4096], kept[4096], why[300], *text;
	size_t n = 0;
	snprintf(latest, sizeof latest, "%s/latest.txt", w->catalog);
	text = file_read(latest, &n);
	while (text != NULL && n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
		text[--n] = '\0';
	if (text != NULL && plain(text)) {
		snprintf(snap, sizeof snap, "%s/%s", w->catalog, text);
		if (complete(snap, why, sizeof why, NULL) == 0) {
			free(text);
			return 0;	/* the master restores it */
		}
	} else
		snprintf(why, sizeof why, "%s", text == NULL ? "no latest.txt" : "latest.txt names none");
	if (w->good[0] == '\0') {
		free(text);
		return 0;	/* nothing better to offer: the master starts cold or restores what it finds */
	}
	snprintf(kept, sizeof kept, "%s/%s", w->keep, w->good);
	snprintf(snap, sizeof snap, "%s/%s", w->catalog, w->good);
	if (complete(kept, what, len, NULL) != 0 || link_parts(kept, snap, what, len) != 0) {
		free(text);
		return -1;
	}
	/* latest.txt at it; where even that cannot be written (the disk full), the master still finds
	 * it among the snapshots it lists once the latest fails (RestoreState's candidates) */
	if (atomic_write(latest, w->good, strlen(w->good), 0644, 0, snap, sizeof snap) != 0)
		log_warn("mooncake_master: latest.txt not rewritten (%s): the master tries the latest first", snap);
	snprintf(what, len, "the latest snapshot %.100s is not good (%.150s): the last good one, %s, put back for "
	    "the restore", text != NULL && text[0] ? text : "(none)", why, w->good);
	free(text);
	return 1;
}

void
warm_prepare(struct warm *w)
{
	char what[600];
	int rc;
	if (w == NULL)
		return;
	if (mkdir_p(w->dir, 0700, what, sizeof what) != 0) {
		log_err("mooncake_master: master.snapshot.dir: %s: it starts cold and its snapshots fail", what);
		return;
	}
	if ((rc = put_back(w, what, sizeof what)) != 0)
		log_msg(rc > 0 ? LOG_LVL_WARN : LOG_LVL_ERR, "mooncake_master: %s%s", rc > 0 ? "" :
		    "the last good snapshot could not be put back for the restore: ", what);
}

const char *
warm_good(const struct warm *w, long long *bytes)
{
	*bytes = w != NULL ? w->good_bytes : 0;
	return w != NULL ? w->good : "";
}
