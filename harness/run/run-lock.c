/* run-lock: one harness at a time per campaign.
 *
 * It owns the campaign folder's lock file (runs/<campaign>/lock): an
 * advisory flock(2) taken by `run` and `resume` before any run is played
 * and held until the campaign is destroyed, plus the holder's record in the
 * file (pid, boot id, host, start time) so a second harness can say who
 * holds the campaign.  The kernel drops a flock when its holder dies, on
 * every exit path (SIGKILL included), and the descriptor is close-on-exec,
 * so a game the harness started never keeps it.  Where the folder's file
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

int run_lock_take(const char *dir, const char *campaign, struct run_lock **out, char *errmsg,
                  size_t size)
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
		if (rc == -EWOULDBLOCK || rc == -EINTR) {
			char who[256] = "another harness";
			if (read_holder(l->fd, &h) == 0)
				run_lock_describe(&h, who, sizeof who);
			rc = run_errf(errmsg, size, -EBUSY, "campaign '%s' is held by %s (lock '%s'); "
			              "one harness plays a campaign at a time", campaign, who, l->path);
			goto fail;
		}
		if (rc != -ENOLCK && rc != -EINVAL && rc != -EOPNOTSUPP) {
			run_errf(errmsg, size, rc, "cannot lock '%s' of campaign '%s': %s", l->path, campaign,
			         strerror(-rc));
			goto fail;
		}
		/* no flock here: the record is the lease */
		if (read_holder(l->fd, &h) == 0 && h.pid != (int)getpid() && run_lock_holder_alive(&h)) {
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
