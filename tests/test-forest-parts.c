/* test-forest-parts: forest's parts without a device: the simulation's
 * exact steps, the pad decoder (frames, SYN_DROPPED, the layout's ranges),
 * the control-line parser's errors with line and column, the options and
 * environment, the world's determinism, the frame checksum, and PNG
 * writing into place. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <png.h>

#include "forest.h"

static struct forest_pad_state pad_with(int lx, int ly, int rx, int ry, uint32_t buttons)
{
	struct forest_pad_state p = { .buttons = buttons };
	p.axis[FOREST_AXIS_LX] = lx;
	p.axis[FOREST_AXIS_LY] = ly;
	p.axis[FOREST_AXIS_RX] = rx;
	p.axis[FOREST_AXIS_RY] = ry;
	return p;
}

static void test_sim__walk_pan_jump_talk_in_whole_steps(void **state)
{
	struct forest_sim s;
	forest_sim_init(&s);
	struct forest_pad_state idle = pad_with(0, 0, 0, 0, 0);
	for (int i = 0; i < 10; i++)
		forest_sim_step(&s, &idle);
	assert_int_equal(s.frame, 10);
	assert_int_equal(s.x_mm, 0);
	assert_int_equal(s.z_mm, 0);

	/* full forward at yaw 0: -z, FOREST_WALK_MM a frame; the dead zone is 0 */
	struct forest_pad_state fwd = pad_with(FOREST_DEADZONE - 1, -32768, 0, 0, 0);
	for (int i = 0; i < 5; i++)
		forest_sim_step(&s, &fwd);
	assert_int_equal(s.x_mm, 0);
	assert_int_equal(s.z_mm, -5 * FOREST_WALK_MM);
	/* half a push, half a step (truncated) */
	struct forest_pad_state half = pad_with(16384, 0, 0, 0, 0);
	forest_sim_step(&s, &half);
	assert_int_equal(s.x_mm, 16384 * FOREST_WALK_MM / 32767);

	/* a quarter turn in whole pan steps, then forward goes +x */
	forest_sim_init(&s);
	struct forest_pad_state pan = pad_with(0, 0, 32767, 0, 0);
	int steps = 0;
	while (s.yaw < 16384 - FOREST_PAN_UNITS + 1) {
		forest_sim_step(&s, &pan);
		steps++;
	}
	assert_int_equal(s.yaw, steps * FOREST_PAN_UNITS);
	s.yaw = 16384;
	forest_sim_step(&s, &fwd);
	assert_int_equal(s.x_mm, FOREST_WALK_MM);
	assert_int_equal(s.z_mm, 0);
	/* pan left past 0 wraps */
	s.yaw = 100;
	struct forest_pad_state left = pad_with(0, 0, -32767, 0, 0);
	forest_sim_step(&s, &left);
	assert_int_equal(s.yaw, 65536 + 100 - FOREST_PAN_UNITS);
	/* pitch is clamped */
	struct forest_pad_state up = pad_with(0, 0, 0, -32767, 0);
	for (int i = 0; i < 1000; i++)
		forest_sim_step(&s, &up);
	assert_int_equal(s.pitch, FOREST_PITCH_MAX);

	/* A jumps on the press, not while held; the jump comes back to 0 */
	forest_sim_init(&s);
	struct forest_pad_state a = pad_with(0, 0, 0, 0, 1u << FOREST_BUTTON_A);
	forest_sim_step(&s, &a);
	assert_int_equal(s.jumps, 1);
	assert_int_equal(s.jump_mm, FOREST_JUMP_MM);
	int peak = 0, frames = 1;
	while (s.jump_mm > 0 && frames < 1000) {
		forest_sim_step(&s, &a);
		peak = s.jump_mm > peak ? s.jump_mm : peak;
		frames++;
	}
	assert_int_equal(s.jumps, 1);
	assert_int_equal(s.jump_mm, 0);
	assert_true(peak > 1000);
	assert_true(frames > 20 && frames < 40);
	/* B toggles the dialog on each press */
	struct forest_pad_state b = pad_with(0, 0, 0, 0, 1u << FOREST_BUTTON_B);
	forest_sim_step(&s, &b);
	forest_sim_step(&s, &b);
	assert_true(s.talking);
	forest_sim_step(&s, &idle);
	forest_sim_step(&s, &b);
	assert_false(s.talking);
	assert_int_equal(s.talks, 2);

	/* the world's edge holds */
	forest_sim_init(&s);
	for (int i = 0; i < 5000; i++)
		forest_sim_step(&s, &fwd);
	assert_true(s.z_mm > -128000 && s.z_mm < -120000);
	(void)state;
}

