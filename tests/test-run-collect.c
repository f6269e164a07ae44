/* test-run-collect: what the collectors make of a run's folder: frame
 * metrics over the window, log metrics only from lines inside it, shots
 * from the log line or the PNG, sampler metrics (swap over the run, GPU
 * busy in the window), the renderer's configuration, and a run made
 * elsewhere (import) reading only the files it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <png.h>

#include "deck/deck.h"
#include "run/run.h"
#include "test-run-util.h"

#define T0_NS ((int64_t)1000000000000) /* 1000 s on CLOCK_MONOTONIC */

static double metric(const struct run_collected *c, const char *name)
{
	for (size_t i = 0; i < c->r.n_metrics; i++)
		if (strcmp(c->r.metrics[i].name, name) == 0)
			return c->r.metrics[i].value;
	return NAN;
}

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g", got, want);
}

/* 10 s of frames at 100 fps from t0, readback wait 2 ms each. */
static void write_frames(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int k = 0; k <= 1000; k++)
		fprintf(f, "%d,%" PRId64 ",real,10.0,900,2.0,0.5\n", k, T0_NS + (int64_t)k * 10000000);
	fclose(f);
}

static void write_gray_png(const char *path, uint8_t v)
{
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = 4;
	img.height = 4;
	img.format = PNG_FORMAT_RGBA;
	uint8_t px[64];
	for (int i = 0; i < 16; i++) {
		px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = v;
		px[4 * i + 3] = 255;
	}
	assert_true(png_image_write_to_file(&img, path, 0, px, 0, NULL));
}

static void sample(struct deck_sample *s, int64_t t_ns, double busy, double swap_in)
{
	memset(s, 0, sizeof *s);
	s->t_ns = t_ns;
	for (int i = 0; i < DECK_N_READINGS; i++)
		s->r[i].err = -ENOENT;
	if (busy >= 0) {
		s->r[DECK_GPU_BUSY_PCT] = (struct deck_reading){ .value = busy };
	}
	s->r[DECK_SWAP_IN_PAGES] = (struct deck_reading){ .value = swap_in };
}

static void test_run_collect__a_run_folder(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX], profile[PATH_MAX];
	write_frames(tdir_file(&t, "frames.csv", p, sizeof p));
	write_text(tdir_file(&t, "renderer.log", p, sizeof p),
	           "[999.500000] vk: device 0: Test GPU (test 1.0), Vulkan 1.3, CPU\n"
	           "[999.500001] vk: switches: RX_VK_READBACK_EARLY=1 (env)\n"
	           "[1001.000000] vk: readbacks: 3000 reads, 300 waited 4.0 ms each\n"
	           "[1005.000000] vk: readbacks: 3000 reads, 100 waited 2.0 ms each\n"
	           "[1005.500000] forest: shot walk frame 550 luma 99.50 checksum 00000000000000aa\n"
	           "[1009.000000] vk: readbacks: 3000 reads, 900 waited 9.0 ms each\n");
	write_text(tdir_file(&t, "stderr.log", p, sizeof p), "game: hello\n");
	char shots[PATH_MAX];
	mkdir(tdir_file(&t, "shots", shots, sizeof shots), 0700);
	write_gray_png(tdir_file(&t, "shots/pan.png", p, sizeof p), 200);
	write_text(tdir_file(&t, "rxvk.collect", profile, sizeof profile),
	           "name t\n"
	           "timestamps rxlog\n"
	           "pattern readbacks ^vk: readbacks: (?<reads>[0-9]+) reads, (?<waited>[0-9]+) waited "
	           "(?<each>[0-9.]+) ms each$\n"
	           "metric rb_waits = per(waited, reads, 3000)\n"
	           "metric rb_wait_each_ms = wmean(each, waited)\n");
	struct deck_sample s[3];
	sample(&s[0], T0_NS - 500000000, -1, 100);
	sample(&s[1], T0_NS + 5000000000LL, 80, 150);
	sample(&s[2], T0_NS + 11000000000LL, 10, 400);
	const char *names[] = { "walk", "pan", "gone" };
	struct run_collect_spec spec = {
		.run_dir = t.path,
		.window_s = { 2, 8 },
		.t0_ns = T0_NS,
		.collect_profile = profile,
		.shot_names = names,
		.n_shots = 3,
		.samples = s,
		.n_samples = 3,
	};
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_false(c.no_frames);
	near(metric(&c, "real_fps"), 100, 1e-9);
	near(metric(&c, "real_frames"), 600, 0);
	near(metric(&c, "rb_wait_ms"), 2.0, 1e-9);
	near(metric(&c, "memsync_ms"), 0.5, 1e-9);
	near(metric(&c, "draws"), 900, 0);
	near(metric(&c, "p50_ms"), 10, 1e-6);
	/* only the line at 5 s is inside (2, 8] */
	near(metric(&c, "rb_waits"), 100, 1e-9);
	near(metric(&c, "rb_wait_each_ms"), 2.0, 1e-9);
	assert_int_equal(c.r.n_log_lines, 3);
	assert_string_equal(c.r.log_lines[1].pattern, "readbacks");
	assert_int_equal(c.r.log_lines[1].t_ns, 1005000000000LL);
	assert_int_equal(c.r.log_lines[1].n_captures, 3);
	/* swap over the whole run, GPU busy of the window's samples only */
	near(metric(&c, "swap_in"), 300, 0);
	near(metric(&c, "gpu_busy_percent"), 80, 0);
	assert_true(isnan(metric(&c, "gpu_sclk_mhz"))); /* absent: not made up */
	assert_int_equal(c.r.n_samples, 3 * DECK_N_READINGS);
	size_t absent = 0;
	for (size_t i = 0; i < c.r.n_samples; i++)
		absent += c.r.samples[i].absent;
	assert_int_equal(absent, 3 * (DECK_N_READINGS - 1) - 2);
	/* shots: the log's for walk, the PNG's for pan, none for gone */
	assert_int_equal(c.r.n_shots, 2);
	assert_string_equal(c.r.shots[0].name, "walk");
	near(c.r.shots[0].luma, 99.5, 1e-9);
	assert_string_equal(c.r.shots[0].checksum, "00000000000000aa");
	assert_null(c.r.shots[0].path);
	assert_string_equal(c.r.shots[1].name, "pan");
	near(c.r.shots[1].luma, 200.0 * 256 / 256, 1e-9);
	assert_non_null(strstr(c.r.shots[1].path, "shots/pan.png"));
	assert_non_null(strstr(c.warnings, "shot 'gone'"));
	assert_string_equal(c.r.config, "vk: device 0: Test GPU (test 1.0), Vulkan 1.3, CPU\n"
	                                "vk: switches: RX_VK_READBACK_EARLY=1 (env)");
	assert_int_equal(c.r.n_frames, 1001);
	assert_int_equal(c.r.frames[1].present_ns, T0_NS + 10000000);
	run_collected_add_metric(&c, "route_late_p99_ms", 0.25);
	near(metric(&c, "route_late_p99_ms"), 0.25, 0);
	assert_int_equal(run_collected_add_metric(&c, "x", NAN), -EINVAL);
	run_collected_finish(&c);
	tdir_remove(&t);
}

