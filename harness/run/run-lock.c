/* run-lock: one harness at a time per campaign.
 *
 * It owns the campaign folder's lock file (runs/<campaign>/lock): an
 * advisory flock(2) taken by `run` and `resume` before any run is played
 * and held until the campaign is destroyed, plus the holder's record in the
 * file (pid, boot id, host, start time) so a second harness can say who
 * holds the campaign.  The kernel drops a flock when its holder dies, on
 * every exit path (SIGKILL included), and the descriptor is close-on-exec,
 * so a game the harness started never keeps it.  Between fork and exec a
 * child shares it, though (a game or helper being started, the pad's
 * player before it closes what it does not need): a harness killed then
 * leaves the flock with that child for as long as it takes to exec or
 * exit, which on a busy machine is long enough for a resume to find it.
 * So a take that finds the flock held and the recorded holder dead waits
 * for it, up to RUN_LOCK_ORPHAN_WAIT_MS, before it refuses, naming the
 * dead harness.  Where the folder's file
 * system has no flock (ENOLCK, some network mounts) the record is the
 * lease: held while its pid lives on the same boot (the boot id tells a
 * reboot, when pids start again), stale otherwise.  It does not own what
 * the campaign does under the lock (run-campaign.c).
 */
#include "run-private.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct run_lock {
	int fd;
	bool held;                   /* the record is ours: release clears it */
	char *path;
};

int run_boot_id(char out[64])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f)
		return -errno;
	char line[64] = "";
	bool ok = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (!ok || !line[0])
		return -EIO;
	snprintf(out, 64, "%s", line);
	return 0;
}

int run_lock_parse(const char *text, struct run_lock_holder *out)
{
	struct run_lock_holder h = { 0 };
	const char *p = text;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[256];
		if (len >= sizeof line)
			return -EINVAL;
		memcpy(line, p, len);
		line[len] = 0;
		long long v;
		int end = 0;
		if (sscanf(line, "pid %lld%n", &v, &end) == 1 && !line[end] && v > 0 && v <= INT32_MAX)
			h.pid = (int)v;
		else if (sscanf(line, "since %lld%n", &v, &end) == 1 && !line[end] && v >= 0)
			h.since_unix_ms = v;
		else if (strncmp(line, "boot ", 5) == 0)
			snprintf(h.boot_id, sizeof h.boot_id, "%.63s", line + 5);
		else if (strncmp(line, "host ", 5) == 0)
			snprintf(h.host, sizeof h.host, "%.127s", line + 5);
		p = eol ? eol + 1 : NULL;
	}
	if (!h.pid || !h.boot_id[0])
		return -EINVAL;
	*out = h;
	return 0;
}

bool run_lock_holder_alive(const struct run_lock_holder *h)
{
	char boot[64];
	if (run_boot_id(boot) < 0 || strcmp(boot, h->boot_id) != 0)
		return false;   /* another boot: every pid of it is gone */
	return kill(h->pid, 0) == 0 || errno == EPERM;
}

/* The record, from the start of the file; -EINVAL when there is none. */
static int read_holder(int fd, struct run_lock_holder *out)
{
	char buf[1024];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return run_lock_parse(buf, out);
}

