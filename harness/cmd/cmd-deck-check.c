/* cmd-deck-check: `rxdeck deck check`, the first minute on a real Deck.
 * Every assumption a night rests on, checked now, one line each: ok, warn
 * (the night runs, with what the line says) or fail (a night would not
 * run, or not measure), with the fix.  It owns the verdicts, their words
 * and the output (text, or --json to paste into an issue); the readings
 * are deck's (deck.h, deck/check.h, deck/sleep.h) and run's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "deck/check.h"
#include "deck/deck.h"
#include "deck/sleep.h"
#include "run/run.h"

/* Free space under the data folder: a night's run folders (frame logs,
 * shots, game logs) and the database.  Chosen margins, not measured. */
#define DISK_NIGHT_B (2LL << 30)
#define DISK_MIN_B (256LL << 20)

enum status { ST_OK, ST_WARN, ST_FAIL };

static const char *const status_names[] = { "ok", "warn", "fail" };

struct check {
	const char *name;
	enum status st;
	char detail[1024];
	char fix[512];
};

#define MAX_CHECKS 16

struct checks {
	struct check v[MAX_CHECKS];
	size_t n;
};

static void put(struct checks *cs, const char *name, enum status st, const char *fix,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void put(struct checks *cs, const char *name, enum status st, const char *fix,
                const char *fmt, ...)
{
	if (cs->n == MAX_CHECKS)
		return;
	struct check *c = &cs->v[cs->n++];
	c->name = name;
	c->st = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof c->detail, fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof c->fix, "%s", fix ? fix : "");
}

static char *under_root(const char *root, const char *rel)
{
	char *p = NULL;
	const char *sep = root[strlen(root) - 1] == '/' ? "" : "/";
	if (asprintf(&p, "%s%s%s", root, sep, rel) < 0)
		return NULL;
	return p;
}

/* ---- the checks, one a function ------------------------------------------ */

static void check_os(struct checks *cs, const struct deck_facts *f)
{
	if (f->os && strstr(f->os, "SteamOS"))
		put(cs, "steamos", ST_OK, NULL, "%s %s (build %s)", f->os,
		    f->os_version ? f->os_version : "(no VERSION_ID)",
		    f->os_build ? f->os_build : "not said");
	else
		put(cs, "steamos", ST_WARN, "none needed off a Deck",
		    "not SteamOS (%s): steamos-manager, the priv-write helper and Game Mode do not "
		    "apply", f->os ? f->os : "no os-release");
}

/* The route to the clock and TDP (deck.h's deck_route) and a write
 * through it that changes nothing. */
static void check_route(struct checks *cs, struct deck *d)
{
	struct deck_control *c = NULL;
	if (deck_control_open(d, NULL, &c) < 0) {
		put(cs, "route", ST_FAIL, NULL, "out of memory");
		return;
	}
	const struct deck_route *r = deck_control_route(c);
	char tries[1024];
	if (r->kind == DECK_ROUTE_NONE) {
		deck_route_tries_text(r, tries, sizeof tries);
		put(cs, "route", ST_WARN,
		    "plans without gpu_clock and tdp_w run; for those with them start steamos-manager "
		    "(Game Mode runs it) or install Valve's priv-write helper",
		    "%s", tries);
		deck_control_destroy(c);
		return;
	}
	char where[320];
	if (r->bus[0])
		snprintf(where, sizeof where, "%s bus, %s%s%s", r->bus, r->interface,
		         r->version[0] ? ", Version " : "", r->version);
	else
		snprintf(where, sizeof where, "%s", r->interface);
	char ranges[320] = "";
	if (r->clock_max_mhz)
		snprintf(ranges, sizeof ranges, "; clock %u-%u MHz (%s)", r->clock_min_mhz,
		         r->clock_max_mhz, r->clock_range_source);
	if (r->tdp_max_w > 0) {
		size_t n = strlen(ranges);
		snprintf(ranges + n, sizeof ranges - n, "; TDP %g-%g W (%s)", r->tdp_min_w,
		         r->tdp_max_w, r->tdp_range_source);
	}
	char what[512] = "";
	if (deck_control_noop_write(c, what, sizeof what) == 0)
		put(cs, "route", ST_OK, NULL, "%s (%s)%s; no-op write: %s",
		    deck_route_kind_name(r->kind), where, ranges, what);
	else
		put(cs, "route", ST_FAIL,
		    "a plan with gpu_clock or tdp_w would stop at its first arm: see why, and "
		    "'rxdeck deck info' for every route",
		    "%s (%s) found, but writing back what it read failed: %s",
		    deck_route_kind_name(r->kind), where, deck_control_errmsg(c));
	deck_control_destroy(c);
}

