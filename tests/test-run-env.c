/* test-run-env: where a campaign's things are found, the game's
 * environment (profile, arm, inherited over a cleaned copy of the
 * harness's), the pad choice, SHA-256, PNG statistics and the device line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <png.h>

#include "run/run-private.h"
#include "run/run.h"
#include "test-run-util.h"

static void test_run_env_compose__layers_and_cleaning(void **state)
{
	(void)state;
	char *base[] = { "PATH=/usr/bin", "HOME=/home/u", "RX_VK_VALIDATION=1", "RXDECK_PAD=x",
		         "RX_VK_READBACK_EARLY=1", "MESA_A=base", "bad entry", NULL };
	struct plan_strv profile = { 0 }, arm = { 0 }, inherited = { 0 }, out = { 0 };
	assert_int_equal(plan_strv_setenv(&profile, "RX_VK_LOG_READBACK_WAITS=1"), 0);
	assert_int_equal(plan_strv_setenv(&profile, "MESA_A=profile"), 0);
	assert_int_equal(plan_strv_setenv(&profile, "RX_VK_DEVICE=llvmpipe"), 0);
	assert_int_equal(plan_strv_setenv(&arm, "MESA_A=arm"), 0);
	assert_int_equal(plan_strv_setenv(&arm, "RX_VK_DEVICE=radv"), 0);
	assert_int_equal(plan_strv_setenv(&inherited, "RX_VK_DEVICE=NVIDIA"), 0);
	assert_int_equal(run_env_compose(base, &profile, &arm, &inherited, &out), 0);
	assert_string_equal(plan_strv_getenv(&out, "PATH"), "/usr/bin");
	assert_string_equal(plan_strv_getenv(&out, "HOME"), "/home/u");
	/* the harness's own switches never leak into an arm */
	assert_null(plan_strv_getenv(&out, "RX_VK_VALIDATION"));
	assert_null(plan_strv_getenv(&out, "RX_VK_READBACK_EARLY"));
	assert_null(plan_strv_getenv(&out, "RXDECK_PAD"));
	/* profile, then arm, then inherited */
	assert_string_equal(plan_strv_getenv(&out, "RX_VK_LOG_READBACK_WAITS"), "1");
	assert_string_equal(plan_strv_getenv(&out, "MESA_A"), "arm");
	assert_string_equal(plan_strv_getenv(&out, "RX_VK_DEVICE"), "NVIDIA");
	assert_int_equal(out.n, 5);
	plan_strv_finish(&profile);
	plan_strv_finish(&arm);
	plan_strv_finish(&inherited);
	plan_strv_finish(&out);
}

/* Steam's SDL_GAMECONTROLLER_IGNORE_DEVICES (its virtual pads) stays: an
 * arm's list is added to it, each device once. */
static void test_run_env_compose__sdl_ignore_list_appended(void **state)
{
	(void)state;
	char *base[] = { "SDL_GAMECONTROLLER_IGNORE_DEVICES=0x28de/0x11ff,0x28de/0x1142",
		         "SDL_GAMECONTROLLER_ALLOW_STEAM_VIRTUAL_GAMEPAD=1", NULL };
	struct plan_strv arm = { 0 }, out = { 0 };
	assert_int_equal(plan_strv_setenv(&arm, "SDL_GAMECONTROLLER_IGNORE_DEVICES="
	                                        "0x28de/0x1205, 0x28DE/0x11FF"), 0);
	assert_int_equal(run_env_compose(base, NULL, &arm, NULL, &out), 0);
	assert_string_equal(plan_strv_getenv(&out, "SDL_GAMECONTROLLER_IGNORE_DEVICES"),
	                    "0x28de/0x11ff,0x28de/0x1142,0x28de/0x1205");
	assert_string_equal(plan_strv_getenv(&out, "SDL_GAMECONTROLLER_ALLOW_STEAM_VIRTUAL_GAMEPAD"),
	                    "1");
	/* without Steam's list the arm's is the list */
	char *bare[] = { "PATH=/bin", NULL };
	assert_int_equal(run_env_compose(bare, NULL, &arm, NULL, &out), 0);
	assert_string_equal(plan_strv_getenv(&out, "SDL_GAMECONTROLLER_IGNORE_DEVICES"),
	                    "0x28de/0x1205, 0x28DE/0x11FF");
	plan_strv_finish(&arm);
	plan_strv_finish(&out);
}

