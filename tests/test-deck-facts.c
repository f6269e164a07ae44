/* deck: host facts from a fake tree — DMI model names, OS, kernel, CPU,
 * memory, GPU, Mesa — and absent facts left absent. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-deck-util.h"

static void test_model__dmi_names_map_to_deck_models(void **state)
{
	assert_string_equal(deck_model_from_dmi("Jupiter"), "Steam Deck LCD");
	assert_string_equal(deck_model_from_dmi("Galileo"), "Steam Deck OLED");
	assert_string_equal(deck_model_from_dmi("ROG Ally RC71L"), "ROG Ally RC71L");
	assert_string_equal(deck_model_from_dmi("jupiter"), "jupiter");
	assert_null(deck_model_from_dmi(NULL));
}

static void test_facts__a_deck_lcd(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_string_equal(facts.device_model, "Steam Deck LCD");
	assert_string_equal(facts.dmi_product, "Jupiter");
	assert_string_equal(facts.dmi_vendor, "Valve");
	assert_string_equal(facts.host, "steamdeck");
	assert_string_equal(facts.kernel, "6.5.0-valve22-1-neptune-65");
	assert_string_equal(facts.os, "SteamOS");
	assert_string_equal(facts.os_version, "3.6.19");
	assert_string_equal(facts.os_build, "20241001.1");
	assert_string_equal(facts.cpu, "AMD Custom APU 0405");
	assert_int_equal(facts.memory_B, 16092652LL * 1024);
	assert_string_equal(facts.gpu_driver, "amdgpu");
	assert_string_equal(facts.gpu_pci_id, "1002:163f");
	/* mesa-utils is another package; mesa's own folder gives the version. */
	assert_string_equal(facts.mesa, "1:24.1.3_steamos-2");
	assert_string_equal(facts.mesa_source, "pacman");
	assert_true(facts.apu);
	assert_string_equal(facts.gpu_metrics, "v2.2");
	assert_int_equal(facts.swap_total_B, 1048572LL * 1024);
	assert_int_equal(facts.swappiness, 100);
	assert_int_equal(facts.zram_B, 0); /* sys/block without zram: none */
	assert_null(facts.zram_algorithm);
	assert_int_equal(facts.vram_B, 1073741824LL);
	assert_string_equal(facts.display, "eDP-1"); /* connected, not DP-1 */
	assert_int_equal(facts.display_width, 800);
	assert_int_equal(facts.display_height, 1280);
	assert_true(facts.display_refresh_hz > 59.99 && facts.display_refresh_hz < 60.02);
	deck_facts_finish(&facts);
	assert_null(facts.os);
	assert_int_equal(facts.memory_B, -1);
	deck_facts_finish(NULL);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_facts__an_oled_with_debian_mesa_and_a_driver_link(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "sys/class/dmi/id/product_name", "Galileo\n");
	fake_write(&f, "sys/class/drm/card0/device/gpu_busy_percent", "1\n");
	fake_write(&f, "sys/bus/pci/drivers/amdgpu/bind", "");
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof link, "%s/sys/class/drm/card0/device/driver", f.root);
	snprintf(target, sizeof target, "%s/sys/bus/pci/drivers/amdgpu", f.root);
	assert_int_equal(symlink(target, link), 0);
	fake_write(&f, "usr/lib/os-release", "PRETTY_NAME='Debian GNU/Linux 12 (bookworm)'\n"
	                                     "VERSION_ID=\"12\"\n");
	fake_write(&f, "var/lib/dpkg/status",
	           "Package: mesa-vulkan-drivers\nStatus: deinstall ok config-files\n"
	           "Architecture: i386\nVersion: 20.0-1\n\n"
	           "Package: mesa-vulkan-drivers\nStatus: install ok installed\n"
	           "Architecture: amd64\nVersion: 22.3.6-1+deb12u1\nDescription: Mesa\n"
	           " Vulkan drivers\n\n"
	           "Package: other\nStatus: install ok installed\nVersion: 1\n");
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_string_equal(facts.device_model, "Steam Deck OLED");
	assert_string_equal(facts.gpu_driver, "amdgpu");
	assert_null(facts.gpu_pci_id);
	assert_string_equal(facts.os, "Debian GNU/Linux 12 (bookworm)");
	assert_string_equal(facts.os_version, "12");
	assert_null(facts.os_build);
	assert_string_equal(facts.mesa, "22.3.6-1+deb12u1");
	assert_string_equal(facts.mesa_source, "dpkg");
	deck_facts_finish(&facts);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_facts__nothing_known_is_left_absent(void **state)
{
	struct fake f;
	fake_init(&f);
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_null(facts.device_model);
	assert_null(facts.dmi_product);
	/* Not the build machine's: the root is a fake tree. */
	assert_null(facts.host);
	assert_null(facts.kernel);
	assert_null(facts.os);
	assert_null(facts.cpu);
	assert_int_equal(facts.memory_B, -1);
	assert_null(facts.gpu_driver);
	assert_null(facts.mesa);
	assert_null(facts.mesa_source);
	assert_false(facts.apu);
	assert_null(facts.gpu_metrics);
	assert_int_equal(facts.swap_total_B, -1);
	assert_int_equal(facts.swappiness, -1);
	assert_int_equal(facts.zram_B, -1);
	assert_int_equal(facts.vram_B, -1);
	assert_null(facts.display);
	assert_true(facts.display_refresh_hz == 0);
	deck_facts_finish(&facts);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_facts__a_deck_oled_on_steamos_3_6(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_galileo(&f);
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_string_equal(facts.device_model, "Steam Deck OLED");
	assert_string_equal(facts.gpu_pci_id, "1002:1435");
	assert_string_equal(facts.cpu, "AMD Custom APU 0932");
	/* /var/lib/pacman is empty on SteamOS 3.5+: the image's database */
	assert_string_equal(facts.mesa, "1:24.2.0_steamos-1");
	assert_string_equal(facts.mesa_source, "holo pacmandb");
	assert_string_equal(facts.gpu_metrics, "v2.3");
	assert_int_equal(facts.zram_B, 8053063680LL);
	assert_string_equal(facts.zram_algorithm, "zstd");
	assert_int_equal(facts.swappiness, 1);
	assert_true(facts.display_refresh_hz > 89.98 && facts.display_refresh_hz < 90.01);
	deck_facts_finish(&facts);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_facts__a_desktop_amd_card(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_desktop_amd(&f);
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_string_equal(facts.device_model, "MS-7C56");
	assert_false(facts.apu);
	assert_null(facts.gpu_metrics); /* format 1 is not read */
	assert_int_equal(facts.vram_B, 17163091968LL);
	assert_int_equal(facts.swap_total_B, 0);
	assert_int_equal(facts.zram_B, 0);
	assert_string_equal(facts.mesa_source, "dpkg");
	assert_string_equal(facts.display, "DP-1");
	assert_int_equal(facts.display_width, 2560);
	assert_true(facts.display_refresh_hz > 59.9 && facts.display_refresh_hz < 60.0);
	deck_facts_finish(&facts);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_mesa__from_vulkan_driver_info(void **state)
{
	char *v = NULL;
	assert_int_equal(deck_mesa_from_driver_info("Mesa 24.1.3-arch1.1", &v), 0);
	assert_string_equal(v, "24.1.3-arch1.1");
	free(v);
	assert_int_equal(deck_mesa_from_driver_info("Mesa 22.3.6 (LLVM 15.0.6)", &v), 0);
	assert_string_equal(v, "22.3.6");
	free(v);
	assert_int_equal(deck_mesa_from_driver_info("radv (Mesa 24.2.0-devel)", &v), 0);
	assert_string_equal(v, "24.2.0-devel");
	free(v);
	v = (char *)"untouched";
	assert_int_equal(deck_mesa_from_driver_info("565.57.01", &v), -ENOENT);
	assert_int_equal(deck_mesa_from_driver_info("NotMesa 1.0", &v), -ENOENT);
	assert_int_equal(deck_mesa_from_driver_info("Mesa ", &v), -ENOENT);
	assert_int_equal(deck_mesa_from_driver_info(NULL, &v), -ENOENT);
	assert_string_equal(v, "untouched");
}

static void test_facts__malformed_os_release_is_named(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "etc/os-release", "NAME=SteamOS\nPRETTY_NAME=\"SteamOS\n");
	struct deck *d = fake_open(&f);
	struct deck_facts facts;
	assert_int_equal(deck_facts_read(d, &facts), 0);
	assert_null(facts.os);
	assert_string_equal(deck_errmsg(d), "etc/os-release:2:13: unterminated \" quote");
	deck_facts_finish(&facts);
	deck_destroy(d);
	fake_cleanup(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model__dmi_names_map_to_deck_models),
		cmocka_unit_test(test_facts__a_deck_lcd),
		cmocka_unit_test(test_facts__an_oled_with_debian_mesa_and_a_driver_link),
		cmocka_unit_test(test_facts__nothing_known_is_left_absent),
		cmocka_unit_test(test_facts__a_deck_oled_on_steamos_3_6),
		cmocka_unit_test(test_facts__a_desktop_amd_card),
		cmocka_unit_test(test_mesa__from_vulkan_driver_info),
		cmocka_unit_test(test_facts__malformed_os_release_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
