#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H
#include <check.h>

/* Run one suite with forked tests and exit 0 only when every check passed. */
static inline int
unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
#endif