static void check_priv_write(struct checks *cs, const char *root)
{
	char *helper = under_root(root, "usr/bin/steamos-polkit-helpers/steamos-priv-write");
	char *pkexec = under_root(root, "usr/bin/pkexec");
	bool h = helper && access(helper, X_OK) == 0, p = pkexec && access(pkexec, X_OK) == 0;
	if (h && p)
		put(cs, "priv-write", ST_OK, NULL, "present: pkexec "
		    "/usr/bin/steamos-polkit-helpers/steamos-priv-write (Valve's polkit helper)");
	else
		put(cs, "priv-write", ST_WARN,
		    "without it the clock and TDP need steamos-manager, or root for sysfs",
		    "absent: %s%s%s", h ? "" : "/usr/bin/steamos-polkit-helpers/steamos-priv-write",
		    !h && !p ? " and " : "", p ? "" : "/usr/bin/pkexec");
	free(helper);
	free(pkexec);
}

static void check_uinput(struct checks *cs, const char *root)
{
	char *dev = under_root(root, "dev/uinput");
	int fd = dev ? open(dev, O_WRONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		close(fd);
		put(cs, "uinput", ST_OK, NULL, "%s is writable: the route's virtual pad can be made",
		    dev);
	} else {
		put(cs, "uinput", ST_FAIL,
		    "deck/install.sh --udev installs 70-rxdeck-uinput.rules (sudo; the deck user "
		    "needs a password, set with passwd)",
		    "cannot open %s for writing: %s", dev ? dev : "/dev/uinput", strerror(errno));
	}
	free(dev);
}

static void check_inhibitor(struct checks *cs)
{
	struct deck_inhibitor *i = NULL;
	char msg[512] = "";
	if (deck_inhibit("rxdeck deck check", &i, msg, sizeof msg) == 0) {
		deck_inhibitor_release(i);
		put(cs, "inhibitor", ST_OK, NULL, "logind granted the sleep:idle block inhibitor "
		    "(taken and released)");
	} else {
		put(cs, "inhibitor", ST_FAIL,
		    "logind must run on the system bus and grant Inhibit to this user",
		    "%s", msg);
	}
}

static void check_systemd(struct checks *cs)
{
	char v[64], msg[512] = "";
	int major = 0;
	if (deck_systemd_version(v, sizeof v, &major, msg, sizeof msg) < 0) {
		put(cs, "systemd", ST_WARN,
		    "keep the Deck on AC and set Steam's sleep timers on AC to Never",
		    "version not known (%s): whether logind honours a block inhibitor against the "
		    "same user's suspend is not known", msg);
	} else if (major >= DECK_SYSTEMD_OWN_BLOCK_HONOURED) {
		put(cs, "systemd", ST_OK, NULL, "systemd %s: logind honours rxdeck's block inhibitor "
		    "against a suspend asked by the same user (Steam's)", v);
	} else {
		put(cs, "systemd", ST_WARN,
		    "keep the Deck on AC, set Steam's sleep timers on AC to Never (Settings, Power) "
		    "and leave the power button alone; a run the host slept through is void",
		    "systemd %s: logind before %d lets a suspend asked by the inhibitor's own user "
		    "pass it, and Steam runs as that user", v, DECK_SYSTEMD_OWN_BLOCK_HONOURED);
	}
}

static void check_power(struct checks *cs, const struct deck_sample *s)
{
	const struct deck_reading *ac = &s->r[DECK_AC_ONLINE], *bat = &s->r[DECK_BATTERY_PCT];
	char b[64] = "no battery";
	if (bat->err == 0)
		snprintf(b, sizeof b, "battery %.0f %%%s", bat->value,
		         s->r[DECK_BATTERY_DISCHARGING].err == 0 &&
		                 s->r[DECK_BATTERY_DISCHARGING].value == 1
		             ? ", discharging" : "");
	if (ac->err == 0 && ac->value == 1)
		put(cs, "power", ST_OK, NULL, "on AC, %s", b);
	else if (ac->err == 0)
		put(cs, "power", ST_WARN, "plug the Deck in: no run starts on battery",
		    "on battery (%s)", b);
	else if (bat->err == 0)
		put(cs, "power", ST_WARN, "plug the Deck in", "no AC source found; %s", b);
	else
		put(cs, "power", ST_OK, NULL, "neither AC nor battery sources (a desktop): the "
		    "power rules do not apply");
}

