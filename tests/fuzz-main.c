/* fuzz-main: runs a fuzz target's LLVMFuzzerTestOneInput over files, so
 * every fuzz target is also a plain test over its corpus (tests/corpus/NAME/).
 * Arguments: files or folders.
 *
 * In a libFuzzer build (meson -Dfuzz=true, clang: RXDECK_LIBFUZZER) the same
 * program is also the fuzzer: when an argument starts with '-' (a libFuzzer
 * flag such as -max_total_time=20) the arguments go to libFuzzer's driver,
 * which fuzzes from the folders given; with files and folders only it stays
 * the plain corpus run, so `meson test` behaves the same in every build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#ifdef RXDECK_LIBFUZZER
/* libFuzzer's driver (libclang_rt.fuzzer_no_main, LLVM 13 and later) */
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*test_one)(const uint8_t *data, size_t size));
#endif

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = n;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		if (r == 0)
			break;
		len += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && rc == 0) {
			char child[4096];
			snprintf(child, sizeof child, "%s/%s", path, names[i]->d_name);
			rc = run_path(child, count);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
#ifdef RXDECK_LIBFUZZER
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
#endif
	int count = 0;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &count) != 0)
			return 1;
	if (count == 0) {
		fprintf(stderr, "fuzz-main: no corpus files given\n");
		return 1;
	}
	printf("%d inputs ran without a crash\n", count);
	return 0;
}