static void test_run_find_data__forms(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char buf[PATH_MAX], sub[PATH_MAX];
	mkdir(tdir_file(&t, "routes", sub, sizeof sub), 0700);
	write_text(tdir_file(&t, "routes/walk.route", buf, sizeof buf), "x");
	write_text(tdir_file(&t, "plan-local.route", buf, sizeof buf), "x");
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(t.path), 0);
	char *p = NULL;
	/* relative to the plan's folder */
	assert_int_equal(run_find_data("routes", "plan-local.route", ".route", t.path, &p), 0);
	assert_string_equal(p, tdir_file(&t, "plan-local.route", buf, sizeof buf));
	free(p);
	/* a bare name, in routes/ of the current folder, with or without the ending */
	assert_int_equal(run_find_data("routes", "walk", ".route", "/nonexistent", &p), 0);
	assert_string_equal(p, tdir_file(&t, "routes/walk.route", buf, sizeof buf));
	free(p);
	assert_int_equal(run_find_data("routes", "routes/walk.route", ".route", "/nonexistent", &p), 0);
	free(p);
	/* the project's own data when the current folder has none */
	assert_int_equal(run_find_data("routes", "smoke", ".route", NULL, &p), 0);
	assert_non_null(strstr(p, "routes/smoke.route"));
	free(p);
	assert_int_equal(run_find_data("profiles", "lavapipe", ".env", NULL, &p), 0);
	free(p);
	p = NULL;
	assert_int_equal(run_find_data("routes", "no-such-route", ".route", NULL, &p), -ENOENT);
	assert_int_equal(run_find_data("routes", "/no/such.route", ".route", NULL, &p), -ENOENT);
	assert_null(p);
	assert_int_equal(chdir(cwd), 0);
	tdir_remove(&t);
}

/* deck/install.sh puts routes and profiles in ~/.local/share/rxdeck: an
 * installed rxdeck run from an empty folder finds them there, then in
 * $XDG_DATA_DIRS, before the source tree. */
static void test_run_find_data__xdg_data_folders(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char buf[PATH_MAX], dir[PATH_MAX], empty[PATH_MAX];
	mkdir(tdir_file(&t, "home", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "home/rxdeck", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "home/rxdeck/routes", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "sys", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "sys/rxdeck", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "sys/rxdeck/profiles", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "sys/rxdeck/routes", dir, sizeof dir), 0700);
	mkdir(tdir_file(&t, "empty", empty, sizeof empty), 0700);
	write_text(tdir_file(&t, "home/rxdeck/routes/night.route", buf, sizeof buf), "x");
	write_text(tdir_file(&t, "sys/rxdeck/routes/night.route", buf, sizeof buf), "x");
	write_text(tdir_file(&t, "sys/rxdeck/routes/smoke.route", buf, sizeof buf), "x");
	write_text(tdir_file(&t, "sys/rxdeck/profiles/handheld.env", buf, sizeof buf), "x");
	char *saved[3];
	const char *names[3] = { "XDG_DATA_HOME", "XDG_DATA_DIRS", "RXDECK_DATA_DIR" };
	for (int i = 0; i < 3; i++)
		saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
	setenv("XDG_DATA_HOME", tdir_file(&t, "home", dir, sizeof dir), 1);
	char dirs[2 * PATH_MAX + 8];
	snprintf(dirs, sizeof dirs, "/nonexistent:%s", tdir_file(&t, "sys", dir, sizeof dir));
	setenv("XDG_DATA_DIRS", dirs, 1);
	unsetenv("RXDECK_DATA_DIR");
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(empty), 0);
	char *p = NULL;
	assert_int_equal(run_find_data("routes", "night", ".route", NULL, &p), 0);
	assert_string_equal(p, tdir_file(&t, "home/rxdeck/routes/night.route", buf, sizeof buf));
	free(p);
	assert_int_equal(run_find_data("profiles", "handheld", ".env", NULL, &p), 0);
	assert_string_equal(p, tdir_file(&t, "sys/rxdeck/profiles/handheld.env", buf, sizeof buf));
	free(p);
	/* the XDG folders come before the build's source tree */
	assert_int_equal(run_find_data("routes", "smoke", ".route", NULL, &p), 0);
	assert_string_equal(p, tdir_file(&t, "sys/rxdeck/routes/smoke.route", buf, sizeof buf));
	free(p);
	assert_int_equal(chdir(cwd), 0);
	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
	}
	tdir_remove(&t);
}