static void test_run_collect__no_route_no_window_metrics(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX];
	write_frames(tdir_file(&t, "frames.csv", p, sizeof p));
	struct run_collect_spec spec = { .run_dir = t.path, .window_s = { 2, 8 }, .t0_ns = 0 };
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_true(c.no_frames);
	assert_true(isnan(metric(&c, "real_fps")));
	assert_int_equal(c.r.n_frames, 1001); /* the frames are kept */
	run_collected_finish(&c);
	tdir_remove(&t);
}

static void test_run_collect__missing_frame_log_is_a_warning(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	struct run_collect_spec spec = { .run_dir = t.path, .window_s = { 2, 8 }, .t0_ns = T0_NS };
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_true(c.no_frames);
	assert_non_null(strstr(c.warnings, "no frame log"));
	assert_int_equal(c.r.n_frames, 0);
	/* no log at all: void, with a reason naming the missing log */
	assert_true(c.no_log);
	assert_string_equal(c.void_reason, "no log: the game wrote no frame log (frames.csv)");
	run_collected_finish(&c);
	spec.mangohud = true;
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_true(c.no_log);
	assert_string_equal(c.void_reason, "no log: MangoHud wrote no CSV into the run's mangohud/ folder");
	run_collected_finish(&c);
	spec.mangohud = false;

	/* a broken collector profile is an error, with its place */
	char prof[PATH_MAX];
	write_text(tdir_file(&t, "bad.collect", prof, sizeof prof), "pattern x (\n");
	spec.collect_profile = prof;
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "bad.collect:1:"));
	tdir_remove(&t);
}

static void test_run_collect__import_reads_only_named_files(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX], frames[PATH_MAX];
	write_frames(tdir_file(&t, "elsewhere.csv", frames, sizeof frames));
	/* files that belong to no one here */
	write_text(tdir_file(&t, "renderer.log", p, sizeof p),
	           "[1005.000000] forest: shot walk frame 1 luma 1.00 checksum 01\n");
	const char *names[] = { "walk" };
	struct run_collect_spec spec = {
		.run_dir = t.path, .window_s = { 2, 8 }, .t0_ns = T0_NS, .t0_log_ns = T0_NS,
		.frame_log = frames, .shot_names = names, .n_shots = 1,
	};
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	near(metric(&c, "real_fps"), 100, 1e-9);
	assert_int_equal(c.r.n_shots, 0);
	assert_null(c.r.config);
	run_collected_finish(&c);
	tdir_remove(&t);
}

/* A MangoHud log of 12 s at 50 fps: elapsed in ns from the log's start. */
static void write_mangohud(const char *path, double from_s, double to_s)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n");
	fprintf(f, "Debian,cpu,llvmpipe,8GB,6.1,Mesa,\n");
	fprintf(f, "fps,frametime,cpu_load,gpu_load,elapsed\n");
	for (int k = 0; k * 0.02 <= to_s - from_s + 1e-9; k++)
		fprintf(f, "50,20.000,10,20,%" PRId64 "\n",
		        (int64_t)llround((from_s + k * 0.02) * 1e9));
	fclose(f);
}

