#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
	char	*catalog_rel;	/* the same below <dir> */
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

/* The directory name in pfd, never through a link: a fd, or -1 with errno (ELOOP: a link). */
static int
subdir(int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err = errno;
	struct stat st;
	if (fd < 0 && err == ENOTDIR && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		err = ELOOP;	/* O_DIRECTORY says ENOTDIR for a link */
	errno = err;
	return fd;
}

/* The directory at rel below base (AT_FDCWD: rel as it is), each of rel's components opened
 * without following a symbolic link: a fd, or -1 with errno (ELOOP, ENOTDIR: a link or a file). The
 * directory named in the configuration (master.snapshot.dir) is opened as it is: the operator's. */
static int
dir_at(int base, const char *rel)
{
	char part[256];
	int fd = base == AT_FDCWD ? -1 : dup(base), next;
	const char *p = rel;
	if (base == AT_FDCWD)
		return open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0 && *p != '\0') {
		size_t l = strcspn(p, "/");
		if (l == 0 || l >= sizeof part) {
			p += l + (p[l] == '/');
			if (l == 0)
				continue;
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, p, l);
		part[l] = '\0';
		next = subdir(fd, part);
		close(fd);
		fd = next;
		p += l + (p[l] == '/');
	}
	return fd;
}

/* Every part of the snapshot in the directory dfd there, a regular file (not a link) and not empty:
 * 0 (bytes: their sum, when not NULL), or -1 with why. */
