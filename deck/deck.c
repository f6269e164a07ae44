/* deck: finding the host's sources under a root folder and sampling them.
 *
 * It owns discovery (which DRM card, which hwmon, which power supplies)
 * and the sample: every reading present or absent with its reason.  The
 * text formats are parse.c's; the GPU clock is clock.c's; host facts are
 * facts.c's.
 */
#include "deck.h"
#include "deck-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const reading_names[DECK_N_READINGS] = {
	[DECK_GPU_BUSY_PCT] = "gpu_busy_pct",
	[DECK_GPU_SCLK_MHZ] = "gpu_sclk_mhz",
	[DECK_GPU_POWER_W] = "gpu_power_w",
	[DECK_GPU_TEMP_C] = "gpu_temp_c",
	[DECK_GPU_TEMP_MAX_C] = "gpu_temp_max_c",
	[DECK_SWAP_IN_PAGES] = "swap_in_pages",
	[DECK_SWAP_OUT_PAGES] = "swap_out_pages",
	[DECK_LOAD_1M] = "load_1m",
	[DECK_LOAD_5M] = "load_5m",
	[DECK_LOAD_15M] = "load_15m",
	[DECK_BATTERY_PCT] = "battery_pct",
	[DECK_BATTERY_DISCHARGING] = "battery_discharging",
	[DECK_AC_ONLINE] = "ac_online",
	[DECK_SOCKET_POWER_W] = "socket_power_w",
	[DECK_CPU_POWER_W] = "cpu_power_w",
	[DECK_GPU_ACTIVITY_PCT] = "gpu_activity_pct",
	[DECK_GPU_CLOCK_MHZ] = "gpu_clock_mhz",
	[DECK_SOC_TEMP_C] = "soc_temp_c",
	[DECK_THROTTLED_POWER] = "throttled_power",
	[DECK_THROTTLED_THERMAL] = "throttled_thermal",
	[DECK_FAN_RPM] = "fan_rpm",
	[DECK_POWER_CAP_W] = "power_cap_w",
};

const char *deck_reading_name(enum deck_reading_id id)
{
	return (unsigned)id < DECK_N_READINGS ? reading_names[id] : NULL;
}

int deck_fail(struct deck *d, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->errmsg, sizeof d->errmsg, fmt, ap);
	va_end(ap);
	return err;
}

const char *deck_errmsg(const struct deck *d)
{
	return d ? d->errmsg : "";
}

const char *deck_card(const struct deck *d)
{
	return d->card;
}

char *deck_path(const struct deck *d, const char *rel)
{
	char *p = NULL;
	const char *sep = d->root[strlen(d->root) - 1] == '/' ? "" : "/";
	if (asprintf(&p, "%s%s%s", d->root, sep, rel[0] == '/' ? rel + 1 : rel) < 0)
		return NULL;
	return p;
}

int deck_read_file(const char *path, char *buf, size_t size, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*len_out = len;
	return 0;
}

static bool exists(const char *path)
{
	return path && access(path, F_OK) == 0;
}

/* Joins dir and name into a new string. */
static char *join(const char *dir, const char *name)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* Entries of dir matching prefix+digits, sorted by the number. */
struct numbered {
	char name[256];
	long n;
};

static int cmp_numbered(const void *a, const void *b)
{
	const struct numbered *x = a, *y = b;
	return x->n < y->n ? -1 : x->n > y->n;
}

static int list_numbered(const char *dir, const char *prefix, const char *suffix,
                         struct numbered **out, size_t *n_out)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct numbered *v = NULL;
	size_t n = 0, cap = 0;
	size_t pl = strlen(prefix), sl = strlen(suffix);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		size_t len = strlen(s);
		if (len <= pl + sl || strncmp(s, prefix, pl) != 0 || strcmp(s + len - sl, suffix) != 0)
			continue;
		long num = 0;
		size_t i = pl;
		for (; i < len - sl && isdigit((unsigned char)s[i]) && num < 1000000; i++)
			num = num * 10 + (s[i] - '0');
		if (i != len - sl)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct numbered *nv = realloc(v, cap * sizeof *nv);
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		snprintf(v[n].name, sizeof v[n].name, "%s", s);
		v[n].n = num;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof *v, cmp_numbered);
	*out = v;
	*n_out = n;
	return 0;
}

