/* plan: everything about a parsed plan but the parsing itself: the embedded
 * default plan, the canonical writer (what `rxdeck run --print-plan` shows
 * and what a campaign keeps for `rxdeck resume`), deadlines and look-ups.
 * The INI parser is in plan-parse.c, the env profile parser (profiles/
 * NAME.env) in plan-env.c, the string lists in plan-strv.c. */
#include "plan.h"
#include "plan-private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the default plan -------------------------------------------------------- */

static const char default_plan[] =
	"# The embedded default plan of `rxdeck run`: the demo game on the GPU it\n"
	"# finds (lavapipe where there is none), the readback switches in four arms.\n"
	"[campaign]\n"
	"name = readback\n"
	"notes = The readback switches of librxvk on the demo game, four arms.\n"
	"route = routes/kokiri-moving.route\n"
	"profile = auto\n"
	"order = ABCDDCBA\n"
	"rounds = 1\n"
	"warmup = each\n"
	"watchdog = 10s\n"
	"inherit = RX_VK_DEVICE\n"
	"\n"
	"[build forest]\n"
	"binary = forest\n"
	"\n"
	"[arm A]\n"
	"label = no switch\n"
	"\n"
	"[arm B]\n"
	"label = late reads of the newest submission\n"
	"env = RX_VK_READBACK_LATE=newest\n"
	"\n"
	"[arm C]\n"
	"label = early readback\n"
	"env = RX_VK_READBACK_EARLY=1\n"
	"\n"
	"[arm D]\n"
	"label = early readback and late reads\n"
	"env = RX_VK_READBACK_LATE=newest\n"
	"      RX_VK_READBACK_EARLY=1\n";

const char *plan_default_text(void)
{
	return default_plan;
}

/* ---- freeing and look-ups ------------------------------------------------------ */

void plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->dir);
	free(p->text);
	free(p->name);
	free(p->notes);
	free(p->route);
	free(p->profile);
	free(p->collect);
	free(p->order);
	free(p->until);
	plan_strv_finish(&p->inherit);
	plan_strv_finish(&p->verdict.primary);
	free(p->verdict.min_effects);
	plan_strv_finish(&p->profile_env);
	plan_strv_finish(&p->inherited_env);
	for (size_t i = 0; i < p->n_builds; i++) {
		struct plan_build *b = &p->builds[i];
		free(b->name);
		plan_strv_finish(&b->argv);
		free(b->commit);
		free(b->workdir);
		free(b->pad_option);
		plan_strv_finish(&b->launcher);
	}
	free(p->builds);
	for (size_t i = 0; i < p->n_arms; i++) {
		struct plan_arm *a = &p->arms[i];
		free(a->label);
		free(a->build);
		plan_strv_finish(&a->env);
		plan_strv_finish(&a->args);
	}
	free(p->arms);
	free(p);
}

const char *plan_order(const struct plan *p)
{
	return p->order ? p->order : "";
}

/* Row r of a Williams design for n treatments (0-based): the first row is
 * 0, 1, n-1, 2, n-2, ...; row r adds r mod n; for odd n the rows n..2n-1
 * are the first n reversed. */
static int williams(int n, int r, int k)
{
	bool rev = n % 2 == 1 && (r / n) % 2 == 1;
	r %= n;
	if (rev)
		k = n - 1 - k;
	int base = k == 0 ? 0 : k % 2 == 1 ? (k + 1) / 2 : n - k / 2;
	return (base + r) % n;
}

/* The arms of order in the order of their first place. */
static size_t first_places(const char *order, char *arms)
{
	size_t n = 0;
	for (const char *q = order; *q; q++)
		if (!memchr(arms, *q, n))
			arms[n++] = *q;
	arms[n] = 0;
	return n;
}

int plan_round_order(const struct plan *p, int round, char *out, size_t size)
{
	const char *order = plan_order(p);
	size_t len = strlen(order);
	if (size < len + 1)
		return -ENOSPC;
	char arms[27];
	int n = (int)first_places(order, arms);
	int rows = n % 2 ? 2 * n : n;
	int r = ((round > 0 ? round : 1) - 1) % (rows ? rows : 1);
	/* relabel so that row 0 is the order as written: the arm in place k
	 * of row r is arms[inverse of row 0 at row r's treatment] */
	int inv0[26];
	for (int k = 0; k < n; k++)
		inv0[williams(n, 0, k)] = k;
	char map[128] = { 0 };
	for (int k = 0; k < n; k++)
		map[(unsigned char)arms[k]] = arms[inv0[williams(n, r, k)]];
	for (size_t i = 0; i < len; i++)
		out[i] = map[(unsigned char)order[i]];
	out[len] = 0;
	return 0;
}