static void test_sim__camera_on_the_ground_plus_eye(void **state)
{
	struct forest_world *w;
	assert_int_equal(forest_world_create(3, 1.0, &w), 0);
	struct forest_sim s;
	forest_sim_init(&s);
	s.x_mm = 12345;
	s.z_mm = -6789;
	struct forest_camera c;
	forest_sim_camera(&s, w, &c);
	assert_true(fabsf(c.y - (forest_world_ground_m(w, 12.345f, -6.789f) + 1.7f)) < 1e-4f);
	assert_true(fabsf(c.x - 12.345f) < 1e-6f);
	forest_world_destroy(w);
	(void)state;
}

static void test_world__seed_decides_everything(void **state)
{
	struct forest_world *a, *b, *c;
	assert_int_equal(forest_world_create(42, 1.0, &a), 0);
	assert_int_equal(forest_world_create(42, 1.0, &b), 0);
	assert_int_equal(forest_world_create(43, 1.0, &c), 0);
	assert_int_equal(a->n_instances, b->n_instances);
	assert_memory_equal(a->spheres, b->spheres, (size_t)a->n_instances * 16);
	assert_memory_equal(a->colour, b->colour, (size_t)a->n_instances * 4);
	assert_true(memcmp(a->spheres, c->spheres, (size_t)a->n_instances * 16) != 0);
	/* regions first, then their instances, all inside the world */
	assert_int_equal(a->region_first[0], FOREST_REGIONS);
	assert_int_equal(a->region_first[FOREST_REGIONS], a->n_instances);
	for (uint32_t i = 0; i < a->n_instances; i++) {
		assert_true(fabsf(a->spheres[i * 4]) <= FOREST_WORLD_M / 2);
		assert_true(fabsf(a->spheres[i * 4 + 2]) <= FOREST_WORLD_M / 2);
		assert_int_equal(a->kind[i] == FOREST_KIND_REGION, i < FOREST_REGIONS);
	}
	struct forest_world *big;
	assert_int_equal(forest_world_create(42, 4.0, &big), 0);
	assert_true(big->n_instances > 3 * a->n_instances);
	forest_world_destroy(big);
	forest_world_destroy(a);
	forest_world_destroy(b);
	forest_world_destroy(c);
	(void)state;
}

static struct input_event ev(uint16_t type, uint16_t code, int32_t value)
{
	return (struct input_event){ .type = type, .code = code, .value = value };
}

static void test_pad_decoder__frames_commit_at_syn_report(void **state)
{
	struct forest_pad_decoder d;
	forest_pad_decoder_reset(&d);
	struct input_event e1 = ev(EV_ABS, ABS_X, 20000), e2 = ev(EV_KEY, BTN_SOUTH, 1);
	assert_int_equal(forest_pad_decoder_apply(&d, &e1), 0);
	assert_int_equal(forest_pad_decoder_apply(&d, &e2), 0);
	assert_int_equal(d.state.axis[FOREST_AXIS_LX], 0); /* not yet */
	struct input_event syn = ev(EV_SYN, SYN_REPORT, 0);
	assert_int_equal(forest_pad_decoder_apply(&d, &syn), 1);
	assert_int_equal(d.state.axis[FOREST_AXIS_LX], 20000);
	assert_int_equal(d.state.buttons, 1u << FOREST_BUTTON_A);
	/* out of range values are clamped; foreign codes ignored */
	struct input_event m[] = { ev(EV_ABS, ABS_Z, 900), ev(EV_ABS, ABS_HAT0X, -7), ev(EV_KEY, KEY_A, 1),
	                           ev(EV_REL, REL_X, 3), ev(EV_ABS, ABS_RY, -40000), ev(EV_SYN, SYN_REPORT, 0) };
	assert_int_equal(forest_pad_decode_message(&d, m, sizeof m), 1);
	assert_int_equal(d.state.axis[FOREST_AXIS_LT], 255);
	assert_int_equal(d.state.axis[FOREST_AXIS_HATX], -1);
	assert_int_equal(d.state.axis[FOREST_AXIS_RY], -32768);
	assert_int_equal(d.ignored, 2);
	assert_int_equal(d.state.buttons, 1u << FOREST_BUTTON_A);
	/* SYN_DROPPED: forget, then the full state that follows */
	struct input_event r[] = { ev(EV_SYN, SYN_DROPPED, 0), ev(EV_KEY, BTN_EAST, 1), ev(EV_SYN, SYN_REPORT, 0) };
	assert_int_equal(forest_pad_decode_message(&d, r, sizeof r), 1);
	assert_int_equal(d.state.buttons, 1u << FOREST_BUTTON_B);
	assert_int_equal(d.state.axis[FOREST_AXIS_LX], 0);
	assert_int_equal(d.state.axis[FOREST_AXIS_LT], 0);
	/* a message that is not whole records changes nothing */
	uint8_t bad[sizeof(struct input_event) + 3] = { 0 };
	assert_int_equal(forest_pad_decode_message(&d, bad, sizeof bad), -EPROTO);
	assert_int_equal(d.state.buttons, 1u << FOREST_BUTTON_B);
	(void)state;
}