/* Reads a short one-line file into buf; 0 or -errno. */
static int read_word(const char *path, char *buf, size_t size)
{
	char text[256];
	size_t len;
	int err = deck_read_file(path, text, sizeof text, &len);
	if (err)
		return err;
	return deck_parse_word(path, text, len, buf, size, NULL);
}

static int find_hwmon(struct deck *d)
{
	char *dir = join(d->card_dev, "hwmon");
	if (!dir)
		return -ENOMEM;
	struct numbered *h = NULL;
	size_t nh = 0;
	int err = list_numbered(dir, "hwmon", "", &h, &nh);
	if (err == -ENOENT || err == -ENOTDIR || (err == 0 && nh == 0)) {
		free(dir);
		free(h);
		return 0;
	}
	if (err) {
		free(dir);
		return err;
	}
	char *hw = join(dir, h[0].name);
	free(dir);
	free(h);
	if (!hw)
		return -ENOMEM;
	d->hwmon = hw;

	static const char *const power[] = { "power1_average", "power1_input" };
	for (size_t i = 0; i < 2; i++) {
		char *p = join(hw, power[i]);
		if (!p)
			return -ENOMEM;
		if (exists(p))
			d->power[d->n_power++] = p;
		else
			free(p);
	}
	/* An APU's hwmon power is the whole package's: amdgpu labels it
	 * slowPPT there (PPT on a discrete card). */
	char label[64];
	char *lp = join(hw, "power1_label");
	if (!lp)
		return -ENOMEM;
	if (read_word(lp, label, sizeof label) == 0 && strcmp(label, "slowPPT") == 0)
		d->apu = true;
	free(lp);
	char *fan = join(hw, "fan1_input"), *cap = join(hw, "power1_cap");
	if (!fan || !cap) {
		free(fan);
		free(cap);
		return -ENOMEM;
	}
	if (exists(fan))
		d->fan = fan;
	else
		free(fan);
	if (exists(cap))
		d->power_cap = cap;
	else
		free(cap);
	struct numbered *t = NULL;
	size_t nt = 0;
	err = list_numbered(hw, "temp", "_input", &t, &nt);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (size_t i = 0; i < nt && d->n_temps < DECK_MAX_TEMPS; i++) {
		char *p = join(hw, t[i].name);
		if (!p) {
			free(t);
			return -ENOMEM;
		}
		d->temps[d->n_temps] = p;
		char label_name[64];
		snprintf(label_name, sizeof label_name, "temp%ld_label", t[i].n);
		lp = join(hw, label_name);
		if (lp && read_word(lp, label, sizeof label) == 0 && strcmp(label, "edge") == 0 &&
		    d->temp_main < 0)
			d->temp_main = (int)d->n_temps;
		free(lp);
		d->n_temps++;
	}
	free(t);
	if (d->temp_main < 0 && d->n_temps > 0)
		d->temp_main = 0;
	return 0;
}

static int find_card(struct deck *d, const char *wanted, char *errmsg, size_t errmsg_size)
{
	char *drm = deck_path(d, "sys/class/drm");
	if (!drm)
		return -ENOMEM;
	int err = 0;
	if (wanted) {
		char *dev = NULL;
		if (strchr(wanted, '/') || asprintf(&dev, "%s/%s/device", drm, wanted) < 0) {
			free(drm);
			return dev ? -ENOMEM : -ENODEV;
		}
		if (!exists(dev)) {
			if (errmsg)
				snprintf(errmsg, errmsg_size, "no DRM card '%s' (no '%s')", wanted, dev);
			free(dev);
			free(drm);
			return -ENODEV;
		}
		d->card = strdup(wanted);
		d->card_dev = dev;
		free(drm);
		return d->card ? 0 : -ENOMEM;
	}
	struct numbered *cards = NULL;
	size_t n = 0;
	err = list_numbered(drm, "card", "", &cards, &n);
	if (err == -ENOENT || err == -ENOTDIR) {
		free(drm);
		return 0; /* no DRM at all: every GPU reading absent */
	}
	if (err) {
		free(drm);
		return err;
	}
	for (size_t i = 0; i < n && !d->card; i++) {
		char *dev = NULL, *busy = NULL;
		if (asprintf(&dev, "%s/%s/device", drm, cards[i].name) < 0 ||
		    !(busy = join(dev, "gpu_busy_percent"))) {
			free(dev);
			err = -ENOMEM;
			break;
		}
		if (exists(busy)) {
			d->card = strdup(cards[i].name);
			d->card_dev = dev;
			dev = NULL;
			if (!d->card)
				err = -ENOMEM;
		}
		free(dev);
		free(busy);
	}
	free(cards);
	free(drm);
	return err;
}

