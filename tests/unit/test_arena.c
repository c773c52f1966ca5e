#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "arena.h"
#include "unit.h"

/* Strings past the first block and one larger than any block keep what was written into them. */
START_TEST(test_strings_survive_growth)
{
	struct arena a = { 0 };
	char *s[2000], want[32], big[10000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	for (int i = 0; i < 2000; i++) {
		snprintf(want, sizeof want, "string %d", i);
		s[i] = arena_strdup(&a, want);
		if (i == 1000)
			ck_assert_str_eq(arena_strdup(&a, big), big);
	}
	ck_assert_uint_gt(arena_blocks(&a), 1);
	for (int i = 0; i < 2000; i++) {
		snprintf(want, sizeof want, "string %d", i);
		ck_assert_str_eq(s[i], want);
	}
	ck_assert_str_eq(arena_strndup(&a, "abcdef", 3), "abc");
	ck_assert_str_eq(arena_strndup(&a, "", 0), "");
	arena_free(&a);
	ck_assert_uint_eq(arena_blocks(&a), 0);
}
END_TEST

/* After a reset the room is one block: the same strings again take no new one. */
START_TEST(test_reset_keeps_room_in_one_block)
{
	struct arena a = { 0 };
	arena_reset(&a);	/* empty: nothing to do */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 500; i++)
			arena_strdup(&a, "a string of some thirty bytes.");
		if (round == 0)
			ck_assert_uint_gt(arena_blocks(&a), 1);
		else
			ck_assert_uint_eq(arena_blocks(&a), 1);
		arena_reset(&a);
		ck_assert_uint_eq(arena_blocks(&a), 1);
	}
	arena_free(&a);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("arena");
	tcase_add_test(tc, test_strings_survive_growth);
	tcase_add_test(tc, test_reset_keeps_room_in_one_block);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