static int
complete(int dfd, char *why, size_t len, long long *bytes)
{
	struct stat st;
	long long sum = 0;
	for (int i = 0; parts[i] != NULL; i++) {
		if (fstatat(dfd, parts[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
			snprintf(why, len, "%s: %s", parts[i], strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, len, "%s is not a regular file", parts[i]);
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

static int
complete_at(int pfd, const char *name, char *why, size_t len, long long *bytes)
{
	int fd = pfd >= 0 ? subdir(pfd, name) : -1;
	int rc;
	if (fd < 0) {
		snprintf(why, len, "%s: %s", name, errno == ELOOP ? "a symbolic link, not the master's directory" :
		    strerror(errno));
		return -1;
	}
	rc = complete(fd, why, len, bytes);
	close(fd);
	return rc;
}

/* Remove the snapshot name in the directory pfd: the parts a snapshot has, then the directory if
 * that emptied it. Only those names, and never through a link: anything else there (a link, a
 * file the sidecar did not put) is left as it is, and said. */
static void
remove_snapshot(int pfd, const char *where, const char *name)
{
	int fd = subdir(pfd, name);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warn("mooncake_master: %s/%s is not a directory the sidecar made (%s): left as it is",
			    where, name, errno == ELOOP ? "a symbolic link" : strerror(errno));
		return;
	}
	for (int i = 0; parts[i] != NULL; i++) {
		struct stat st;
		if (fstatat(fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			(void)unlinkat(fd, parts[i], 0);	/* a link itself, never what it points to */
	}
	close(fd);
	if (unlinkat(pfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		log_warn("mooncake_master: %s/%s not removed (%s): files the sidecar did not put there are left",
		    where, name, strerror(errno));
}

/* Hard links of every part of from/name in to/name (made afresh). */
static int
link_parts(int from, int to, const char *where, const char *name, char *why, size_t len)
{
	int ffd = -1, tfd = -1, rc = -1;
	remove_snapshot(to, where, name);
	if (mkdirat(to, name, 0700) != 0 && errno != EEXIST) {
		snprintf(why, len, "mkdir %.300s/%s: %s", where, name, strerror(errno));
		return -1;
	}
	if ((ffd = subdir(from, name)) < 0 || (tfd = subdir(to, name)) < 0) {
		snprintf(why, len, "%.300s/%s: %s", ffd < 0 ? "the snapshot" : where, name,
		    errno == ELOOP ? "a symbolic link" : strerror(errno));
		goto out;
	}
	for (int i = 0; parts[i] != NULL; i++)
		if (linkat(ffd, parts[i], tfd, parts[i], 0) != 0) {
			snprintf(why, len, "link %.300s/%s/%s: %s", where, name, parts[i], strerror(errno));
			close(tfd);
			tfd = -1;
			remove_snapshot(to, where, name);
			goto out;
		}
	rc = 0;
out:
	if (ffd >= 0)
		close(ffd);
	if (tfd >= 0)
		close(tfd);
	return rc;
}

/* rel below master.snapshot.dir, never through a link: a fd or -1 */
static int
open_in(const struct warm *w, const char *rel)
{
	int base = dir_at(AT_FDCWD, w->dir), fd;
	if (base < 0)
		return -1;
	fd = dir_at(base, rel);
	close(base);
	return fd;
}

struct warm *
warm_new(const char *dir, const char *cluster)
{
	struct warm *w = xcalloc(1, sizeof *w);
	DIR *d;
	struct dirent *e;
	int fd;
	w->dir = xstrdup(dir);
	w->catalog = xasprintf("%s/mooncake_master_snapshot/%s", dir, cluster);
	w->catalog_rel = xasprintf("mooncake_master_snapshot/%s", cluster);
	w->keep = xasprintf("%s/last-good", dir);
	/* what an earlier run kept: its directories only, never a link */
	if ((fd = open_in(w, "last-good")) >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (plain(e->d_name) && strcmp(e->d_name, w->good) > 0 && e->d_type == DT_DIR)
				snprintf(w->good, sizeof w->good, "%.100s", e->d_name);
		closedir(d);
	} else if (fd >= 0)
		close(fd);
	return w;
}

void
warm_free(struct warm *w)
{
	if (w == NULL)
		return;
	free(w->dir);
	free(w->catalog);
	free(w->catalog_rel);
	free(w->keep);
	free(w);
}

int
warm_persisted(struct warm *w, const char *id, char *why, size_t len)
{
	char old[600];
	long long bytes = 0;
	int cat, keep, base;
	if (!plain(id)) {
		snprintf(why, len, "no snapshot id in its line");
		return -1;
	}
	if ((cat = open_in(w, w->catalog_rel)) < 0) {
		snprintf(why, len, "%s: %s", w->catalog, errno == ELOOP ? "a symbolic link" : strerror(errno));
		return -1;
	}
	if (complete_at(cat, id, why, len, &bytes) != 0) {
		close(cat);
		return -1;
	}
	base = dir_at(AT_FDCWD, w->dir);
	if (base >= 0 && mkdirat(base, "last-good", 0700) != 0 && errno != EEXIST)
		log_debug("mooncake_master: mkdir %s: %s", w->keep, strerror(errno));
	keep = base >= 0 ? dir_at(base, "last-good") : -1;
	if (base >= 0)
		close(base);
	if (keep < 0 || link_parts(cat, keep, w->keep, id, old, sizeof old) != 0) {
		if (keep < 0)
			snprintf(old, sizeof old, "%s: %s", w->keep, errno == ELOOP ? "a symbolic link" : strerror(errno));
		log_warn("mooncake_master: the snapshot %s is good but not kept aside (%s)", id, old);
		close(cat);
		if (keep >= 0)
			close(keep);
		return 0;
	}
	if (w->good[0] && strcmp(w->good, id) != 0)
		remove_snapshot(keep, w->keep, w->good);
	close(cat);
	close(keep);
	snprintf(w->good, sizeof w->good, "%.100s", id);
	w->good_bytes = bytes;
	return 0;
}

static int
put_back(struct warm *w, char *what, size_t len)
{
	char latest[4096], why[300], werr[300], *text = NULL;
	size_t n = 0;
	int cat = open_in(w, w->catalog_rel), keep = -1, rc = 0;
	snprintf(latest, sizeof latest, "%s/latest.txt", w->catalog);
	if (cat >= 0)
		text = file_read_at(cat, "latest.txt", 4096, FILE_NOFOLLOW, &n);
	while (text != NULL && n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
		text[--n] = '\0';
	if (text != NULL && plain(text)) {
		if (complete_at(cat, text, why, sizeof why, NULL) == 0)
			goto out;	/* the master restores it */
	} else
		snprintf(why, sizeof why, "%s", text == NULL ? "no latest.txt" : "latest.txt names none");
	if (w->good[0] == '\0')
		goto out;	/* nothing better to offer: the master starts cold or restores what it finds */
	if (cat < 0) {
		char err[300];
		if (mkdir_p(w->catalog, 0755, err, sizeof err) != 0 || (cat = open_in(w, w->catalog_rel)) < 0) {
			snprintf(what, len, "%s: %s", w->catalog, cat < 0 && errno == ELOOP ? "a symbolic link" : err);
			rc = -1;
			goto out;
		}
	}
	if ((keep = open_in(w, "last-good")) < 0) {
		snprintf(what, len, "%s: %s", w->keep, errno == ELOOP ? "a symbolic link" : strerror(errno));
		rc = -1;
		goto out;
	}
	if (complete_at(keep, w->good, what, len, NULL) != 0 ||
	    link_parts(keep, cat, w->catalog, w->good, what, len) != 0) {
		rc = -1;
		goto out;
	}
	/* latest.txt at it; where even that cannot be written (the disk full), the master still finds
	 * it among the snapshots it lists once the latest fails (RestoreState's candidates) */
	if (atomic_write(latest, w->good, strlen(w->good), 0644, 0, werr, sizeof werr) != 0)
		log_warn("mooncake_master: latest.txt not rewritten (%s): the master tries the latest first", werr);
	snprintf(what, len, "the latest snapshot %.100s is not good (%.150s): the last good one, %s, put back for "
	    "the restore", text != NULL && text[0] ? text : "(none)", why, w->good);
	rc = 1;
out:
	free(text);
	if (cat >= 0)
		close(cat);
	if (keep >= 0)
		close(keep);
	return rc;
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