static int find_power_supplies(struct deck *d)
{
	char *dir = deck_path(d, "sys/class/power_supply");
	if (!dir)
		return -ENOMEM;
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		free(dir);
		return 0;
	}
	int err = 0;
	for (int i = 0; i < n; i++) {
		char *ps = NULL;
		if (names[i]->d_name[0] != '.' && !err && (ps = join(dir, names[i]->d_name))) {
			char type[64] = "", scope[64] = "";
			char *tp = join(ps, "type"), *sp = join(ps, "scope");
			if (tp)
				read_word(tp, type, sizeof type);
			/* scope "Device": a pad's or a mouse's battery, not the host's. */
			if (sp)
				read_word(sp, scope, sizeof scope);
			free(tp);
			free(sp);
			if (strcmp(scope, "Device") != 0) {
				if (strcmp(type, "Battery") == 0 && !d->battery) {
					d->battery = ps;
					ps = NULL;
				} else if (strcmp(type, "Mains") == 0 && !d->ac) {
					d->ac = ps;
					ps = NULL;
				}
			}
			free(ps);
		} else if (names[i]->d_name[0] != '.' && !err) {
			err = -ENOMEM;
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return err;
}

/* The Steam Deck's embedded controller reports the fan through its own
 * hwmon device, named steamdeck_hwmon (jupiter-fan-control reads it). */
static int find_deck_fan(struct deck *d)
{
	char *dir = deck_path(d, "sys/class/hwmon");
	if (!dir)
		return -ENOMEM;
	struct numbered *h = NULL;
	size_t nh = 0;
	int err = list_numbered(dir, "hwmon", "", &h, &nh);
	if (err) {
		free(dir);
		return err == -ENOMEM ? err : 0;
	}
	for (size_t i = 0; i < nh && !err; i++) {
		char *hw = join(dir, h[i].name), *np = hw ? join(hw, "name") : NULL;
		char name[64];
		if (!np) {
			err = -ENOMEM;
		} else if (read_word(np, name, sizeof name) == 0 &&
		           strcmp(name, "steamdeck_hwmon") == 0) {
			char *fan = join(hw, "fan1_input");
			if (!fan) {
				err = -ENOMEM;
			} else if (exists(fan)) {
				free(d->fan);
				d->fan = fan;
			} else {
				free(fan);
			}
		}
		free(np);
		free(hw);
	}
	free(h);
	free(dir);
	return err;
}

/* gpu_metrics' header says whether the card is an APU (format 2). */
static int find_gpu_metrics(struct deck *d)
{
	char *p = join(d->card_dev, "gpu_metrics");
	if (!p)
		return -ENOMEM;
	if (!exists(p)) {
		free(p);
		return 0;
	}
	/* Format 1 (a discrete card) is not read: hwmon has its readings. */
	unsigned char head[4];
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, head, sizeof head) == (ssize_t)sizeof head && head[2] == 2) {
			d->apu = true;
			d->gpu_metrics = p;
			p = NULL;
		}
		close(fd);
	}
	free(p);
	return 0;
}

void deck_destroy(struct deck *d)
{
	if (!d)
		return;
	free(d->root);
	free(d->card);
	free(d->card_dev);
	free(d->hwmon);
	for (size_t i = 0; i < d->n_power; i++)
		free(d->power[i]);
	for (size_t i = 0; i < d->n_temps; i++)
		free(d->temps[i]);
	free(d->gpu_metrics);
	free(d->fan);
	free(d->power_cap);
	free(d->battery);
	free(d->ac);
	for (int i = 0; i < DECK_N_READINGS; i++)
		free(d->source[i]);
	free(d);
}