static void test_run_find_program__errors_say_why(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char buf[PATH_MAX], msg[512];
	write_text(tdir_file(&t, "not-exec", buf, sizeof buf), "#!/bin/sh\n");
	char *p = NULL;
	assert_int_equal(run_find_program("./not-exec", t.path, &p, msg, sizeof msg), -EACCES);
	assert_non_null(strstr(msg, "not an executable file"));
	assert_int_equal(run_find_program("./missing", t.path, &p, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "cannot run program"));
	assert_int_equal(run_find_program(t.path, NULL, &p, msg, sizeof msg), -EISDIR);
	assert_int_equal(run_find_program("no-such-program-here", t.path, &p, msg, sizeof msg), -ENOENT);
	assert_string_equal(msg, "cannot find program 'no-such-program-here' in PATH");
	assert_null(p);
	chmod(buf, 0755);
	assert_int_equal(run_find_program("not-exec", NULL, &p, msg, sizeof msg), -ENOENT); /* not in PATH */
	assert_int_equal(run_find_program("./not-exec", t.path, &p, msg, sizeof msg), 0);
	assert_string_equal(p, buf);
	free(p);
	assert_int_equal(run_find_program("sh", NULL, &p, msg, sizeof msg), 0);
	assert_true(p[0] == '/');
	free(p);
	tdir_remove(&t);
}

