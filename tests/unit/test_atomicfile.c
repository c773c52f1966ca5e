/* Atomic writes and the run directory's safety, on a scratch directory. */
#define _GNU_SOURCE
#include "config.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomicfile.h"
#include "unit.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/mcs-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_write)
{
	char path[128], err[256];
	size_t n;
	char *back;
	struct stat st;
	snprintf(path, sizeof path, "%s/endpoints.json", dir);
	ck_assert_int_eq(atomic_write(path, "one", 3, 0644, ATOMIC_FSYNC, err, sizeof err), 0);
	ck_assert_int_eq(atomic_write(path, "two!", 4, 0640, 0, err, sizeof err), 0);
	back = file_read(path, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(memcmp(back, "two!", 4), 0);
	free(back);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
}
END_TEST

/* A link planted at the name a writer with this pid used to take is not followed: its target keeps
 * what it held, and nothing but the file itself is left in the directory. */
START_TEST(test_no_planted_link)
{
	char path[128], link[160], victim[128], err[256], cmd[256];
	size_t n;
	char *back;
	snprintf(path, sizeof path, "%s/mooncake.env", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(link, sizeof link, "%s.tmp.%ld", path, (long)getpid());
	ck_assert_int_eq(atomic_write(victim, "keep", 4, 0644, 0, err, sizeof err), 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_eq(atomic_write(path, "new", 3, 0644, 0, err, sizeof err), 0);
	back = file_read(victim, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(memcmp(back, "keep", 4), 0);
	free(back);
	snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 3", dir);	/* victim, the link, the file */
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_dir_safe)
{
	char sub[128], err[256];
	snprintf(sub, sizeof sub, "%s/run", dir);
	ck_assert_int_eq(dir_safe(sub, err, sizeof err), 0);	/* missing: created later */
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(dir_safe(sub, err, sizeof err), 0);
	ck_assert_int_eq(chmod(sub, 0777), 0);
	ck_assert_int_eq(dir_safe(sub, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by everyone without the sticky bit (mode 0777)"));
	ck_assert_int_eq(chmod(sub, 0775), 0);
	ck_assert_int_eq(dir_safe(sub, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by its group without the sticky bit"));
	ck_assert_int_eq(chmod(sub, 01777), 0);
	ck_assert_int_eq(dir_safe(sub, err, sizeof err), 0);
	ck_assert_int_eq(dir_safe("/tmp", err, sizeof err), 0);
	ck_assert_int_eq(dir_safe("/etc/hostname", err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a directory"));
}
END_TEST

START_TEST(test_mkdir_p)
{
	char deep[160], err[256];
	struct stat st;
	snprintf(deep, sizeof deep, "%s/a/b/c", dir);
	ck_assert_int_eq(mkdir_p(deep, 0750, err, sizeof err), 0);	/* every parent missing */
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(mkdir_p(deep, 0750, err, sizeof err), 0);	/* there already */
	snprintf(deep, sizeof deep, "%s/a/b/d", dir);
	ck_assert_int_eq(mkdir_p(deep, 0750, err, sizeof err), 0);	/* only the last missing */
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert_int_eq(mkdir_p("/proc/mcs-unit/x", 0750, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "mkdir /proc/mcs-unit: "));
}
END_TEST

/* file_read_at: a regular file whole; never a blocking read of what is not one (a FIFO with no
 * writer would block an open or a read for good), nor more than max bytes, nor through a link when
 * told so; each refusal with its errno and message. */
START_TEST(test_read_at)
{
	char p[128], big[128], why[64];
	size_t n = 99;
	char *s;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	FILE *f;
	snprintf(p, sizeof p, "%s/small", dir);
	f = fopen(p, "w");
	fputs("{\"a\": 1}", f);
	fclose(f);
	s = file_read_at(AT_FDCWD, p, 7, 0, &n);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(errno, EFBIG);
	ck_assert_str_eq(file_read_error(errno, 7, why, sizeof why), "larger than 7 bytes");
	s = file_read_at(AT_FDCWD, p, 8, 0, &n);	/* exactly max */
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "{\"a\": 1}");
	ck_assert_uint_eq(n, 8);
	free(s);
	s = file_read_at(dfd, "small", 64, FILE_NOFOLLOW, NULL);
	ck_assert_ptr_nonnull(s);
	free(s);
	snprintf(p, sizeof p, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	alarm(5);	/* a blocking open or read fails the test by its alarm */
	ck_assert_ptr_null(file_read_at(AT_FDCWD, p, 64, 0, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(file_read_error(errno, 64, why, sizeof why), "not a regular file");
	ck_assert_ptr_null(file_read_at(AT_FDCWD, dir, 64, 0, NULL));
	ck_assert_int_eq(errno, EINVAL);
	alarm(0);
	snprintf(big, sizeof big, "%s/link", dir);
	ck_assert_int_eq(symlink("small", big), 0);
	ck_assert_ptr_null(file_read_at(dfd, "link", 64, FILE_NOFOLLOW, NULL));
	ck_assert_int_eq(errno, ELOOP);
	s = file_read_at(dfd, "link", 64, 0, NULL);
	ck_assert_ptr_nonnull(s);
	free(s);
	ck_assert_ptr_null(file_read_at(dfd, "missing", 64, 0, NULL));
	ck_assert_int_eq(errno, ENOENT);
	close(dfd);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("atomicfile");
	TCase *tc = tcase_create("atomicfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_write);
	tcase_add_test(tc, test_no_planted_link);
	tcase_add_test(tc, test_dir_safe);
	tcase_add_test(tc, test_mkdir_p);
	tcase_add_test(tc, test_read_at);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
