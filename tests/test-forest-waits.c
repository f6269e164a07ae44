/* test-forest-waits: the readback waits of rxdeck-forest's three arms on
 * the test device: with no switch the job threads wait for whole
 * submissions, with RX_VK_READBACK_EARLY=1 for the culling's part, with
 * RX_VK_READBACK_LATE=newest not at all.  Which rule released the reads is
 * read from the renderer's closing totals line (reads at the writer's
 * part, for the whole submission, late), counts that do not depend on how
 * busy the machine is; how long the waits took (the frame log's
 * rb_wait_ms) is printed, not asserted: it measures the machine as much as
 * the arms (renderer/bench/forest-arms.sh measures it).  Every arm must
 * also stop cleanly with every readback check passed (exit 0).  With the
 * camera still, a one-frame-old culling result draws the same picture, so
 * the three arms' frames must be byte-identical. */
#include "test-forest-util.h"
#include "test-rxvk-totals.h"

#define SKIP_FRAMES 5

struct arm {
	double wait_ms;           /* mean readback wait per real frame */
	/* the renderer's totals: reads that waited, released at the writer's
	 * part, for the whole submission, read at once by the late rule */
	unsigned long long waited, at_part, whole, late;
	uint64_t frames[4096], sums[4096];
	size_t n;
};

static struct arm arms[3];

/* One short run of an arm: 40 frames, however long a busy machine takes
 * to draw them. */
static void run_arm(const char *tag, const char *env_switch, struct arm *out)
{
	char log[300], sums[300], env_log[320];
	ft_path(log, sizeof log, "%s.csv", tag);
	ft_path(sums, sizeof sums, "%s-sums.csv", tag);
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	/* a frame of tens of milliseconds whose second half (the near, large
	 * quads) costs more than the jobs' CPU work */
	const char *args[] = { "--size", "320x180", "--draws", "600", "--alu", "48", "--job-ms", "2",
	                       "--frames", "40", "--pad", "none", "--log-every", "0", "--checksums", sums,
	                       NULL };
	const char *env[] = { env_log, env_switch, NULL };
	char *text = ft_run(tag, args, env, 0, 120);
	struct rxvk_totals tot;
	if (rxvk_totals_read(text, &tot) != 0)
		fail_msg("arm %s: no renderer totals line in its log:\n%s", tag, text ? text : "");
	out->waited = tot.waited;
	out->at_part = tot.at_part;
	out->whole = tot.whole;
	out->late = tot.late;
	free(text);
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
	printf("arm %-8s %zu frames, readback wait %.3f ms a frame; reads waited %llu: %llu at the "
	       "writer's part, %llu whole; %llu late\n",
	       tag, used, out->wait_ms, out->waited, out->at_part, out->whole, out->late);
}

static int run_arms(void **state)
{
	run_arm("default", "RX_VK_READBACK_EARLY=0", &arms[0]);
	run_arm("early", "RX_VK_READBACK_EARLY=1", &arms[1]);
	run_arm("late", "RX_VK_READBACK_LATE=newest", &arms[2]);
	(void)state;
	return 0;
}

static void test_waits__default_whole_early_at_the_part_late_none(void **state)
{
	const struct arm *whole = &arms[0], *early = &arms[1], *late = &arms[2];
	/* no switch: every read that waits, waits for the whole submission */
	assert_true(whole->waited > 0);
	assert_int_equal(whole->at_part, 0);
	assert_int_equal(whole->whole, whole->waited);
	assert_int_equal(whole->late, 0);
	/* early: reads released at the culling's part, none read late */
	if (!(early->at_part > 0))
		fail_msg("early: no read released at its writer's part (%llu waited, %llu whole)",
		         early->waited, early->whole);
	assert_int_equal(early->late, 0);
	/* late: reads of the newest submission taken at once, no part split */
	if (!(late->late > 0))
		fail_msg("late: no read taken at once (%llu waited)", late->waited);
	assert_int_equal(late->at_part, 0);
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
		cmocka_unit_test(test_waits__default_whole_early_at_the_part_late_none),
		cmocka_unit_test(test_pictures__same_in_every_arm_with_the_camera_still),
	};
	return ft_finish(cmocka_run_group_tests(tests, run_arms, NULL));
}