static void check_gpu_metrics(struct checks *cs, struct deck *d)
{
	struct deck_gpu_metrics_status g;
	deck_gpu_metrics_status(d, &g);
	if (g.err == 0)
		put(cs, "gpu_metrics", ST_OK, NULL, "v%u.%u, %zu bytes (header %u), read: socket "
		    "%.2f W, gfx clock %.0f MHz", g.format, g.content, g.len, g.size,
		    g.socket_power_w, g.gfxclk_mhz);
	else if (g.err == -ENOENT && !g.path[0])
		put(cs, "gpu_metrics", ST_WARN, "socket, CPU and GPU power come from hwmon alone",
		    "absent: %s", g.msg[0] ? g.msg : "the card has no gpu_metrics");
	else if (g.err == -EOPNOTSUPP)
		put(cs, "gpu_metrics", ST_WARN, "its readings are absent; hwmon's are used",
		    "v%u.%u, %zu bytes: %s", g.format, g.content, g.len, g.msg);
	else
		put(cs, "gpu_metrics", ST_WARN, "its readings are absent; hwmon's are used",
		    "%s", g.msg);
}

static void check_hwmon(struct checks *cs, struct deck *d)
{
	char line[900], missing[512];
	if (deck_hwmon_describe(d, line, sizeof line, missing, sizeof missing) < 0)
		put(cs, "hwmon", ST_WARN, "power, temperature and TDP readings are absent", "%s",
		    line);
	else if (missing[0])
		put(cs, "hwmon", ST_WARN, "the readings that need them are absent",
		    "%s; missing: %s", line, missing);
	else
		put(cs, "hwmon", ST_OK, NULL, "%s", line);
}

static void check_units(struct checks *cs)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char dir[PATH_MAX];
	if (x && x[0] == '/')
		snprintf(dir, sizeof dir, "%s/systemd/user", x);
	else if (home && home[0] == '/')
		snprintf(dir, sizeof dir, "%s/.config/systemd/user", home);
	else {
		put(cs, "units", ST_WARN, "set HOME", "no HOME: the user units' folder is not known");
		return;
	}
	char svc[PATH_MAX + 64], tmr[PATH_MAX + 64], wants[PATH_MAX + 64];
	snprintf(svc, sizeof svc, "%s/rxdeck-overnight.service", dir);
	snprintf(tmr, sizeof tmr, "%s/rxdeck-overnight.timer", dir);
	snprintf(wants, sizeof wants, "%s/timers.target.wants/rxdeck-overnight.timer", dir);
	bool s = access(svc, R_OK) == 0, t = access(tmr, R_OK) == 0;
	struct stat st;
	bool enabled = lstat(wants, &st) == 0;
	if (s && t)
		put(cs, "units", ST_OK, NULL, "rxdeck-overnight.service and .timer in %s; the timer "
		    "is %s", dir, enabled ? "enabled" : "not enabled (optional)");
	else
		put(cs, "units", ST_WARN,
		    "install.sh from the bundle installs them (the timer stays off unless asked)",
		    "not installed in %s:%s%s", dir, s ? "" : " rxdeck-overnight.service",
		    t ? "" : " rxdeck-overnight.timer");
}

/* ---- bundled libraries ---------------------------------------------------- */

struct loaded {
	char **paths;
	size_t n, cap;
};

