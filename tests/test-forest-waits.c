/* test-forest-waits: the readback waits of rxdeck-forest's three arms on
 * the test device: with no switch the job threads wait for whole
 * submissions, with RX_VK_READBACK_EARLY=1 for the culling's part (a
 * fraction of that), with RX_VK_READBACK_LATE=newest not at all.  Measured
 * from the frame log's rb_wait_ms, after the first frames; every arm must
 * also stop cleanly with every readback check passed (exit 0). */
#include "test-forest-util.h"

#define SKIP_FRAMES 5

/* Mean readback wait per real frame of one short run. */
static double arm(const char *tag, const char *env_switch)
{
	char log[300], env_log[320];
	ft_path(log, sizeof log, "%s.csv", tag);
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	/* a frame of tens of milliseconds whose second half (the near, large
	 * quads) costs more than the jobs' CPU work */
	const char *args[] = { "--size", "320x180", "--draws", "600", "--alu", "48", "--job-ms", "2",
	                       "--seconds", "4", "--pad", "none", "--log-every", "0", NULL };
	const char *env[] = { env_log, env_switch, NULL };
	free(ft_run(tag, args, env, 0, 120));
	size_t n;
	struct ft_row *rows = ft_frame_log(log, &n);
	double sum = 0;
	size_t used = 0;
	for (size_t i = SKIP_FRAMES; i < n; i++)
		if (!rows[i].shown) {
			sum += rows[i].rb_wait_ms;
			used++;
		}
	free(rows);
	if (used < 10)
		fail_msg("arm %s presented only %zu frames after the first %d", tag, used, SKIP_FRAMES);
	printf("arm %-8s %zu frames, readback wait %.3f ms a frame\n", tag, used, sum / (double)used);
	return sum / (double)used;
}

static void test_waits__default_whole_early_fraction_late_least(void **state)
{
	double whole = arm("default", "RX_VK_READBACK_EARLY=0");
	double early = arm("early", "RX_VK_READBACK_EARLY=1");
	double late = arm("late", "RX_VK_READBACK_LATE=newest");
	assert_true(whole > 0.5);
	if (!(early <= 0.75 * whole))
		fail_msg("early waits %.3f ms a frame, not a fraction of the default's %.3f ms", early, whole);
	if (!(late < early))
		fail_msg("late waits %.3f ms a frame, not less than early's %.3f ms", late, early);
	(void)state;
}

int main(int argc, char **argv)
{
	ft_init(argc, argv, "forest-waits");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits__default_whole_early_fraction_late_least),
	};
	return ft_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