static void test_run_sha256__known_values(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char buf[PATH_MAX], hex[65];
	write_text(tdir_file(&t, "empty", buf, sizeof buf), "");
	assert_int_equal(run_sha256_file(buf, hex), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	write_text(buf, "abc");
	assert_int_equal(run_sha256_file(buf, hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	write_text(buf, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
	assert_int_equal(run_sha256_file(buf, hex), 0);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a': many blocks */
	FILE *f = fopen(buf, "w");
	for (int i = 0; i < 1000000; i++)
		fputc('a', f);
	fclose(f);
	assert_int_equal(run_sha256_file(buf, hex), 0);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	assert_int_equal(run_sha256_file("/nonexistent", hex), -ENOENT);
	tdir_remove(&t);
}

static void test_run_png_stats__luma_and_checksum(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char path[PATH_MAX];
	tdir_file(&t, "shot.png", path, sizeof path);
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = 2;
	img.height = 1;
	img.format = PNG_FORMAT_RGBA;
	uint8_t px[8] = { 255, 255, 255, 255, 100, 0, 0, 255 };
	assert_true(png_image_write_to_file(&img, path, 0, px, 0, NULL));
	double luma;
	char sum[17], msg[256];
	assert_int_equal(run_png_stats(path, &luma, sum, msg, sizeof msg), 0);
	/* (54+183+19)*255/256 and 54*100/256, averaged */
	double want = (255.0 * 256 / 256 + 54.0 * 100 / 256) / 2;
	assert_true(luma > want - 1e-9 && luma < want + 1e-9);
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < 8; i++)
		h = (h ^ px[i]) * 0x100000001b3ull;
	char want_sum[17];
	snprintf(want_sum, sizeof want_sum, "%016llx", (unsigned long long)h);
	assert_string_equal(sum, want_sum);
	char bad[PATH_MAX];
	write_text(tdir_file(&t, "bad.png", bad, sizeof bad), "not a png");
	assert_int_equal(run_png_stats(bad, &luma, sum, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "cannot read shot"));
	tdir_remove(&t);
}

static void test_run_device_line__nested_parentheses(void **state)
{
	(void)state;
	char *gpu, *drv;
	const char *cfg = "vk: switches: X=1\n"
	                  "vk: device 0: llvmpipe (LLVM 15.0.6, 256 bits) (llvmpipe Mesa 22.3.6 (LLVM "
	                  "15.0.6)), Vulkan 1.3, CPU\n";
	assert_int_equal(run_parse_device_line(cfg, &gpu, &drv), 0);
	assert_string_equal(gpu, "llvmpipe (LLVM 15.0.6, 256 bits)");
	assert_string_equal(drv, "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)");
	free(gpu);
	free(drv);
	assert_int_equal(run_parse_device_line("vk: device 1: AMD Custom GPU 0405 (RADV VANGOGH) "
	                                       "(radv Mesa 24.1.3), Vulkan 1.3, integrated", &gpu, &drv), 0);
	assert_string_equal(gpu, "AMD Custom GPU 0405 (RADV VANGOGH)");
	assert_string_equal(drv, "radv Mesa 24.1.3");
	free(gpu);
	free(drv);
	assert_int_equal(run_parse_device_line("vk: device 0: odd, Vulkan 1.3", &gpu, &drv), -ENOENT);
	assert_int_equal(run_parse_device_line(NULL, &gpu, &drv), -ENOENT);
}

static void test_run_pad_choose__socket_needs_a_pad_option(void **state)
{
	(void)state;
	const char *text = "[campaign]\npad = socket\n"
	                   "[build game]\nbinary = /bin/true\n"
	                   "[build demo]\nbinary = forest\n"
	                   "[arm A]\nbuild = game\n[arm B]\nbuild = demo\n";
	struct plan *p;
	assert_int_equal(plan_parse("p.ini", text, strlen(text), NULL, &p, NULL), 0);
	char spec[256], msg[512];
	assert_int_equal(run_pad_choose(p, spec, sizeof spec, msg, sizeof msg), -EACCES);
	assert_non_null(strstr(msg, "build 'game' is a game that finds its pad itself"));
	/* told how: the socket it is */
	free(p->builds[0].pad_option);
	p->builds[0].pad_option = strdup("--pad");
	assert_int_equal(run_pad_choose(p, spec, sizeof spec, msg, sizeof msg), 0);
	assert_memory_equal(spec, "socket:/", 8);
	assert_true(strlen(spec) - 7 < 108);
	plan_free(p);
}

static void test_run_data_dir__xdg(void **state)
{
	(void)state;
	char *d;
	char *old = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
	setenv("XDG_DATA_HOME", "/x/data", 1);
	assert_int_equal(run_data_dir(&d), 0);
	assert_string_equal(d, "/x/data/rxdeck");
	free(d);
	setenv("XDG_DATA_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(run_data_dir(&d), 0);
	assert_string_equal(d, "/home/u/.local/share/rxdeck");
	free(d);
	if (old)
		setenv("XDG_DATA_HOME", old, 1);
	else
		unsetenv("XDG_DATA_HOME");
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_env_compose__layers_and_cleaning),
		cmocka_unit_test(test_run_env_compose__sdl_ignore_list_appended),
		cmocka_unit_test(test_run_find_data__forms),
		cmocka_unit_test(test_run_find_data__xdg_data_folders),
		cmocka_unit_test(test_run_find_program__errors_say_why),
		cmocka_unit_test(test_run_sha256__known_values),
		cmocka_unit_test(test_run_png_stats__luma_and_checksum),
		cmocka_unit_test(test_run_device_line__nested_parentheses),
		cmocka_unit_test(test_run_pad_choose__socket_needs_a_pad_option),
		cmocka_unit_test(test_run_data_dir__xdg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