int plan_warmup_arms(const struct plan *p, char *out, size_t size)
{
	char arms[27];
	size_t n = first_places(plan_order(p), arms);
	if (p->warmup == PLAN_WARMUP_NO)
		n = 0;
	else if (p->warmup == PLAN_WARMUP_FIRST)
		n = n ? 1 : 0;
	if (size < n + 1)
		return -ENOSPC;
	memcpy(out, arms, n);
	out[n] = 0;
	return 0;
}

int plan_rounds(const struct plan *p)
{
	return p->rounds > 0 ? p->rounds : 1;
}

int plan_max_rounds(const struct plan *p)
{
	if (p->max_rounds <= 0)
		return 0;
	return p->max_rounds > plan_rounds(p) ? p->max_rounds : plan_rounds(p);
}

const struct plan_arm *plan_arm_find(const struct plan *p, char letter)
{
	for (size_t i = 0; i < p->n_arms; i++)
		if (p->arms[i].letter == letter)
			return &p->arms[i];
	return NULL;
}

const struct plan_build *plan_build_find(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->n_builds; i++)
		if (strcmp(p->builds[i].name, name) == 0)
			return &p->builds[i];
	return NULL;
}

const struct plan_build *plan_arm_build(const struct plan *p, const struct plan_arm *a)
{
	if (a->build)
		return plan_build_find(p, a->build);
	return p->n_builds ? &p->builds[0] : NULL;
}

/* ---- deadlines ----------------------------------------------------------------- */

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

int plan_until_resolve(const char *until, int64_t now_unix_ms, int64_t *out_unix_ms)
{
	size_t n = strlen(until);
	int year = 0, mon = 0, day = 0, hour, min;
	const char *hm;
	if (n == 5) {
		hm = until;
	} else if (n == 16 && digits(until, 4) && until[4] == '-' && digits(until + 5, 2) &&
	           until[7] == '-' && digits(until + 8, 2) && (until[10] == ' ' || until[10] == 'T')) {
		year = atoi(until);
		mon = atoi(until + 5);
		day = atoi(until + 8);
		hm = until + 11;
		if (year < 1970 || year > 9999 || mon < 1 || mon > 12 || day < 1 || day > 31)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (!digits(hm, 2) || hm[2] != ':' || !digits(hm + 3, 2))
		return -EINVAL;
	hour = atoi(hm);
	min = atoi(hm + 3);
	if (hour > 23 || min > 59)
		return -EINVAL;

	time_t now = (time_t)(now_unix_ms / 1000);
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return -EINVAL;
	if (year) {
		tm.tm_year = year - 1900;
		tm.tm_mon = mon - 1;
		tm.tm_mday = day;
	}
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	struct tm want = tm;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	if (year && (tm.tm_mday != want.tm_mday || tm.tm_mon != want.tm_mon))
		return -EINVAL; /* 2024-02-30 */
	if (!year) {
		/* the next time the clock shows it: tomorrow when past today */
		for (int i = 0; i < 2 && (int64_t)t * 1000 <= now_unix_ms; i++) {
			want.tm_mday++;
			tm = want;
			tm.tm_isdst = -1;
			t = mktime(&tm);
			if (t == (time_t)-1)
				return -EINVAL;
		}
	}
	*out_unix_ms = (int64_t)t * 1000;
	return 0;
}

/* ---- the canonical writer ------------------------------------------------------- */

/* A value inih gives back as written: no surrounding white space, no
 * inline comment (';' after white space), one line, within the line limit. */
static bool writable(const char *v, size_t room)
{
	size_t n = strlen(v);
	if (n > room)
		return false;
	if (n && (isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1])))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '\n' || v[i] == '\r')
			return false;
		if (v[i] == ';' && (i == 0 || isspace((unsigned char)v[i - 1])))
			return false;
	}
	return true;
}

struct writer {
	FILE *f;
	int err;
};

static void put(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct writer *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(w->f, fmt, ap) < 0 && !w->err)
		w->err = -EIO;
	va_end(ap);
}

static void put_kv(struct writer *w, const char *key, const char *v)
{
	if (!writable(v, PLAN_MAX_LINE - strlen(key) - 3)) {
		w->err = -EINVAL;
		return;
	}
	put(w, "%s = %s\n", key, v);
}

