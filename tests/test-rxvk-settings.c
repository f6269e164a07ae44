/* test-rxvk-settings: where each switch comes from (config, environment,
 * rx_env.txt, default), that the process environment wins over the file,
 * that bad values are refused with the variable named, and that the
 * switches line proves which arm a run was. */
#include "rxvk-test.h"
#include "private.h"

#include <unistd.h>

static char dir[] = "/tmp/rxvk-settings-XXXXXX";

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *name)
{
	FILE *f = fopen(name, "r");
	assert_non_null(f);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("RX_VK_PART_OPS");
	unsetenv("RX_VK_READBACK_EARLY");
	unsetenv("RX_LOG");
	remove("rx_env.txt");
	remove("log.txt");
	return 0;
}

static void test_settings__env_wins_over_file_and_config_over_env(void **state)
{
	write_file("rx_env.txt", "# a comment\n\nRX_VK_PART_OPS = 7\nRX_VK_READBACK_EARLY=1\n");
	setenv("RX_VK_PART_OPS", "9", 1);
	setenv("RX_LOG", "log.txt", 1);
	struct rxvk *rx = rxt_create((struct rxvk_config){ 0 });
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.part_ops, 9);              /* environment */
	assert_int_equal(eff.readback_early, RXVK_EARLY_PART); /* rx_env.txt */
	assert_int_equal(eff.readback_early_gap, 16);   /* default */
	assert_int_equal(eff.guest_mb, 16);             /* config */
	assert_non_null(eff.device);
	rxt_destroy(rx);
	const char *log = read_file("log.txt");
	assert_non_null(strstr(log, "] vk: switches: "));
	assert_non_null(strstr(log, "RX_VK_PART_OPS=9 (env)"));
	assert_non_null(strstr(log, "RX_VK_READBACK_EARLY=1 (rx_env.txt)"));
	assert_non_null(strstr(log, "RX_VK_GUEST_MB=16 (config)"));
	assert_non_null(strstr(log, "RX_VK_READBACK_EARLY_GAP=16 (default)"));

	rx = rxt_create((struct rxvk_config){ .part_ops = 5 });
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.part_ops, 5);
	rxt_destroy(rx);
	(void)state;
}

static void expect_refused(const char *what)
{
	struct rxvk *rx = NULL;
	assert_int_equal(rxvk_create(&(struct rxvk_config){ .guest_mb = 4 }, &rx), -EINVAL);
	assert_null(rx);
	if (!strstr(rxvk_last_error(), what))
		fail_msg("error '%s' does not say '%s'", rxvk_last_error(), what);
}

static void test_settings__bad_values_refused_with_name(void **state)
{
	setenv("RX_VK_PART_OPS", "lots", 1);
	expect_refused("RX_VK_PART_OPS='lots': expected a whole number from 1 to");
	setenv("RX_VK_PART_OPS", "0", 1);
	expect_refused("RX_VK_PART_OPS='0'");
	unsetenv("RX_VK_PART_OPS");
	setenv("RX_VK_READBACK_EARLY", "maybe", 1);
	expect_refused("RX_VK_READBACK_EARLY='maybe': expected 0, 1 or 'marker'");
	unsetenv("RX_VK_READBACK_EARLY");
	write_file("rx_env.txt", "RX_VK_MIRROR=1\n  oops\n");
	expect_refused("rx_env.txt:2:3: expected KEY=VALUE");
	write_file("rx_env.txt", "RX_VK_READBAK_EARLY=1\n");
	expect_refused("unknown switch 'RX_VK_READBAK_EARLY'");
	write_file("rx_env.txt", "RX_VK_READBACK_LATE=oldest\n");
	expect_refused("rx_env.txt: RX_VK_READBACK_LATE='oldest'");
	(void)state;
}

/* RX_VK_READBACK_EARLY takes 0, 1 or marker, and the switches line says which. */
static void test_settings__readback_early_marker_parsed_and_logged(void **state)
{
	setenv("RX_VK_READBACK_EARLY", "marker", 1);
	setenv("RX_LOG", "log.txt", 1);
	struct rxvk *rx = rxt_create((struct rxvk_config){ 0 });
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.readback_early, RXVK_EARLY_MARKER);
	rxt_destroy(rx);
	assert_non_null(strstr(read_file("log.txt"), "RX_VK_READBACK_EARLY=marker (env)"));
	remove("log.txt");
	setenv("RX_VK_READBACK_EARLY", "1", 1);
	rx = rxt_create((struct rxvk_config){ 0 });
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.readback_early, RXVK_EARLY_PART);
	rxt_destroy(rx);
	assert_non_null(strstr(read_file("log.txt"), "RX_VK_READBACK_EARLY=1 (env)"));
	unsetenv("RX_LOG");
	(void)state;
}

/* What the CPU reads (here guest memory allocated from the driver) takes a
 * host-cached type where the device has one, and the log says which. */
static void test_memory__cpu_read_memory_prefers_host_cached(void **state)
{
	setenv("RX_LOG", "log.txt", 1);
	struct rxvk *rx = rxt_create((struct rxvk_config){ .import_host = RXVK_SWITCH_OFF });
	const VkMemoryPropertyFlags all = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
	bool has_cached = false;
	for (uint32_t i = 0; i < rx->mem_props.memoryTypeCount; i++)
		has_cached |= (rx->mem_props.memoryTypes[i].propertyFlags & all) == all;
	rxt_destroy(rx);
	unsetenv("RX_LOG");
	const char *log = read_file("log.txt");
	const char *line = strstr(log, "vk: memory for guest memory (allocated): type ");
	if (!line)
		fail_msg("no line saying which memory type guest memory took:\n%s", log);
	unsigned type = (unsigned)strtoul(line + strlen("vk: memory for guest memory (allocated): type "), NULL, 10);
	assert_true(type < 32);
	const char *eol = strchr(line, '\n');
	bool cached = strstr(line, ", cached)") && strstr(line, ", cached)") < eol;
	assert_int_equal(cached, has_cached);
	(void)state;
}

static void test_settings__ignore_env_reads_neither(void **state)
{
	write_file("rx_env.txt", "RX_VK_PART_OPS=7\n");
	setenv("RX_VK_READBACK_EARLY", "1", 1);
	struct rxvk *rx = rxt_create((struct rxvk_config){ .ignore_env = true });
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.part_ops, 256);
	assert_int_equal(eff.readback_early, RXVK_EARLY_OFF);
	rxt_destroy(rx);
	(void)state;
}

int main(void)
{
	rxt_require_vulkan();
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("temp dir");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_settings__env_wins_over_file_and_config_over_env, setup),
		cmocka_unit_test_setup(test_settings__bad_values_refused_with_name, setup),
		cmocka_unit_test_setup(test_settings__readback_early_marker_parsed_and_logged, setup),
		cmocka_unit_test_setup(test_memory__cpu_read_memory_prefers_host_cached, setup),
		cmocka_unit_test_setup(test_settings__ignore_env_reads_neither, setup),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	remove("rx_env.txt");
	remove("log.txt");
	if (chdir("/") == 0)
		rmdir(dir);
	return rc;
}
