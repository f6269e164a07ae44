/* Helpers shared by the run tests: a fresh temporary folder per test
 * (removed after), files written into it, where the build put the
 * programs, and a check that no process of a test is left behind. */
#ifndef RXDECK_TEST_RUN_UTIL_H
#define RXDECK_TEST_RUN_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tdir {
	char path[PATH_MAX / 2];
};

static inline void tdir_make(struct tdir *t)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(t->path, sizeof t->path, "%s/rxdeck-run-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->path));
}

static inline int tdir_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tdir_remove(struct tdir *t)
{
	if (t->path[0])
		nftw(t->path, tdir_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir/name into buf. */
static inline const char *tdir_file(const struct tdir *t, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", t->path, name);
	return buf;
}

static inline void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* A program the build made: $RXDECK_BUILD_ROOT/rel. */
static inline const char *build_path(const char *rel, char *buf, size_t size)
{
	const char *root = getenv("RXDECK_BUILD_ROOT");
	snprintf(buf, size, "%s/%s", root && *root ? root : ".", rel);
	return buf;
}

/* Processes (other than this one) whose environment mentions needle: the
 * runs of a test all carry paths under its temporary folder. */
static inline int processes_mentioning(const char *needle)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int found = 0;
	struct dirent *e;
	pid_t self = getpid();
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld/environ", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		static char buf[1 << 16];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
			if (strstr(buf + i, needle)) {
				/* a zombie or a process on its way out does not count */
				char stat_path[64], st[256] = "";
				snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", pid);
				FILE *f = fopen(stat_path, "r");
				if (f) {
					if (!fgets(st, sizeof st, f))
						st[0] = 0;
					fclose(f);
				}
				char *rp = strrchr(st, ')');
				if (!rp || (rp[2] != 'Z' && rp[2] != 'X')) {
					/* named, so a failure says what was left */
					char *nl = strchr(st, '\n');
					if (nl)
						*nl = 0;
					fprintf(stderr, "left running: %s\n", st);
					found++;
				}
				break;
			}
		}
	}
	closedir(d);
	return found;
}

#endif