static int on_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct loaded *l = data;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		char **v = realloc(l->paths, cap * sizeof *v);
		if (!v)
			return 1;
		l->paths = v;
		l->cap = cap;
	}
	if ((l->paths[l->n] = strdup(info->dlpi_name)))
		l->n++;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void check_libraries(struct checks *cs)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	char exe[PATH_MAX], libdir[PATH_MAX + 32], real_lib[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		put(cs, "libraries", ST_WARN, NULL, "cannot read /proc/self/exe: %s", strerror(errno));
		return;
	}
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(libdir, sizeof libdir, "%s/../lib/rxdeck", exe);
	DIR *dir = realpath(libdir, real_lib) ? opendir(real_lib) : NULL;
	if (!dir) {
		put(cs, "libraries", ST_OK, NULL, "not a bundle (no %s): the libraries are the "
		    "system's; LD_LIBRARY_PATH=%s", libdir, llp ? llp : "(unset)");
		return;
	}
	struct loaded l = { 0 };
	dl_iterate_phdr(on_object, &l);
	size_t ours = 0, unused = 0;
	char wrong[768] = "";
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		const char *hit = NULL;
		for (size_t i = 0; i < l.n && !hit; i++)
			if (strcmp(base_name(l.paths[i]), e->d_name) == 0)
				hit = l.paths[i];
		if (!hit) {
			unused++; /* the demo game's, not rxdeck's */
			continue;
		}
		char real_hit[PATH_MAX];
		if (realpath(hit, real_hit) && strncmp(real_hit, real_lib, strlen(real_lib)) == 0 &&
		    real_hit[strlen(real_lib)] == '/') {
			ours++;
		} else {
			size_t w = strlen(wrong);
			snprintf(wrong + w, sizeof wrong - w, "%s%s from %s", w ? "; " : "", e->d_name,
			         hit);
		}
	}
	closedir(dir);
	for (size_t i = 0; i < l.n; i++)
		free(l.paths[i]);
	free(l.paths);
	if (wrong[0])
		put(cs, "libraries", ST_FAIL,
		    "a bundle made by this version's bundle.sh searches its own lib/rxdeck first "
		    "(DT_RPATH); remake and reinstall it",
		    "not the bundle's: %s (LD_LIBRARY_PATH=%s)", wrong, llp ? llp : "(unset)");
	else
		put(cs, "libraries", ST_OK, NULL, "%zu bundled libraries loaded from %s (%zu more "
		    "for the demo game); LD_LIBRARY_PATH=%s", ours, real_lib, unused,
		    llp ? llp : "(unset)");
}

static void check_mode(struct checks *cs)
{
	const char *desk = getenv("XDG_CURRENT_DESKTOP");
	if (desk && strcasestr(desk, "gamescope"))
		put(cs, "mode", ST_OK, NULL, "Game Mode (XDG_CURRENT_DESKTOP=%s)", desk);
	else if (desk && desk[0])
		put(cs, "mode", ST_OK, NULL, "Desktop Mode (XDG_CURRENT_DESKTOP=%s)", desk);
	else
		put(cs, "mode", ST_WARN,
		    "start rxdeck from Konsole in Desktop Mode, or as a non-Steam shortcut in Game "
		    "Mode, so the game gets the session's display",
		    "no desktop session (XDG_CURRENT_DESKTOP unset): over ssh or from a service?");
}

static void check_disk(struct checks *cs)
{
	char *data = NULL;
	if (run_data_dir(&data) < 0) {
		put(cs, "disk", ST_WARN, "set HOME", "the data folder is not known (no HOME)");
		return;
	}
	/* the folder, or the nearest one above it that exists */
	char at[PATH_MAX];
	snprintf(at, sizeof at, "%s", data);
	struct statvfs v;
	while (statvfs(at, &v) != 0 && strrchr(at, '/') && strrchr(at, '/') != at)
		*strrchr(at, '/') = '\0';
	if (statvfs(at, &v) != 0) {
		put(cs, "disk", ST_WARN, NULL, "cannot measure free space at %s: %s", data,
		    strerror(errno));
		free(data);
		return;
	}
	long long free_b = (long long)v.f_bavail * (long long)v.f_frsize;
	double gib = (double)free_b / (1 << 30);
	if (free_b >= DISK_NIGHT_B)
		put(cs, "disk", ST_OK, NULL, "%.1f GiB free for %s", gib, data);
	else if (free_b >= DISK_MIN_B)
		put(cs, "disk", ST_WARN, "free space: a full disk stops the campaign",
		    "%.2f GiB free for %s, under the %lld GiB a night is given", gib, data,
		    DISK_NIGHT_B >> 30);
	else
		put(cs, "disk", ST_FAIL, "free space before the night",
		    "%.0f MiB free for %s", (double)free_b / (1 << 20), data);
	free(data);
}

/* ---- output ----------------------------------------------------------------- */

