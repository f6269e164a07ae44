/* Tests of the route shot rule (stats-shot.c) that the void check and the
 * report's shot grid share: the tolerance against the median luma, the
 * checksum that always agrees, and shots that cannot be compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "stats/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_shot__differs_beyond_tolerance_from_median(void **state)
{
	(void)state;
	/* median of 100, 104, 140 is 104: 121 is 17 away, 120 is 16 away */
	const struct stats_shot others[] = { { 100, "aa" }, { 140, "bb" }, { 104, "cc" } };
	struct stats_shot_verdict v;
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 121, "dd" }, others, N(others),
	                                    16, &v), 0);
	assert_true(v.differs);
	assert_false(v.same_checksum);
	assert_int_equal(v.n_compared, 3);
	assert_float_equal(v.median_luma, 104, 0);
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 120, "dd" }, others, N(others),
	                                    16, &v), 0);
	assert_false(v.differs);
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 87.5, "dd" }, others, N(others),
	                                    16, &v), 0);
	assert_true(v.differs);
}

static void test_shot__even_count_median_is_middle_mean(void **state)
{
	(void)state;
	const struct stats_shot others[] = { { 90, NULL }, { 110, NULL } };
	struct stats_shot_verdict v;
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 100, NULL }, others, N(others),
	                                    5, &v), 0);
	assert_float_equal(v.median_luma, 100, 0);
	assert_false(v.differs);
}

static void test_shot__same_checksum_always_agrees(void **state)
{
	(void)state;
	const struct stats_shot others[] = { { 10, "aa" }, { 12, "ab12" } };
	struct stats_shot_verdict v;
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 200, "ab12" }, others, N(others),
	                                    16, &v), 0);
	assert_true(v.same_checksum);
	assert_false(v.differs);
	/* an empty checksum is not known, and never equal */
	const struct stats_shot blank[] = { { 10, "" } };
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 200, "" }, blank, 1, 16, &v), 0);
	assert_false(v.same_checksum);
	assert_true(v.differs);
}

static void test_shot__unknown_luma_never_differs(void **state)
{
	(void)state;
	const struct stats_shot others[] = { { NAN, "aa" }, { 50, "bb" } };
	struct stats_shot_verdict v;
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ NAN, "cc" }, others, N(others),
	                                    16, &v), 0);
	assert_false(v.differs);
	assert_int_equal(v.n_compared, 1);
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 200, "cc" }, NULL, 0, 16, &v), 0);
	assert_false(v.differs);
	assert_true(isnan(v.median_luma));
	/* tolerance 0 turns the rule off */
	assert_int_equal(stats_shot_compare(&(struct stats_shot){ 200, "cc" }, others, N(others),
	                                    0, &v), 0);
	assert_false(v.differs);
	assert_int_equal(stats_shot_compare(NULL, others, 1, 16, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shot__differs_beyond_tolerance_from_median),
		cmocka_unit_test(test_shot__even_count_median_is_middle_mean),
		cmocka_unit_test(test_shot__same_checksum_always_agrees),
		cmocka_unit_test(test_shot__unknown_luma_never_differs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