static int write_holder(int fd)
{
	char boot[64] = "unknown", host[128] = "";
	run_boot_id(boot);
	gethostname(host, sizeof host - 1);
	char buf[512];
	int n = snprintf(buf, sizeof buf, "pid %d\nboot %s\nhost %s\nsince %" PRId64 "\n",
	                 (int)getpid(), boot, host, util_unix_ms());
	if (ftruncate(fd, 0) < 0)
		return -errno;
	if (pwrite(fd, buf, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

void run_lock_describe(const struct run_lock_holder *h, char *buf, size_t size)
{
	char when[32] = "an unknown time";
	time_t t = (time_t)(h->since_unix_ms / 1000);
	struct tm tm;
	if (h->since_unix_ms > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	char host[128] = "", where[160] = "";
	if (gethostname(host, sizeof host - 1) < 0 || strcmp(host, h->host) != 0)
		snprintf(where, sizeof where, " on host '%.127s'", h->host);
	snprintf(buf, size, "the harness with pid %d%s, since %s", h->pid, where, when);
}

/* Tries the flock every 20 ms for up to wait_ms: 0 once taken, else
 * flock's last -errno. */
static int flock_within(int fd, int wait_ms)
{
	int64_t end = util_now_ns() + (int64_t)wait_ms * 1000000;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		int rc = -errno;
		if ((rc != -EWOULDBLOCK && rc != -EINTR) || util_now_ns() >= end)
			return rc;
		struct timespec ts = { 0, 20 * 1000000 };
		nanosleep(&ts, NULL);
	}
}

int run_lock_take(const char *dir, const char *campaign, struct run_lock **out, char *errmsg,
                  size_t size)
{
	return run_lock_take_within(dir, campaign, RUN_LOCK_ORPHAN_WAIT_MS, out, errmsg, size);
}

int run_lock_take_within(const char *dir, const char *campaign, int orphan_wait_ms,
                         struct run_lock **out, char *errmsg, size_t size)
{
	struct run_lock *l = calloc(1, sizeof *l);
	if (!l || !(l->path = util_path_join(dir, "lock"))) {
		free(l);
		return -ENOMEM;
	}
	int rc;
	l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (l->fd < 0) {
		rc = -errno;
		run_errf(errmsg, size, rc, "cannot open lock '%s' of campaign '%s': %s", l->path, campaign,
		         strerror(-rc));
		goto fail;
	}
	struct run_lock_holder h;
	if (flock(l->fd, LOCK_EX | LOCK_NB) < 0) {
		rc = -errno;
		bool orphan = false;
		if (rc == -EWOULDBLOCK || rc == -EINTR) {
			/* the holder on record is dead: the flock is with a child it
			 * forked, until that child execs or exits */
			orphan = read_holder(l->fd, &h) == 0 && h.pid != (int)getpid() &&
			         !run_lock_holder_alive(&h);
			if (orphan)
				rc = flock_within(l->fd, orphan_wait_ms);
		}
		if (rc == -EWOULDBLOCK || rc == -EINTR) {
			char who[256] = "another harness";
			if (read_holder(l->fd, &h) == 0)
				run_lock_describe(&h, who, sizeof who);
			if (orphan && read_holder(l->fd, &h) == 0 && !run_lock_holder_alive(&h))
				rc = run_errf(errmsg, size, -EBUSY, "campaign '%s' is held by a process "
				              "left by %s, which has ended (lock '%s', still held after "
				              "%.1f s); stop what it started, or wait for it to end",
				              campaign, who, l->path, orphan_wait_ms / 1000.0);
			else
				rc = run_errf(errmsg, size, -EBUSY, "campaign '%s' is held by %s (lock '%s'); "
				              "one harness plays a campaign at a time", campaign, who, l->path);
			goto fail;
		}
		/* rc 0: taken once the dead harness's child let it go */
		if (rc != 0 && rc != -ENOLCK && rc != -EINVAL && rc != -EOPNOTSUPP) {
			run_errf(errmsg, size, rc, "cannot lock '%s' of campaign '%s': %s", l->path, campaign,
			         strerror(-rc));
			goto fail;
		}
		/* no flock here: the record is the lease */
		if (rc != 0 && read_holder(l->fd, &h) == 0 && h.pid != (int)getpid() &&
		    run_lock_holder_alive(&h)) {
			char who[256];
			run_lock_describe(&h, who, sizeof who);
			rc = run_errf(errmsg, size, -EBUSY, "campaign '%s' is held by %s (lock '%s'); "
			              "one harness plays a campaign at a time", campaign, who, l->path);
			goto fail;
		}
	}
	if ((rc = write_holder(l->fd)) < 0) {
		run_errf(errmsg, size, rc, "cannot write lock '%s' of campaign '%s': %s", l->path, campaign,
		         strerror(-rc));
		goto fail;
	}
	l->held = true;
	*out = l;
	return 0;
fail:
	run_lock_release(l);
	return rc;
}

void run_lock_release(struct run_lock *l)
{
	if (!l)
		return;
	if (l->fd >= 0) {
		/* the record goes first, so nobody reads a released holder as alive */
		if (l->held && ftruncate(l->fd, 0) < 0)
			l->held = false;
		close(l->fd);
	}
	free(l->path);
	free(l);
}