static void test_run_collect__mangohud_frames_stored_on_the_route_clock(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char dir[PATH_MAX], p[PATH_MAX];
	tdir_file(&t, "mangohud", dir, sizeof dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_mangohud(tdir_file(&t, "mangohud/vkcube_2026-12-01_19-00-00.csv", p, sizeof p), 0, 12);
	/* the route started 1.5 s into the log */
	struct run_collect_spec spec = {
		.run_dir = t.path, .window_s = { 2, 8 }, .t0_ns = T0_NS,
		.t0_log_ns = 1500000000, .mangohud = true,
	};
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_false(c.no_frames);
	assert_string_equal(c.void_reason, "");
	near(metric(&c, "real_fps"), 50, 1e-9);
	near(metric(&c, "p99_ms"), 20, 1e-4);
	assert_int_equal(c.r.n_frames, 601);
	for (size_t i = 0; i < c.r.n_frames; i++) {
		const struct db_frame *fr = &c.r.frames[i];
		assert_int_equal(fr->source, DB_FRAME_MANGOHUD);
		assert_int_equal(fr->absent, DB_FRAME_NO_RB_WAIT_MS | DB_FRAME_NO_MEMSYNC_MS | DB_FRAME_NO_DRAWS);
		near(fr->frame_ms, 20, 1e-4);
	}
	/* elapsed 0 is 1.5 s before t0 on CLOCK_MONOTONIC */
	assert_true(c.r.frames[0].present_ns == T0_NS - 1500000000);
	assert_true(c.r.frames[100].present_ns == T0_NS + 500000000);
	run_collected_finish(&c);
	tdir_remove(&t);
}

static void test_run_collect__frames_without_optional_columns_are_stored(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX];
	FILE *f = fopen(tdir_file(&t, "frames.csv", p, sizeof p), "w");
	assert_non_null(f);
	fprintf(f, "frame,present_ns,kind,frame_ms,draws\n");
	for (int k = 0; k <= 1000; k++)
		fprintf(f, "%d,%" PRId64 ",real,10.0,900\n", k, T0_NS + (int64_t)k * 10000000);
	fclose(f);
	struct run_collect_spec spec = { .run_dir = t.path, .window_s = { 2, 8 }, .t0_ns = T0_NS };
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_int_equal(c.r.n_frames, 1001);
	assert_int_equal(c.r.frames[5].absent, DB_FRAME_NO_RB_WAIT_MS | DB_FRAME_NO_MEMSYNC_MS);
	assert_int_equal(c.r.frames[5].source, DB_FRAME_RXVK);
	assert_int_equal(c.r.frames[5].draws, 900);
	near(metric(&c, "real_fps"), 100, 1e-9);
	assert_true(isnan(metric(&c, "rb_wait_ms")));
	run_collected_finish(&c);
	tdir_remove(&t);
}

static void test_run_collect__a_log_covering_part_of_the_window_is_void(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX];
	/* frames from 2 to 7 s of a 2 to 11 s window, on the log's clock
	 * with t0 = 0: an import's default */
	write_mangohud(tdir_file(&t, "partial.csv", p, sizeof p), 2, 7);
	struct run_collect_spec spec = {
		.run_dir = t.path, .window_s = { 2, 11 }, .t0_ns = 0, .t0_log_ns = 0,
		.has_t0 = true, .frame_log = p,
	};
	struct run_collected c;
	char msg[256];
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_false(c.no_frames); /* t0 = 0 is a t0 */
	assert_non_null(strstr(c.void_reason, "log covers 2.0–7.0 s of 2.0–11.0 s"));
	run_collected_finish(&c);

	/* configurable: 50 % is enough for 5 of 9 s; negative turns it off */
	spec.min_coverage_pct = 50;
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_string_equal(c.void_reason, "");
	run_collected_finish(&c);
	spec.min_coverage_pct = -1;
	spec.window_s[1] = 60;
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_string_equal(c.void_reason, "");
	run_collected_finish(&c);

	/* the whole window covered is not void */
	write_mangohud(p, 1, 12);
	spec.min_coverage_pct = 0;
	spec.window_s[1] = 11;
	assert_int_equal(run_collect(&spec, &c, msg, sizeof msg), 0);
	assert_string_equal(c.void_reason, "");
	near(metric(&c, "real_fps"), 50, 1e-9);
	run_collected_finish(&c);
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_collect__a_run_folder),
		cmocka_unit_test(test_run_collect__no_route_no_window_metrics),
		cmocka_unit_test(test_run_collect__missing_frame_log_is_a_warning),
		cmocka_unit_test(test_run_collect__import_reads_only_named_files),
		cmocka_unit_test(test_run_collect__mangohud_frames_stored_on_the_route_clock),
		cmocka_unit_test(test_run_collect__frames_without_optional_columns_are_stored),
		cmocka_unit_test(test_run_collect__a_log_covering_part_of_the_window_is_void),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