static int set_sources(struct deck *d)
{
	char **s = d->source;
	if (d->card_dev) {
		s[DECK_GPU_BUSY_PCT] = join(d->card_dev, "gpu_busy_percent");
		s[DECK_GPU_SCLK_MHZ] = join(d->card_dev, "pp_dpm_sclk");
		if (!s[DECK_GPU_BUSY_PCT] || !s[DECK_GPU_SCLK_MHZ])
			return -ENOMEM;
	}
	if (d->gpu_metrics) {
		static const int from_metrics[] = { DECK_SOCKET_POWER_W, DECK_CPU_POWER_W,
		                                    DECK_GPU_ACTIVITY_PCT, DECK_GPU_CLOCK_MHZ,
		                                    DECK_SOC_TEMP_C, DECK_THROTTLED_POWER,
		                                    DECK_THROTTLED_THERMAL };
		for (size_t i = 0; i < sizeof from_metrics / sizeof from_metrics[0]; i++)
			if (!(s[from_metrics[i]] = strdup(d->gpu_metrics)))
				return -ENOMEM;
		if (d->apu && !(s[DECK_GPU_POWER_W] = strdup(d->gpu_metrics)))
			return -ENOMEM;
	}
	/* hwmon power: the GPU's on a discrete card, the whole APU's on an APU. */
	if (d->n_power && !d->apu && !(s[DECK_GPU_POWER_W] = strdup(d->power[0])))
		return -ENOMEM;
	if (d->n_power && d->apu && !s[DECK_SOCKET_POWER_W] &&
	    !(s[DECK_SOCKET_POWER_W] = strdup(d->power[0])))
		return -ENOMEM;
	if (d->fan && !(s[DECK_FAN_RPM] = strdup(d->fan)))
		return -ENOMEM;
	if (d->power_cap && !(s[DECK_POWER_CAP_W] = strdup(d->power_cap)))
		return -ENOMEM;
	if (d->n_temps) {
		if (!(s[DECK_GPU_TEMP_C] = strdup(d->temps[d->temp_main])) ||
		    asprintf(&s[DECK_GPU_TEMP_MAX_C], "%s/temp*_input", d->hwmon) < 0)
			return -ENOMEM;
	}
	for (int i = DECK_SWAP_IN_PAGES; i <= DECK_SWAP_OUT_PAGES; i++)
		if (!(s[i] = deck_path(d, "proc/vmstat")))
			return -ENOMEM;
	for (int i = DECK_LOAD_1M; i <= DECK_LOAD_15M; i++)
		if (!(s[i] = deck_path(d, "proc/loadavg")))
			return -ENOMEM;
	if (d->battery) {
		s[DECK_BATTERY_PCT] = join(d->battery, "capacity");
		s[DECK_BATTERY_DISCHARGING] = join(d->battery, "status");
		if (!s[DECK_BATTERY_PCT] || !s[DECK_BATTERY_DISCHARGING])
			return -ENOMEM;
	}
	if (d->ac && !(s[DECK_AC_ONLINE] = join(d->ac, "online")))
		return -ENOMEM;
	return 0;
}

int deck_create(const struct deck_options *opts, char *errmsg, size_t errmsg_size,
                struct deck **out)
{
	const char *root = opts && opts->root && opts->root[0] ? opts->root : "/";
	struct stat st;
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		int err = stat(root, &st) != 0 ? -errno : -ENOTDIR;
		if (errmsg)
			snprintf(errmsg, errmsg_size, "cannot use '%s' as the system root: %s", root,
			         strerror(-err));
		return err;
	}
	struct deck *d = calloc(1, sizeof *d);
	if (!d || !(d->root = strdup(root))) {
		free(d);
		return -ENOMEM;
	}
	d->temp_main = -1;
	int err = find_card(d, opts ? opts->card : NULL, errmsg, errmsg_size);
	if (!err && d->card_dev)
		err = find_hwmon(d);
	if (!err && d->card_dev)
		err = find_gpu_metrics(d);
	if (!err)
		err = find_deck_fan(d);
	if (!err)
		err = find_power_supplies(d);
	if (!err)
		err = set_sources(d);
	if (err) {
		if (err == -ENOMEM && errmsg)
			snprintf(errmsg, errmsg_size, "out of memory");
		deck_destroy(d);
		return err;
	}
	*out = d;
	return 0;
}

const char *deck_reading_source(const struct deck *d, enum deck_reading_id id)
{
	return (unsigned)id < DECK_N_READINGS ? d->source[id] : NULL;
}

/* ---- sampling ---- */

/* Reads path into buf; on failure sets r->err and returns false. */
static bool read_source(struct deck *d, const char *path, char *buf, size_t size, size_t *len,
                        struct deck_reading *r)
{
	if (!path) {
		r->err = -ENOENT;
		return false;
	}
	int err = deck_read_file(path, buf, size, len);
	if (err) {
		/* sysfs answers an unsupported read with EINVAL/ENODATA/EOPNOTSUPP:
		 * the source is not there in any useful sense. */
		r->err = err == -EACCES || err == -EPERM ? -EACCES : err == -ENOENT ? -ENOENT : -EIO;
		if (r->err == -EIO)
			deck_fail(d, -EIO, "cannot read '%s': %s", path, strerror(-err));
		return false;
	}
	return true;
}

