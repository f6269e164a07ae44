/* test-forest-run: rxdeck-forest as the harness runs it, on lavapipe with
 * the validation layer on: the same seed gives byte-identical frames, the
 * frame log's format and its flushing while the game runs, a clean stop on
 * SIGTERM, screenshots (control FIFO and SIGUSR1) that match the frame's
 * checksum, frame generation, and the usage errors. */
#include "test-forest-util.h"

#include <ctype.h>
#include <png.h>
#include <sys/stat.h>

static void test_checksums__same_seed_same_frames(void **state)
{
	char a[300], b[300], c[300];
	ft_path(a, sizeof a, "det-a.csv");
	ft_path(b, sizeof b, "det-b.csv");
	ft_path(c, sizeof c, "det-c.csv");
	const char *args_a[] = { FT_SMALL, "--frames", "24", "--seed", "7", "--checksums", a, "--pad", "none", NULL };
	const char *args_b[] = { FT_SMALL, "--frames", "24", "--seed", "7", "--checksums", b, "--pad", "none", NULL };
	const char *args_c[] = { FT_SMALL, "--frames", "24", "--seed", "8", "--checksums", c, "--pad", "none", NULL };
	free(ft_run("det-a", args_a, NULL, 0, 120));
	free(ft_run("det-b", args_b, NULL, 0, 120));
	free(ft_run("det-c", args_c, NULL, 0, 120));
	size_t la = 0, lb = 0;
	char *ta = ft_read(a, &la), *tb = ft_read(b, &lb);
	assert_non_null(ta);
	assert_non_null(tb);
	if (la != lb || memcmp(ta, tb, la) != 0)
		fail_msg("two runs of seed 7 differ:\n%s\n---\n%s", ta, tb);

	uint64_t fa[64], sa[64], fc[64], sc[64];
	size_t na = ft_checksums(a, fa, sa, 64), nc = ft_checksums(c, fc, sc, 64);
	assert_int_equal(na, 24);
	assert_int_equal(nc, 24);
	size_t distinct = 0, same_as_c = 0;
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(fa[i], i + 1);
		distinct += i == 0 || sa[i] != sa[i - 1];
		same_as_c += sa[i] == sc[i];
	}
	/* the characters walk and the trees sway: frames change with no input */
	assert_true(distinct > 12);
	/* another seed is another forest */
	assert_int_equal(same_as_c, 0);
	free(ta);
	free(tb);
	(void)state;
}

/* GPU writes through the device-local mirror (discrete GPUs) give the same
 * frames as writes in place, small scene (one part a frame) and larger. */
static void test_checksums__mirrored_equal_in_place(void **state)
{
	const char *sizes[][4] = { { "160x96", "200" }, { "320x180", "600" } };
	for (int i = 0; i < 2; i++) {
		char a[300], m[300], tag_a[32], tag_m[32];
		ft_path(a, sizeof a, "inplace-%d.csv", i);
		ft_path(m, sizeof m, "mirror-%d.csv", i);
		snprintf(tag_a, sizeof tag_a, "inplace-%d", i);
		snprintf(tag_m, sizeof tag_m, "mirror-%d", i);
		const char *args_a[] = { "--size", sizes[i][0], "--draws", sizes[i][1], "--job-ms", "0.5", "--log-every",
		                         "0", "--frames", "24", "--checksums", a, "--pad", "none", NULL };
		const char *args_m[] = { "--size", sizes[i][0], "--draws", sizes[i][1], "--job-ms", "0.5", "--log-every",
		                         "0", "--frames", "24", "--checksums", m, "--pad", "none", NULL };
		const char *env_a[] = { "RX_VK_MIRROR=0", NULL };
		const char *env_m[] = { "RX_VK_MIRROR=1", NULL };
		free(ft_run(tag_a, args_a, env_a, 0, 120));
		free(ft_run(tag_m, args_m, env_m, 0, 120));
		size_t la = 0, lm = 0;
		char *ta = ft_read(a, &la), *tm = ft_read(m, &lm);
		assert_non_null(ta);
		assert_non_null(tm);
		if (la != lm || memcmp(ta, tm, la) != 0)
			fail_msg("%s frames in place and mirrored differ:\n%s\n---\n%s", sizes[i][0], ta, tm);
		free(ta);
		free(tm);
	}
	(void)state;
}