static void expect_control_error(const char *line, const char *want)
{
	struct forest_control c = { .kind = FOREST_CONTROL_SHOT };
	char err[256] = "";
	assert_int_equal(forest_control_parse(line, strlen(line), 7, &c, err, sizeof err), -EINVAL);
	if (strcmp(err, want) != 0)
		fail_msg("'%s': error '%s', expected '%s'", line, err, want);
}

static void test_control__shot_lines_and_errors_with_position(void **state)
{
	struct forest_control c;
	char err[256];
	assert_int_equal(forest_control_parse("shot forest-entrance_2.a", 24, 1, &c, err, sizeof err), 0);
	assert_int_equal(c.kind, FOREST_CONTROL_SHOT);
	assert_string_equal(c.name, "forest-entrance_2.a");
	assert_int_equal(forest_control_parse("  shot\tx  \r", 11, 1, &c, err, sizeof err), 0);
	assert_string_equal(c.name, "x");
	assert_int_equal(forest_control_parse("# shot a", 8, 1, &c, err, sizeof err), 0);
	assert_int_equal(c.kind, FOREST_CONTROL_NONE);
	assert_int_equal(forest_control_parse("   ", 3, 1, &c, err, sizeof err), 0);
	assert_int_equal(c.kind, FOREST_CONTROL_NONE);
	expect_control_error("shoot a", "7:1: unknown command 'shoot' (expected 'shot NAME')");
	expect_control_error("  shot", "7:7: 'shot' needs a NAME");
	expect_control_error("shot ../etc", "7:6: a shot name must not start with '.'");
	expect_control_error("shot a/b", "7:7: a shot name is letters, digits, '.', '_' and '-' only");
	expect_control_error("shot a b", "7:8: unexpected text after the shot name");
	char longname[200] = "shot ";
	memset(longname + 5, 'n', 129);
	expect_control_error(longname, "7:6: a shot name is at most 128 characters");
	char bin[] = { 's', 'h', '\x01', 't', 0 };
	expect_control_error(bin, "7:1: unknown command (not printable)");
	(void)state;
}

static int parse(const char *const *args, struct forest_options *o, char *err)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"rxdeck-forest";
	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	return forest_options_parse(argc, argv, o, err, 256);
}

