/* deck control: the GPU clock and TDP an arm asks for, set through
 * steamos-manager where it runs (the Deck's session user may call it, no
 * root) and through amdgpu's sysfs otherwise, and put back afterwards.
 *
 * It owns the choice of path, what is saved before a change, and the state
 * file that lets a later start put the device back after the harness was
 * killed (SIGKILL leaves no chance to restore).  The bus calls are bus.c's,
 * the sysfs writes clock.c's.
 *
 * The state file is text, one "key value" a line:
 *   via steamos-manager
 *   level auto
 *   clock_mhz 1600
 *   tdp_w 15
 */
#include "deck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct deck_control {
	struct deck *deck;
	struct deck_manager *manager; /* NULL: sysfs */
	char errmsg[640];
};

static int fail(struct deck_control *c, int err, const char *msg)
{
	snprintf(c->errmsg, sizeof c->errmsg, "%s", msg);
	return err;
}

int deck_control_create(struct deck *d, bool use_manager, struct deck_control **out)
{
	struct deck_control *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->deck = d;
	if (use_manager) {
		char msg[256];
		if (deck_manager_open(&c->manager, msg, sizeof msg) != 0)
			c->manager = NULL; /* not there: sysfs */
	}
	*out = c;
	return 0;
}

void deck_control_destroy(struct deck_control *c)
{
	if (!c)
		return;
	deck_manager_close(c->manager);
	free(c);
}

const char *deck_control_via(const struct deck_control *c)
{
	return c->manager ? "steamos-manager" : "sysfs";
}

const char *deck_control_errmsg(const struct deck_control *c)
{
	return c ? c->errmsg : "";
}

int deck_control_save(struct deck_control *c, struct deck_control_state *out)
{
	struct deck_control_state s = { 0 };
	snprintf(s.via, sizeof s.via, "%s", deck_control_via(c));
	int err;
	if (c->manager) {
		unsigned mhz, lo, hi, w, wlo, whi;
		err = deck_manager_gpu_level_get(c->manager, s.level, sizeof s.level);
		if (err)
			return fail(c, err, deck_manager_errmsg(c->manager));
		if (deck_manager_gpu_clock_get(c->manager, &mhz, &lo, &hi) == 0)
			s.clock_mhz = mhz;
		if (deck_manager_tdp_get(c->manager, &w, &wlo, &whi) == 0)
			s.tdp_w = w;
	} else {
		err = deck_perf_level_get(c->deck, s.level, sizeof s.level);
		if (err)
			return fail(c, err, deck_errmsg(c->deck));
		double w, lo, hi;
		if (deck_tdp_get_w(c->deck, &w, &lo, &hi) == 0)
			s.tdp_w = w;
	}
	*out = s;
	return 0;
}

int deck_control_apply(struct deck_control *c, unsigned gpu_clock_mhz, double tdp_w)
{
	int err = 0;
	if (c->manager) {
		if (gpu_clock_mhz && (err = deck_manager_gpu_clock_set(c->manager, gpu_clock_mhz)))
			return fail(c, err, deck_manager_errmsg(c->manager));
		if (tdp_w > 0 && (err = deck_manager_tdp_set(c->manager, (unsigned)lround(tdp_w))))
			return fail(c, err, deck_manager_errmsg(c->manager));
		return 0;
	}
	if (gpu_clock_mhz && (err = deck_sclk_set_mhz(c->deck, gpu_clock_mhz)))
		return fail(c, err, deck_errmsg(c->deck));
	if (tdp_w > 0 && (err = deck_tdp_set_w(c->deck, tdp_w)))
		return fail(c, err, deck_errmsg(c->deck));
	return 0;
}

int deck_control_restore(struct deck_control *c, const struct deck_control_state *s)
{
	int first = 0, err;
	bool manager = strcmp(s->via, "steamos-manager") == 0;
	if (manager && !c->manager)
		return fail(c, -ENOENT, "the settings were changed through steamos-manager, which is "
		            "not on the session bus now");
	if (manager) {
		if (s->tdp_w > 0 &&
		    (err = deck_manager_tdp_set(c->manager, (unsigned)lround(s->tdp_w))) && !first)
			first = fail(c, err, deck_manager_errmsg(c->manager));
		if (strcmp(s->level, "manual") == 0 && s->clock_mhz)
			err = deck_manager_gpu_clock_set(c->manager, s->clock_mhz);
		else
			err = s->level[0] ? deck_manager_gpu_level_set(c->manager, s->level) : 0;
		if (err && !first)
			first = fail(c, err, deck_manager_errmsg(c->manager));
		return first;
	}
	if (s->tdp_w > 0 && (err = deck_tdp_set_w(c->deck, s->tdp_w)) && !first)
		first = fail(c, err, deck_errmsg(c->deck));
	if (s->level[0] && (err = deck_perf_level_set(c->deck, s->level)) && !first)
		first = fail(c, err, deck_errmsg(c->deck));
	return first;
}

int deck_control_state_write(const char *path, const struct deck_control_state *s)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "via %s\nlevel %s\nclock_mhz %u\ntdp_w %g\n", s->via, s->level[0] ? s->level : "-",
	        s->clock_mhz, s->tdp_w);
	int err = 0;
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int deck_control_state_read(const char *path, struct deck_control_state *out, char *errmsg,
                            size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	struct deck_control_state s = { 0 };
	char line[256];
	int n = 0, err = 0, seen = 0;
	while (!err && fgets(line, sizeof line, f)) {
		n++;
		char key[32], val[64];
		if (sscanf(line, "%31s %63s", key, val) != 2) {
			snprintf(errmsg, size, "%s:%d:1: expected 'key value'", path, n);
			err = -EINVAL;
		} else if (strcmp(key, "via") == 0 &&
		           (strcmp(val, "sysfs") == 0 || strcmp(val, "steamos-manager") == 0)) {
			memcpy(s.via, val, strlen(val) + 1);
			seen |= 1;
		} else if (strcmp(key, "level") == 0 && strlen(val) < sizeof s.level) {
			memcpy(s.level, strcmp(val, "-") == 0 ? "" : val,
			       strcmp(val, "-") == 0 ? 1 : strlen(val) + 1);
			seen |= 2;
		} else if (strcmp(key, "clock_mhz") == 0 && sscanf(val, "%u", &s.clock_mhz) == 1) {
			seen |= 4;
		} else if (strcmp(key, "tdp_w") == 0 && sscanf(val, "%lf", &s.tdp_w) == 1 &&
		           s.tdp_w >= 0 && s.tdp_w < 1000) {
			seen |= 8;
		} else {
			snprintf(errmsg, size, "%s:%d:%zu: unexpected '%s %s'", path, n,
			         strlen(key) + 2, key, val);
			err = -EINVAL;
		}
	}
	fclose(f);
	if (!err && seen != 15) {
		snprintf(errmsg, size, "%s:%d:1: incomplete (needs via, level, clock_mhz, tdp_w)", path,
		         n + 1);
		err = -EINVAL;
	}
	if (!err)
		*out = s;
	return err;
}