static int print_json(const struct checks *cs, const int count[3])
{
	json_t *o = json_object(), *a = json_array();
	for (size_t i = 0; i < cs->n; i++) {
		const struct check *c = &cs->v[i];
		json_t *j = json_object();
		json_object_set_new(j, "check", json_string(c->name));
		json_object_set_new(j, "status", json_string(status_names[c->st]));
		json_object_set_new(j, "detail", json_string(c->detail));
		json_object_set_new(j, "fix", c->fix[0] && c->st != ST_OK ? json_string(c->fix)
		                                                         : json_null());
		json_array_append_new(a, j);
	}
	json_object_set_new(o, "checks", a);
	json_object_set_new(o, "ok", json_integer(count[ST_OK]));
	json_object_set_new(o, "warn", json_integer(count[ST_WARN]));
	json_object_set_new(o, "fail", json_integer(count[ST_FAIL]));
	int err = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	putchar('\n');
	return err;
}

static void print_text(const struct checks *cs, const int count[3])
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct check *c = &cs->v[i];
		printf("%-4s  %-12s %s\n", status_names[c->st], c->name, c->detail);
		if (c->st != ST_OK && c->fix[0])
			printf("      %-12s fix: %s\n", "", c->fix);
	}
	printf("\n%d ok, %d warn, %d fail\n", count[ST_OK], count[ST_WARN], count[ST_FAIL]);
}

int cmd_deck_check(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	const char *root = NULL, *card = NULL;
	bool json = false;
	const struct cli_option options[] = {
		OPT_BOOL(0, "json", &json, "print one JSON object: every check with its status, "
		         "detail and fix, and the counts"),
		OPT_STRING(0, "card", &card, "NAME",
		           "the DRM card to use, e.g. card1 (default: the first amdgpu card)"),
		OPT_STRING(0, "root", &root, "DIR",
		           "read sys/, proc/, etc/, dev/ and usr/ under DIR instead of / (for tests)"),
		OPT_END
	};
	struct cli cli = {
		.command = command, .synopsis = "[--json] [--card NAME] [--root DIR]",
		.summary = "Checks, now, every assumption a night rests on, one line each: the SteamOS "
		           "build, the route to the GPU clock and TDP (with a write that changes "
		           "nothing), Valve's priv-write helper, /dev/uinput, logind's inhibitor and "
		           "the systemd version, AC and battery, gpu_metrics, the hwmon labels, the "
		           "user units, the bundled libraries under the current LD_LIBRARY_PATH, Game "
		           "or Desktop Mode and free disk space.  Each is ok, warn (the night runs, "
		           "with what the line says) or fail, with the fix.  Exits 0 when nothing "
		           "fails, 1 otherwise.",
		.options = options,
	};
	int npos, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	if (!root)
		root = cmd_deck_root();
	struct deck *d;
	char msg[512] = "";
	int err = deck_create(&(struct deck_options){ .root = root, .card = card }, msg, sizeof msg,
	                      &d);
	if (err) {
		cli_error(command, "%s", msg[0] ? msg : strerror(-err));
		return RXDECK_EXIT_FAILURE;
	}
	struct deck_facts f;
	if (deck_facts_read(d, &f) != 0) {
		deck_destroy(d);
		cli_error(command, "out of memory");
		return RXDECK_EXIT_FAILURE;
	}
	struct deck_sample s;
	deck_sample(d, &s);
	const char *r = root && root[0] ? root : "/";

	struct checks cs = { .n = 0 };
	check_os(&cs, &f);
	check_route(&cs, d);
	check_priv_write(&cs, r);
	check_uinput(&cs, r);
	check_inhibitor(&cs);
	check_systemd(&cs);
	check_power(&cs, &s);
	check_gpu_metrics(&cs, d);
	check_hwmon(&cs, d);
	check_units(&cs);
	check_libraries(&cs);
	check_mode(&cs);
	check_disk(&cs);
	deck_facts_finish(&f);
	deck_destroy(d);

	int count[3] = { 0 };
	for (size_t i = 0; i < cs.n; i++)
		count[cs.v[i].st]++;
	if (json) {
		if (print_json(&cs, count) != 0 || fflush(stdout) != 0) {
			cli_error(command, "cannot write the JSON to standard output");
			return RXDECK_EXIT_FAILURE;
		}
	} else {
		print_text(&cs, count);
	}
	return count[ST_FAIL] ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_OK;
}