static void set_parsed(struct deck *d, struct deck_reading *r, int err, double v,
                       const struct deck_err *e)
{
	if (err == 0) {
		r->value = v;
		r->err = 0;
	} else {
		r->err = err == -ENOMEM ? -ENOMEM : -EINVAL;
		deck_fail(d, r->err, "%s", e->msg);
	}
}

static void sample_number(struct deck *d, const char *path, double scale, double lo, double hi,
                          struct deck_reading *r)
{
	char buf[128];
	size_t len;
	if (!read_source(d, path, buf, sizeof buf, &len, r))
		return;
	struct deck_err e = { "" };
	double v = 0;
	int err = deck_parse_number(path, buf, len, &v, &e);
	if (!err && (v < lo || v > hi)) {
		snprintf(e.msg, sizeof e.msg, "%s:1:1: %g is out of range (%g to %g)", path, v, lo, hi);
		err = -EINVAL;
	}
	set_parsed(d, r, err, v * scale, &e);
}

static void set_metric(struct deck_reading *r, double v)
{
	/* A field the firmware leaves unfilled is absent, not 0. */
	if (isnan(v)) {
		r->err = -ENOENT;
	} else {
		r->value = v;
		r->err = 0;
	}
}

/* One read of gpu_metrics fills the readings it is the source of. */
static void sample_gpu_metrics(struct deck *d, struct deck_sample *s)
{
	if (!d->gpu_metrics)
		return;
	unsigned char buf[4096];
	size_t len;
	struct deck_reading r = { 0 };
	static const int ids[] = { DECK_SOCKET_POWER_W, DECK_CPU_POWER_W, DECK_GPU_ACTIVITY_PCT,
	                           DECK_GPU_CLOCK_MHZ, DECK_SOC_TEMP_C, DECK_THROTTLED_POWER,
	                           DECK_THROTTLED_THERMAL };
	size_t n_ids = sizeof ids / sizeof ids[0];
	if (!read_source(d, d->gpu_metrics, (char *)buf, sizeof buf, &len, &r)) {
		for (size_t i = 0; i < n_ids; i++)
			s->r[ids[i]] = r;
		if (d->apu)
			s->r[DECK_GPU_POWER_W] = r;
		return;
	}
	struct deck_err e = { "" };
	struct deck_gpu_metrics m;
	int err = deck_parse_gpu_metrics(d->gpu_metrics, buf, len, &m, &e);
	if (err) {
		deck_fail(d, err, "%s", e.msg);
		for (size_t i = 0; i < n_ids; i++)
			s->r[ids[i]].err = err == -EOPNOTSUPP ? -ENOENT : -EINVAL;
		if (d->apu)
			s->r[DECK_GPU_POWER_W].err = err == -EOPNOTSUPP ? -ENOENT : -EINVAL;
		return;
	}
	set_metric(&s->r[DECK_SOCKET_POWER_W], m.socket_power_w);
	set_metric(&s->r[DECK_CPU_POWER_W], m.cpu_power_w);
	set_metric(&s->r[DECK_GPU_ACTIVITY_PCT], m.gfx_activity_pct);
	set_metric(&s->r[DECK_GPU_CLOCK_MHZ], m.gfxclk_mhz);
	set_metric(&s->r[DECK_SOC_TEMP_C], m.temp_soc_c);
	if (d->apu)
		set_metric(&s->r[DECK_GPU_POWER_W], m.gfx_power_w);
	if (m.has_indep_throttle) {
		set_metric(&s->r[DECK_THROTTLED_POWER],
		           (m.indep_throttle_status &
		            (DECK_THROTTLE_POWER_MASK | DECK_THROTTLE_CURRENT_MASK)) != 0);
		set_metric(&s->r[DECK_THROTTLED_THERMAL],
		           (m.indep_throttle_status & DECK_THROTTLE_THERMAL_MASK) != 0);
	}
}