static void put_duration(struct writer *w, const char *key, double s)
{
	put(w, "%s = %.17gs\n", key, s);
}

static void put_number(struct writer *w, const char *key, double v)
{
	if (v == 0)
		put(w, "%s = off\n", key);
	else
		put(w, "%s = %.17g\n", key, v);
}

/* A word written so plan_split_words() reads it back: specials escaped
 * with a backslash (never quotes, which could hide a ';' after a space). */
static int quote_word(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	char last = 0;
	if (!*s) {
		if (size < 3)
			return -EINVAL;
		memcpy(buf, "\"\"", 3);
		return 0;
	}
	for (; *s; s++) {
		/* every blank (the reader trims \f and \v at a line's ends too) */
		bool special = isspace((unsigned char)*s) || *s == '\'' || *s == '"' || *s == '\\' ||
		               *s == ';' || *s == '#';
		if (*s == '\n' || *s == '\r')
			return -EINVAL;
		if (n + 3 > size)
			return -EINVAL;
		if (special)
			buf[n++] = '\\';
		buf[n++] = *s;
		last = *s;
	}
	/* A line's trailing blanks are dropped when the plan is read back, so
	 * an escaped blank at the end is followed by an empty quoted string. */
	if (isspace((unsigned char)last)) {
		if (n + 3 > size)
			return -EINVAL;
		buf[n++] = '"';
		buf[n++] = '"';
	}
	buf[n] = 0;
	return 0;
}

static void put_words(struct writer *w, const char *key, const struct plan_strv *words)
{
	char buf[PLAN_MAX_LINE + 1];
	for (size_t i = 0; i < words->n; i++) {
		if (quote_word(words->v[i], buf, PLAN_MAX_LINE - strlen(key) - 3) < 0) {
			w->err = -EINVAL;
			return;
		}
		if (i == 0)
			put(w, "%s = %s\n", key, buf);
		else
			put(w, "    %s\n", buf);
	}
}

static void put_lines(struct writer *w, const char *key, const struct plan_strv *lines)
{
	for (size_t i = 0; i < lines->n; i++) {
		if (!writable(lines->v[i], PLAN_MAX_LINE - strlen(key) - 3)) {
			w->err = -EINVAL;
			return;
		}
		if (i == 0)
			put(w, "%s = %s\n", key, lines->v[i]);
		else
			put(w, "    %s\n", lines->v[i]);
	}
}

/* notes: the first line on the key, the others as continuation lines;
 * a line a reader would take for a comment cannot be written.  0 or
 * -ENOMEM (w->err says what else went wrong). */
static int write_notes(struct writer *w, const char *notes)
{
	const char *s = notes;
	bool first = true;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char *line = strndup(s, n);
		if (!line)
			return -ENOMEM;
		if (!writable(line, PLAN_MAX_LINE - 8) || (!first && (line[0] == '#' || line[0] == ';')))
			w->err = -EINVAL;
		else if (first)
			put(w, "notes = %s\n", line);
		else if (*line)
			put(w, "    %s\n", line);
		free(line);
		first = false;
		s += nl ? n + 1 : n;
	}
	return 0;
}

/* [campaign], every key.  0 or -ENOMEM. */
static int write_campaign(struct writer *w, const struct plan *p)
{
	put(w, "# rxdeck plan, every key written out (docs/running.md)\n[campaign]\n");
	if (p->name)
		put_kv(w, "name", p->name);
	if (p->notes && write_notes(w, p->notes) < 0)
		return -ENOMEM;
	if (p->route)
		put_kv(w, "route", p->route);
	if (p->profile)
		put_kv(w, "profile", p->profile);
	if (p->collect)
		put_kv(w, "collect", p->collect);
	put_kv(w, "order", plan_order(p));
	if (p->until)
		put_kv(w, "until", p->until);
	else
		put(w, "rounds = %d\n", plan_rounds(p));
	if (p->max_rounds > 0)
		put(w, "max_rounds = %d\n", p->max_rounds);
	put(w, "warmup = %s\n", p->warmup == PLAN_WARMUP_EACH    ? "each"
	                         : p->warmup == PLAN_WARMUP_FIRST ? "first"
	                                                          : "no");
	put_duration(w, "watchdog", p->watchdog_s);
	put_duration(w, "start_timeout", p->start_timeout_s);
	put_duration(w, "start_delay", p->start_delay_s);
	if (p->hard_limit_s > 0)
		put_duration(w, "hard_limit", p->hard_limit_s);
	else
		put(w, "hard_limit = auto\n");
	put_duration(w, "stop_timeout", p->stop_timeout_s);
	if (p->inherit.n)
		put_words(w, "inherit", &p->inherit);
	put(w, "pad = %s\n", p->pad == PLAN_PAD_UINPUT ? "uinput" : p->pad == PLAN_PAD_SOCKET ? "socket"
	                      : p->pad == PLAN_PAD_NONE ? "none" : "auto");
	put(w, "frames = %s\n", p->frames == PLAN_FRAMES_MANGOHUD ? "mangohud" : "rxvk");
	if (p->gpu_clock_mhz)
		put(w, "gpu_clock = %u\n", p->gpu_clock_mhz);
	if (p->tdp_w > 0)
		put_number(w, "tdp_w", p->tdp_w);
	put_number(w, "min_battery_pct", p->min_battery_pct);
	return 0;
}