/* "[seconds.micros] " of CLOCK_MONOTONIC starts the line. */
static bool stamped(const char *line)
{
	const char *p = line;
	if (*p++ != '[' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.')
		return false;
	for (int i = 0; i < 6; i++)
		if (!isdigit((unsigned char)*p++))
			return false;
	return p[0] == ']' && p[1] == ' ';
}

static void test_frame_log__rows_flushed_while_running_and_complete_after_sigterm(void **state)
{
	char log[300];
	ft_path(log, sizeof log, "frames.csv");
	char env_log[320], rx_log[300], env_rx_log[320];
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	ft_path(rx_log, sizeof rx_log, "rx.log");
	snprintf(env_rx_log, sizeof env_rx_log, "RX_LOG=%s", rx_log);
	const char *args[] = { FT_SMALL, "--pad", "none", NULL };
	const char *env[] = { env_log, env_rx_log, NULL };
	struct ft_game g;
	ft_start(&g, "flush", args, env);
	/* rows reach the file within about a second of being presented */
	uint64_t t0 = ft_now_ns();
	size_t n = 0;
	while (ft_now_ns() - t0 < 20000000000ull) {
		char *text = ft_read(log, NULL);
		size_t lines = 0;
		for (char *p = text; p && *p; p++)
			lines += *p == '\n';
		free(text);
		if (lines >= 3) {
			n = lines;
			break;
		}
		ft_sleep_ms(50);
	}
	assert_true(n >= 3);
	size_t rows_then;
	free(ft_frame_log(log, &rows_then));
	ft_sleep_ms(1600);
	size_t rows_later;
	free(ft_frame_log(log, &rows_later));
	assert_true(rows_later > rows_then); /* still flushed, a second later */
	kill(g.pid, SIGTERM);
	assert_int_equal(ft_wait(&g, 60), 0);
	char *out = ft_read(g.log, NULL);
	assert_non_null(strstr(out, "forest: SIGTERM: stopping"));
	uint64_t real = 0;
	assert_int_equal(sscanf(strstr(out, "forest: stopped after "), "forest: stopped after %" SCNu64, &real), 1);
	free(out);
	/* RX_LOG holds the game's lines too, stamped like the renderer's */
	char *text = ft_read(rx_log, NULL);
	assert_non_null(text);
	const char *settings = strstr(text, "] forest: settings: ");
	const char *stopped = strstr(text, "] forest: stopped after ");
	assert_non_null(settings);
	assert_non_null(stopped);
	assert_non_null(strstr(text, "] vk: switches: "));
	for (const char *line = text; *line;) {
		if (!stamped(line))
			fail_msg("RX_LOG line without its stamp: '%.80s'", line);
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	/* the renderer says how many rows it wrote and what they cost it */
	const char *fl = strstr(text, "] vk: frame log: ");
	assert_non_null(fl);
	unsigned long long logged = 0;
	double us = -1;
	assert_int_equal(sscanf(fl, "] vk: frame log: %llu rows, %lf us a row", &logged, &us), 2);
	assert_int_equal(logged, real);
	assert_true(us > 0 && us < 10000);
	free(text);
	size_t count;
	struct ft_row *rows = ft_frame_log(log, &count);
	/* every real frame submitted is in the log after the stop */
	assert_int_equal(count, real);
	for (size_t i = 0; i < count; i++) {
		assert_int_equal(rows[i].frame, i + 1);
		assert_false(rows[i].shown);
		assert_true(rows[i].draws >= 200);
		assert_true(rows[i].frame_ms >= 0);
		assert_true(rows[i].rb_wait_ms >= 0);
	}
	free(rows);
	(void)state;
}

/* Reads a PNG as RGBA bytes, whose FNV-1a is the frame checksum. */
static uint8_t *read_png_rgba(const char *path, uint32_t *w, uint32_t *h)
{
	png_image img = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_file(&img, path))
		fail_msg("cannot read '%s': %s", path, img.message);
	img.format = PNG_FORMAT_RGBA;
	uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
	if (!png_image_finish_read(&img, NULL, px, 0, NULL))
		fail_msg("cannot decode '%s': %s", path, img.message);
	*w = img.width;
	*h = img.height;
	return px;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void check_shot(const char *log, const char *name, const char *sums_path)
{
	char key[200];
	snprintf(key, sizeof key, "forest: shot %s frame ", name);
	const char *line = strstr(log, key);
	if (!line)
		fail_msg("no '%s' line in:\n%s", key, log);
	uint64_t frame, sum;
	double luma;
	assert_int_equal(sscanf(line + strlen(key), "%" SCNu64 " luma %lf checksum %" SCNx64, &frame, &luma, &sum), 3);
	char png[300];
	ft_path(png, sizeof png, "shots/%s.png", name);
	uint32_t w, h;
	uint8_t *px = read_png_rgba(png, &w, &h);
	assert_int_equal(w, 160);
	assert_int_equal(h, 96);
	assert_true(fnv(px, (size_t)w * h * 4) == sum);
	uint64_t l = 0;
	for (size_t i = 0; i < (size_t)w * h; i++)
		l += 54u * px[i * 4] + 183u * px[i * 4 + 1] + 19u * px[i * 4 + 2];
	double want = (double)l / 256.0 / (double)(w * h);
	assert_true(want - luma < 0.006 && luma - want < 0.006);
	free(px);
	uint64_t frames[4096], sums[4096];
	size_t n = ft_checksums(sums_path, frames, sums, 4096);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (frames[i] == frame) {
			assert_true(sums[i] == sum);
			found = true;
		}
	if (!found)
		fail_msg("frame %" PRIu64 " of shot %s is not in the checksum file", frame, name);
}

static void test_shot__control_and_sigusr1_match_frame_checksums(void **state)
{
	char fifo[300], shots[300], sums[300], env_c[320], env_s[320];
	ft_path(fifo, sizeof fifo, "control");
	ft_path(shots, sizeof shots, "shots");
	ft_path(sums, sizeof sums, "shot-sums.csv");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(env_c, sizeof env_c, "RX_CONTROL=%s", fifo);
	snprintf(env_s, sizeof env_s, "RX_SHOT_DIR=%s", shots);
	const char *args[] = { FT_SMALL, "--pad", "none", "--checksums", sums, "--log-every", "5", NULL };
	const char *env[] = { env_c, env_s, NULL };
	struct ft_game g;
	ft_start(&g, "shot", args, env);
	free(ft_wait_log(&g, "forest: frame 5 position", 60));
	/* writers come and go: each line from its own open */
	for (int i = 0; i < 3; i++) {
		int fd = open(fifo, O_WRONLY);
		assert_true(fd >= 0);
		const char *lines[] = { "shot entrance\n", "# a comment\n\nfrobnicate now\n", "shot second\n" };
		assert_true(write(fd, lines[i], strlen(lines[i])) > 0);
		close(fd);
		if (i == 0)
			free(ft_wait_log(&g, "forest: shot entrance frame", 60));
	}
	free(ft_wait_log(&g, "forest: shot second frame", 60));
	kill(g.pid, SIGUSR1);
	char *log = ft_wait_log(&g, "checksum", 1); /* at least one shot line exists */
	free(log);
	uint64_t t0 = ft_now_ns();
	for (;;) {
		log = ft_read(g.log, NULL);
		const char *p = log;
		int shots_seen = 0;
		while ((p = strstr(p, "forest: shot ")))
			shots_seen++, p++;
		if (shots_seen >= 3)
			break;
		free(log);
		if (ft_now_ns() - t0 > 60000000000ull)
			fail_msg("no SIGUSR1 screenshot");
		ft_sleep_ms(20);
	}
	free(log);
	kill(g.pid, SIGTERM);
	assert_int_equal(ft_wait(&g, 60), 0);
	log = ft_read(g.log, NULL);
	check_shot(log, "entrance", sums);
	check_shot(log, "second", sums);
	/* the SIGUSR1 shot is named by its frame number */
	const char *usr1 = strstr(strstr(log, "forest: shot second"), "forest: shot ");
	usr1 = strstr(usr1 + 1, "forest: shot ");
	assert_non_null(usr1);
	char name[32];
	uint64_t frame;
	assert_int_equal(sscanf(usr1, "forest: shot %31s frame %" SCNu64, name, &frame), 2);
	char want[32];
	snprintf(want, sizeof want, "%" PRIu64, frame);
	assert_string_equal(name, want);
	check_shot(log, name, sums);
	/* a bad control line is reported with its line and column */
	if (!strstr(log, ":4:1: unknown command 'frobnicate'"))
		fail_msg("no error for the bad control line in:\n%s", log);
	free(log);
	(void)state;
}

static void framegen(unsigned n)
{
	char log[300], env_log[320], env_fg[32];
	ft_path(log, sizeof log, "framegen-%u.csv", n);
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	snprintf(env_fg, sizeof env_fg, "RX_FRAMEGEN=%u", n);
	const char *args[] = { FT_SMALL, "--pad", "none", "--frames", "12", NULL };
	const char *env[] = { env_log, env_fg, NULL };
	char tag[32];
	snprintf(tag, sizeof tag, "framegen-%u", n);
	free(ft_run(tag, args, env, 0, 120));
	size_t count;
	struct ft_row *rows = ft_frame_log(log, &count);
	assert_int_equal(count, 12 * n);
	/* each real frame is preceded by n - 1 generated ones */
	for (size_t i = 0; i < count; i++) {
		assert_int_equal(rows[i].shown, (i % n) != n - 1);
		if (rows[i].shown)
			assert_int_equal(rows[i].draws, 0);
	}
	free(rows);
}

static void test_framegen__doubles_and_triples_shown_frames(void **state)
{
	framegen(2);
	framegen(3);
	(void)state;
}

static void test_usage__bad_values_exit_2_with_reason(void **state)
{
	const char *a1[] = { "--size", "12x", NULL };
	char *log = ft_run("usage-size", a1, NULL, 2, 30);
	assert_non_null(strstr(log, "--size '12x'"));
	free(log);
	const char *env[] = { "RX_FRAMEGEN=5", NULL };
	log = ft_run("usage-framegen", NULL, env, 2, 30);
	assert_non_null(strstr(log, "RX_FRAMEGEN='5'"));
	free(log);
	const char *a4[] = { "--pad", "joystick", NULL };
	log = ft_run("usage-pad", a4, NULL, 2, 30);
	assert_non_null(strstr(log, "--pad 'joystick'"));
	free(log);
	const char *a5[] = { "--help", NULL };
	log = ft_run("usage-help", a5, NULL, 0, 30);
	assert_non_null(strstr(log, "--checksums FILE"));
	free(log);
	(void)state;
}

int main(int argc, char **argv)
{
	ft_init(argc, argv, "forest-run");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksums__same_seed_same_frames),
		cmocka_unit_test(test_checksums__mirrored_equal_in_place),
		cmocka_unit_test(test_frame_log__rows_flushed_while_running_and_complete_after_sigterm),
		cmocka_unit_test(test_shot__control_and_sigusr1_match_frame_checksums),
		cmocka_unit_test(test_framegen__doubles_and_triples_shown_frames),
		cmocka_unit_test(test_usage__bad_values_exit_2_with_reason),
	};
	return ft_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