static void test_options__values_checked_and_named(void **state)
{
	struct forest_options o;
	char err[256];
	unsetenv("RX_FRAMEGEN");
	unsetenv("RXDECK_PAD");
	const char *ok[] = { "--size", "320x180", "--draws", "500", "--seed", "99", "--scale", "0.5", "--jobs", "3",
	                     "--job-ms=1.5", "--pad", "socket:/tmp/p", "--frames", "10", "--in-flight", "1", NULL };
	assert_int_equal(parse(ok, &o, err), 0);
	assert_int_equal(o.width, 320);
	assert_int_equal(o.height, 180);
	assert_int_equal(o.draws, 500);
	assert_int_equal(o.seed, 99);
	assert_int_equal(o.jobs, 3);
	assert_true(o.job_ms == 1.5);
	assert_string_equal(o.pad, "socket:/tmp/p");
	assert_int_equal(o.frames, 10);
	assert_int_equal(o.in_flight, 1);
	assert_int_equal(o.framegen, 1);
	struct {
		const char *args[6];
		const char *err;
	} bad[] = {
		{ { "--size", "1280", NULL }, "--size '1280': expected WIDTHxHEIGHT, e.g. 1280x720" },
		{ { "--size", "10x10", NULL }, "--size '10x10': width and height must be whole numbers from 64 to 8192" },
		{ { "--draws", "-5", NULL }, "--draws '-5': expected a whole number from 64 to 60000" },
		{ { "--jobs", "0", NULL }, "--jobs '0': expected a whole number from 1 to 16" },
		{ { "--scale", "nan", NULL }, "--scale 'nan': expected a number from 0.1 to 16" },
		{ { "--switches", "7", NULL }, "--switches '7': must be even (each switch away comes back)" },
		{ { "--in-flight", "3", NULL }, "--in-flight '3': expected a whole number from 1 to 2" },
		{ { "--frobnicate", NULL }, "unknown option '--frobnicate' (see --help)" },
		{ { "--seed", NULL }, "option '--seed' needs a value" },
		{ { "extra", NULL }, "unexpected argument 'extra' (see --help)" },
		{ { "--draws", "64", "--switches", "32", NULL }, "--draws 64 is too few for --switches 32 (at least 4 draws a switch)" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(parse(bad[i].args, &o, err), -EINVAL);
		if (strcmp(err, bad[i].err) != 0)
			fail_msg("error '%s', expected '%s'", err, bad[i].err);
	}
	setenv("RX_FRAMEGEN", "3", 1);
	setenv("RXDECK_PAD", "none", 1);
	const char *none[] = { NULL };
	assert_int_equal(parse(none, &o, err), 0);
	assert_int_equal(o.framegen, 3);
	assert_string_equal(o.pad, "none");
	setenv("RX_FRAMEGEN", "4", 1);
	assert_int_equal(parse(none, &o, err), -EINVAL);
	assert_string_equal(err, "RX_FRAMEGEN='4': expected 1, 2 or 3");
	unsetenv("RX_FRAMEGEN");
	unsetenv("RXDECK_PAD");
	(void)state;
}

static void test_png__written_into_place_and_read_back_equal(void **state)
{
	char dir[] = "/tmp/rxdeck-forest-png-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/a.png", dir);
	uint8_t px[7 * 5 * 4];
	for (size_t i = 0; i < sizeof px; i++)
		px[i] = (uint8_t)(i * 37 + 11);
	char err[256];
	assert_int_equal(forest_png_write(path, px, 7, 5, RXVK_FORMAT_BGRA8, err, sizeof err), 0);
	png_image img = { .version = PNG_IMAGE_VERSION };
	assert_true(png_image_begin_read_from_file(&img, path));
	img.format = PNG_FORMAT_BGRA;
	uint8_t back[sizeof px];
	assert_true(png_image_finish_read(&img, NULL, back, 0, NULL));
	assert_memory_equal(back, px, sizeof px);
	/* the frame checksum is over R, G, B, A whatever the byte order */
	uint8_t rgba[sizeof px];
	for (size_t i = 0; i < sizeof px; i += 4) {
		rgba[i] = px[i + 2];
		rgba[i + 1] = px[i + 1];
		rgba[i + 2] = px[i];
		rgba[i + 3] = px[i + 3];
	}
	assert_true(forest_frame_checksum(px, 7, 5, RXVK_FORMAT_BGRA8) == forest_fnv1a64(rgba, sizeof rgba));
	assert_true(forest_frame_checksum(rgba, 7, 5, RXVK_FORMAT_RGBA8) == forest_fnv1a64(rgba, sizeof rgba));
	/* no temporary left behind; a folder that does not exist is an error, named */
	char tmp[140];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	assert_int_not_equal(access(tmp, F_OK), 0);
	char missing[160];
	snprintf(missing, sizeof missing, "%s/no/such/b.png", dir);
	assert_int_equal(forest_png_write(missing, px, 7, 5, RXVK_FORMAT_RGBA8, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "cannot create '"));
	assert_non_null(strstr(err, "No such file or directory"));
	unlink(path);
	rmdir(dir);
	/* FNV-1a 64 of "a" and the luma of pure green */
	assert_true(forest_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	uint8_t green[4] = { 0, 255, 0, 255 };
	assert_true(fabs(forest_mean_luma(green, 1, 1, RXVK_FORMAT_RGBA8) - 183.0 * 255.0 / 256.0) < 1e-9);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim__walk_pan_jump_talk_in_whole_steps),
		cmocka_unit_test(test_sim__camera_on_the_ground_plus_eye),
		cmocka_unit_test(test_world__seed_decides_everything),
		cmocka_unit_test(test_pad_decoder__frames_commit_at_syn_report),
		cmocka_unit_test(test_control__shot_lines_and_errors_with_position),
		cmocka_unit_test(test_options__values_checked_and_named),
		cmocka_unit_test(test_png__written_into_place_and_read_back_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