/* [void] always, [verdict] when it says anything. */
static void write_rules(struct writer *w, const struct plan *p)
{
	put(w, "\n[void]\n");
	put_number(w, "swap_factor", p->void_rules.swap_factor);
	put_number(w, "swap_min_pages", p->void_rules.swap_min_pages);
	put_number(w, "shot_luma", p->void_rules.shot_luma);
	put_number(w, "clock_drop_pct", p->void_rules.clock_drop_pct);
	put_number(w, "temp_max_c", p->void_rules.temp_max_c);
	put_number(w, "min_coverage", p->void_rules.min_coverage_pct);

	if (!p->verdict.primary.n && !p->verdict.n_min_effects &&
	    p->verdict.time_terms == PLAN_TIME_TERMS_NARROWEST)
		return;
	put(w, "\n[verdict]\n");
	if (p->verdict.primary.n) {
		/* metric keys: plain words, on the one line the key takes */
		put(w, "primary =");
		for (size_t i = 0; i < p->verdict.primary.n; i++)
			put(w, " %s", p->verdict.primary.v[i]);
		put(w, "\n");
	}
	for (size_t i = 0; i < p->verdict.n_min_effects; i++)
		put(w, "%s = %g %%\n", p->verdict.min_effects[i].key, p->verdict.min_effects[i].pct);
	if (p->verdict.time_terms == PLAN_TIME_TERMS_DROP)
		put(w, "time_terms = drop-orthogonal\n");
}

/* [profile] and [inherited] when the plan has them, every [build] and
 * every [arm]. */
static void write_envs_builds_arms(struct writer *w, const struct plan *p)
{
	if (p->has_profile_env) {
		put(w, "\n[profile]\n");
		put_lines(w, "env", &p->profile_env);
	}
	if (p->has_inherited) {
		put(w, "\n[inherited]\n");
		put_lines(w, "env", &p->inherited_env);
	}
	for (size_t i = 0; i < p->n_builds; i++) {
		const struct plan_build *b = &p->builds[i];
		put(w, "\n[build %s]\n", b->name);
		if (b->launcher.n)
			put_words(w, "launcher", &b->launcher);
		put_words(w, "command", &b->argv);
		if (b->commit)
			put_kv(w, "commit", b->commit);
		if (b->workdir)
			put_kv(w, "workdir", b->workdir);
		put_kv(w, "pad_option", b->pad_option ? b->pad_option : "none");
	}
	for (size_t i = 0; i < p->n_arms; i++) {
		const struct plan_arm *a = &p->arms[i];
		put(w, "\n[arm %c]\n", a->letter);
		if (a->label)
			put_kv(w, "label", a->label);
		if (a->build)
			put_kv(w, "build", a->build);
		put_lines(w, "env", &a->env);
		put_words(w, "args", &a->args);
		if (a->gpu_clock_mhz)
			put(w, "gpu_clock = %u\n", a->gpu_clock_mhz);
		if (a->tdp_w > 0)
			put_number(w, "tdp_w", a->tdp_w);
	}
}

int plan_write(const struct plan *p, FILE *f)
{
	struct writer w = { .f = f };
	if (write_campaign(&w, p) < 0)
		return -ENOMEM;
	write_rules(&w, p);
	write_envs_builds_arms(&w, p);
	if (fflush(f) != 0 && !w.err)
		w.err = -EIO;
	return w.err;
}
