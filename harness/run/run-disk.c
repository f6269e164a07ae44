/* run-disk: whether the run folder's file system has room for a run.
 *
 * It owns the one figure the campaign asks before a run and after the game
 * has exited: the space left to an unprivileged writer on the file system
 * of the campaign's folder.  Below RUN_DISK_MIN_FREE_B the game's frame
 * log, shots and log cannot be trusted to be whole, so a run is not
 * started (harness trouble: the campaign stops with the reason, `rxdeck
 * resume` goes on once space is freed) and a run that ended so is void
 * "disk full" (run-campaign.c decides both).
 */
#include "run-private.h"

#include <errno.h>
#include <stdio.h>
#include <sys/statvfs.h>

int run_disk_free_B(const char *dir, int64_t *out)
{
	struct statvfs st;
	if (statvfs(dir, &st) < 0)
		return -errno;
	*out = (int64_t)st.f_bavail * (int64_t)st.f_frsize;
	return 0;
}

int run_disk_check(const char *dir, char *errmsg, size_t size)
{
	int64_t free_B;
	int rc = run_disk_free_B(dir, &free_B);
	if (rc < 0)
		return 0;   /* not known: the writes themselves will say */
	if (free_B >= RUN_DISK_MIN_FREE_B)
		return 0;
	return run_errf(errmsg, size, -ENOSPC, "disk full: %lld KiB left on the file system of '%s' "
	                "(a run needs %d KiB)", (long long)(free_B / 1024), dir,
	                RUN_DISK_MIN_FREE_B / 1024);
}
