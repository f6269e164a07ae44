/* test-util: the whole-file reader, the clocks, the stop signals, folders
 * and whole-file replacement (harness/util). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

static char dir[64]; /* /tmp/rxdeck-test-util-XXXXXX */

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/rxdeck-test-util-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_read_file__whole_file_nul_terminated(void **state)
{
	(void)state;
	put("a.txt", "one\ntwo\n");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/a.txt", dir);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(util_read_file(path, 0, 0, &text, &len), 0);
	assert_int_equal(len, 8);
	assert_string_equal(text, "one\ntwo\n");
	free(text);

	/* an empty file is an empty string */
	put("empty", "");
	snprintf(path, sizeof path, "%s/empty", dir);
	assert_int_equal(util_read_file(path, 0, UTIL_READ_REGULAR, &text, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
}

static void test_read_file__refuses_what_it_cannot_hold(void **state)
{
	(void)state;
	char *text = (char *)"untouched";
	size_t len = 42;
	char path[PATH_MAX];
	put("big", "0123456789");
	snprintf(path, sizeof path, "%s/big", dir);
	assert_int_equal(util_read_file(path, 9, 0, &text, &len), -EFBIG);
	assert_int_equal(util_read_file(dir, 0, 0, &text, &len), -EISDIR);
	snprintf(path, sizeof path, "%s/none", dir);
	assert_int_equal(util_read_file(path, 0, 0, &text, &len), -ENOENT);
	assert_int_equal(util_read_file("/dev/null", 0, UTIL_READ_REGULAR, &text, &len), -ENOTSUP);
	assert_string_equal(text, "untouched");
	assert_int_equal(len, 42);

	/* a stream is read to its end when a regular file is not asked for */
	assert_int_equal(util_read_file("/dev/null", 0, 0, &text, &len), 0);
	assert_int_equal(len, 0);
	free(text);
}

/* The VmFlags of the mapping holding p in /proc/self/smaps ("" if none). */
static void vm_flags_of(const void *p, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	char line[512];
	bool in = false;
	out[0] = '\0';
	uintptr_t a = (uintptr_t)p;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a >= lo && a < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(out, cap, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}

static void test_hint_huge__big_buffers_marked_small_ones_left(void **state)
{
	(void)state;
	/* 16 MiB from malloc is its own mapping; its 2 MiB-aligned interior
	 * gets MADV_HUGEPAGE ("hg" in smaps' VmFlags) */
	size_t big = (size_t)16 << 20;
	char *p = malloc(big);
	assert_non_null(p);
	char flags[512];
	vm_flags_of(p + big / 2, flags, sizeof flags);
	assert_null(strstr(flags, " hg"));
	util_hint_huge(p, big);
	vm_flags_of(p + big / 2, flags, sizeof flags);
	assert_non_null(strstr(flags, " hg"));
	free(p);
	/* under 4 MiB nothing is asked; NULL is a no-op */
	size_t small = (size_t)3 << 20;
	char *q = malloc(small);
	assert_non_null(q);
	util_hint_huge(q, small);
	vm_flags_of(q + small / 2, flags, sizeof flags);
	assert_null(strstr(flags, " hg"));
	free(q);
	util_hint_huge(NULL, big);
}

static void test_read_file__large_file_read_in_one_buffer(void **state)
{
	(void)state;
	/* a file of 9 MiB comes back whole; its buffer is its size plus two
	 * (the NUL and the byte that finds the end), not grown and copied */
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/large", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	size_t n = (size_t)9 << 20;
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	fclose(f);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(util_read_file(path, 0, UTIL_READ_REGULAR, &text, &len), 0);
	assert_int_equal(len, n);
	assert_int_equal(text[n - 1], 'a' + (int)((n - 1) % 26));
	assert_int_equal(text[n], '\0');
	assert_true(malloc_usable_size(text) < n + 4096 * 2);
	free(text);
}

static void test_clock__monotonic_and_wall(void **state)
{
	(void)state;
	int64_t a = util_now_ns();
	usleep(2000);
	int64_t b = util_now_ns();
	assert_true(b - a >= 2000000);
	/* the wall clock is after 2020-01-01 and in ms */
	int64_t ms = util_unix_ms();
	assert_true(ms > INT64_C(1577836800000));
	assert_true(ms < INT64_C(1577836800000) * 100);
}

static volatile sig_atomic_t got;

static void on_stop(int sig)
{
	got = sig;
}

static void test_stop_signals__flag_set_and_sigpipe_ignored(void **state)
{
	(void)state;
	util_stop_signals(on_stop, SA_RESETHAND);
	raise(SIGTERM);
	assert_int_equal(got, SIGTERM);
	got = 0;
	raise(SIGHUP);
	assert_int_equal(got, SIGHUP);
	got = 0;
	raise(SIGINT);
	assert_int_equal(got, SIGINT);
	/* writing to a pipe nobody reads is EPIPE, not death */
	int p[2];
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	assert_int_equal(write(p[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

static void test_mkdir_p__parents_and_what_is_in_the_way(void **state)
{
	(void)state;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/x/y/z", dir);
	assert_int_equal(util_mkdir_p(path, 0700), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(util_mkdir_p(path, 0700), 0); /* there already */
	put("file", "x");
	snprintf(path, sizeof path, "%s/file", dir);
	assert_int_equal(util_mkdir_p(path, 0755), -ENOTDIR);
	snprintf(path, sizeof path, "%s/file/sub", dir);
	assert_int_equal(util_mkdir_p(path, 0755), -ENOTDIR);
}

static void test_write_file_atomic__replaces_whole_or_not_at_all(void **state)
{
	(void)state;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/out.md", dir);
	put("out.md", "old");
	assert_int_equal(util_write_file_atomic(path, "new text", 8), 0);
	char *text;
	size_t len;
	assert_int_equal(util_read_file(path, 0, 0, &text, &len), 0);
	assert_string_equal(text, "new text");
	free(text);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* a folder that does not exist: nothing written, nothing left */
	snprintf(path, sizeof path, "%s/no/out.md", dir);
	assert_int_equal(util_write_file_atomic(path, "x", 1), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_file__whole_file_nul_terminated),
		cmocka_unit_test(test_read_file__refuses_what_it_cannot_hold),
		cmocka_unit_test(test_hint_huge__big_buffers_marked_small_ones_left),
		cmocka_unit_test(test_read_file__large_file_read_in_one_buffer),
		cmocka_unit_test(test_clock__monotonic_and_wall),
		cmocka_unit_test(test_stop_signals__flag_set_and_sigpipe_ignored),
		cmocka_unit_test(test_mkdir_p__parents_and_what_is_in_the_way),
		cmocka_unit_test(test_write_file_atomic__replaces_whole_or_not_at_all),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
