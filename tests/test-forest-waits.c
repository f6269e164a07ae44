/* test-forest-waits: the readback waits of rxdeck-forest's three arms on
 * the test device: with no switch the job threads wait for whole
 * submissions, with RX_VK_READBACK_EARLY=1 for the culling's part (a
 * fraction of that), with RX_VK_READBACK_LATE=newest not at all.  Measured
 * from the frame log's rb_wait_ms, after the first frames; every arm must
 * also stop cleanly with every readback check passed (exit 0).  With the
 * camera still, a one-frame-old culling result draws the same picture, so
 * the three arms' frames must be byte-identical. */
#include "test-forest-util.h"

#define SKIP_FRAMES 5

struct arm {
	double wait_ms;           /* mean readback wait per real frame */
	uint64_t frames[4096], sums[4096];
	size_t n;
};

static struct arm arms[3];

/* One short run of an arm. */
static void run_arm(const char *tag, const char *env_switch, struct arm *out)
{
	char log[300], sums[300], env_log[320];
	ft_path(log, sizeof log, "%s.csv", tag);
	ft_path(sums, sizeof sums, "%s-sums.csv", tag);
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	/* a frame of tens of milliseconds whose second half (the near, large
	 * quads) costs more than the jobs' CPU work */
	const char *args[] = { "--size", "320x180", "--draws", "600", "--alu", "48", "--job-ms", "2",
	                       "--seconds", "4", "--pad", "none", "--log-every", "0", "--checksums", sums,
	                       NULL };
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
	out->wait_ms = sum / (double)used;
	out->n = ft_checksums(sums, out->frames, out->sums, 4096);
	printf("arm %-8s %zu frames, readback wait %.3f ms a frame\n", tag, used, out->wait_ms);
}

static int run_arms(void **state)
{
	run_arm("default", "RX_VK_READBACK_EARLY=0", &arms[0]);
	run_arm("early", "RX_VK_READBACK_EARLY=1", &arms[1]);
	run_arm("late", "RX_VK_READBACK_LATE=newest", &arms[2]);
	(void)state;
	return 0;
}

static void test_waits__default_whole_early_fraction_late_least(void **state)
{
	double whole = arms[0].wait_ms, early = arms[1].wait_ms, late = arms[2].wait_ms;
	assert_true(whole > 0.5);
	if (!(early <= 0.75 * whole))
		fail_msg("early waits %.3f ms a frame, not a fraction of the default's %.3f ms", early, whole);
	if (!(late < early))
		fail_msg("late waits %.3f ms a frame, not less than early's %.3f ms", late, early);
	(void)state;
}

static void test_pictures__same_in_every_arm_with_the_camera_still(void **state)
{
	for (int a = 1; a < 3; a++) {
		size_t n = arms[a].n < arms[0].n ? arms[a].n : arms[0].n;
		assert_true(n >= 10);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(arms[a].frames[i], arms[0].frames[i]);
			if (arms[a].sums[i] != arms[0].sums[i])
				fail_msg("frame %" PRIu64 " differs in the %s arm", arms[0].frames[i], a == 1 ? "early" : "late");
		}
	}
	(void)state;
}

int main(int argc, char **argv)
{
	ft_init(argc, argv, "forest-waits");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits__default_whole_early_fraction_late_least),
		cmocka_unit_test(test_pictures__same_in_every_arm_with_the_camera_still),
	};
	return ft_finish(cmocka_run_group_tests(tests, run_arms, NULL));
}