int deck_sample(struct deck *d, struct deck_sample *out)
{
	if (!d || !out)
		return -EINVAL;
	struct deck_sample s = { 0 };
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s.t_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	for (int i = 0; i < DECK_N_READINGS; i++)
		s.r[i].err = -ENOENT;
	char buf[8192];
	size_t len;
	struct deck_err e = { "" };

	sample_number(d, d->source[DECK_GPU_BUSY_PCT], 1, 0, 100, &s.r[DECK_GPU_BUSY_PCT]);

	struct deck_reading *r = &s.r[DECK_GPU_SCLK_MHZ];
	if (read_source(d, d->source[DECK_GPU_SCLK_MHZ], buf, sizeof buf, &len, r)) {
		double mhz = 0;
		int err = deck_parse_sclk(d->source[DECK_GPU_SCLK_MHZ], buf, len, &mhz, &e);
		set_parsed(d, r, err, mhz, &e);
	}

	/* hwmon power1_average, else power1_input, in µW: the GPU's on a
	 * discrete card, the whole APU's on an APU. */
	sample_gpu_metrics(d, &s);
	struct deck_reading hw = { .err = -ENOENT };
	for (size_t i = 0; i < d->n_power; i++) {
		sample_number(d, d->power[i], 1e-6, 0, 1e9, &hw);
		if (hw.err == 0)
			break;
	}
	if (!d->apu)
		s.r[DECK_GPU_POWER_W] = hw;
	else if (s.r[DECK_SOCKET_POWER_W].err != 0 && (hw.err == 0 || !d->gpu_metrics))
		s.r[DECK_SOCKET_POWER_W] = hw;
	sample_number(d, d->fan, 1, 0, 100000, &s.r[DECK_FAN_RPM]);
	sample_number(d, d->power_cap, 1e-6, 0, 1e9, &s.r[DECK_POWER_CAP_W]);

	/* Temperatures in m°C. */
	r = &s.r[DECK_GPU_TEMP_MAX_C];
	for (size_t i = 0; i < d->n_temps; i++) {
		struct deck_reading t = { 0 };
		sample_number(d, d->temps[i], 1e-3, -273150, 1000000, &t);
		if ((int)i == d->temp_main)
			s.r[DECK_GPU_TEMP_C] = t;
		if (t.err == 0 && (r->err != 0 || t.value > r->value))
			*r = t;
		else if (t.err != 0 && r->err == -ENOENT)
			r->err = t.err;
	}

	if (read_source(d, d->source[DECK_SWAP_IN_PAGES], buf, sizeof buf, &len,
	                &s.r[DECK_SWAP_IN_PAGES])) {
		static const char *const keys[] = { "pswpin", "pswpout" };
		for (int i = 0; i < 2; i++) {
			uint64_t v = 0;
			int err = deck_parse_vmstat(d->source[DECK_SWAP_IN_PAGES], buf, len, keys[i], &v,
			                            &e);
			r = &s.r[DECK_SWAP_IN_PAGES + i];
			if (err == -ENOENT)
				r->err = -ENOENT; /* a kernel without swap accounting */
			else
				set_parsed(d, r, err, (double)v, &e);
		}
	} else {
		s.r[DECK_SWAP_OUT_PAGES] = s.r[DECK_SWAP_IN_PAGES];
	}

	if (read_source(d, d->source[DECK_LOAD_1M], buf, sizeof buf, &len, &s.r[DECK_LOAD_1M])) {
		double load[3] = { 0 };
		int err = deck_parse_loadavg(d->source[DECK_LOAD_1M], buf, len, load, &e);
		for (int i = 0; i < 3; i++)
			set_parsed(d, &s.r[DECK_LOAD_1M + i], err, load[i], &e);
	} else {
		s.r[DECK_LOAD_5M] = s.r[DECK_LOAD_15M] = s.r[DECK_LOAD_1M];
	}

	sample_number(d, d->source[DECK_BATTERY_PCT], 1, 0, 100, &s.r[DECK_BATTERY_PCT]);
	r = &s.r[DECK_BATTERY_DISCHARGING];
	if (read_source(d, d->source[DECK_BATTERY_DISCHARGING], buf, sizeof buf, &len, r)) {
		char status[64];
		int err = deck_parse_word(d->source[DECK_BATTERY_DISCHARGING], buf, len, status,
		                          sizeof status, &e);
		if (err == -ERANGE) {
			snprintf(e.msg, sizeof e.msg, "%s:1:1: status too long",
			         d->source[DECK_BATTERY_DISCHARGING]);
			err = -EINVAL;
		}
		set_parsed(d, r, err, err ? 0 : strcmp(status, "Discharging") == 0, &e);
	}
	sample_number(d, d->source[DECK_AC_ONLINE], 1, 0, 1, &s.r[DECK_AC_ONLINE]);
	*out = s;
	return 0;
}
