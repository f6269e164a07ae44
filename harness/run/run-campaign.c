/* run-campaign: a plan made into a campaign and played (see run.h).
 *
 * It owns freezing a plan (paths made absolute, the profile and inherited
 * environment copied in, the deadline made a date) into the campaign's
 * folder (runs/<campaign>/plan.ini) so a resume runs exactly what the start
 * planned; creating the campaign's rows in one transaction; the loop over
 * the runs not finished (folder, env, argv, run_game(), run_collect(), one
 * store per run), added rounds while the planned maximum and the deadline
 * allow and until the primary comparisons are decided, the campaign-wide
 * void rules at the end, and the progress lines.  What a run does inside is
 * run-game.c's; what its files mean is run-collect.c's.
 */
#include "run.h"
#include "run-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "deck/deck.h"
#include "route/route.h"
#include "rxdeck-commit.h"
#include "util/util.h"

extern char **environ;

struct run_campaign {
	struct db *db;
	struct plan *plan;           /* frozen */
	struct route *route;
	int64_t id;
	char *name;
	char *dir;
	struct run_lock *lock;       /* held from create/open to destroy */
	int64_t *build_ids;          /* per plan build */
	struct db_arm *arms;         /* from the database, letter order */
	size_t n_arms;
	struct run_options opt;
	FILE *progress;
	bool tty, color;
	double window_s[2];
	int64_t until_ms;
	int64_t play_start_ns;
	double run_s_sum;            /* measured durations of the runs played in this call */
	size_t run_s_n;
	size_t total_runs;
	/* the run playing now, for the progress line */
	const struct db_run *cur;
	double cur_route_s;
	struct run_device device;    /* inhibitor, clock/TDP per arm, AC */
	struct run_sleep sleep;      /* the host's suspends, per run */
};

/* ---- progress ----------------------------------------------------------------- */

void run_format_duration(double s, char *buf, size_t size)
{
	if (!isfinite(s) || s < 0)
		s = 0;
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, size, "%lds", t);
}

static double route_s(const struct run_campaign *c)
{
	return (double)route_duration_ms(c->route) / 1e3;
}

static double mean_run_s(const struct run_campaign *c)
{
	if (c->run_s_n)
		return c->run_s_sum / (double)c->run_s_n;
	return route_s(c) + 5.0; /* a guess until a run has been timed */
}

static void progress_line(struct run_campaign *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress_line(struct run_campaign *c, const char *fmt, ...)
{
	if (c->opt.quiet)
		return;
	if (c->tty)
		fputs("\r\033[K", c->progress);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(c->progress, fmt, ap);
	va_end(ap);
	fputc('\n', c->progress);
	fflush(c->progress);
}

static const char *run_label(const struct db_run *run, char *buf, size_t size)
{
	if (run->is_warmup)
		snprintf(buf, size, "warm-up");
	else
		snprintf(buf, size, "round %d", run->round);
	return buf;
}

static void status_line(struct run_campaign *c)
{
	if (c->opt.quiet || !c->tty || !c->cur)
		return;
	const struct db_run *r = c->cur;
	char el[32], eta[32], in[32];
	double elapsed = (double)(util_now_ns() - c->play_start_ns) / 1e9;
	size_t left = c->total_runs >= (size_t)r->position ? c->total_runs - (size_t)r->position : 0;
	double this_left = route_s(c) - (c->cur_route_s > 0 ? c->cur_route_s : 0);
	run_format_duration(elapsed, el, sizeof el);
	run_format_duration((double)left * mean_run_s(c) + (this_left > 0 ? this_left : 0), eta, sizeof eta);
	if (c->cur_route_s >= 0)
		snprintf(in, sizeof in, "%.0f/%.0f s", c->cur_route_s, route_s(c));
	else
		snprintf(in, sizeof in, "starting");
	char label[32];
	fprintf(c->progress, "\r\033[Krun %d of %zu  arm %c  %s  %s  elapsed %s  ETA %s",
	        r->position, c->total_runs, r->arm_letter, run_label(r, label, sizeof label), in, el, eta);
	fflush(c->progress);
}

static void on_tick(void *ctx, double route_now_s)
{
	struct run_campaign *c = ctx;
	c->cur_route_s = route_now_s;
	status_line(c);
}

/* ---- small helpers ---------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int write_file_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	FILE *f = fopen(tmp, "we");
	if (!f)
		return -errno;
	bool ok = fputs(text, f) >= 0;
	ok = fflush(f) == 0 && ok;
	ok = fsync(fileno(f)) == 0 && ok;
	if (fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, path) < 0) {
		int e = errno ? -errno : -EIO;
		unlink(tmp);
		return e;
	}
	return 0;
}

static char *plan_text(const struct plan *p, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = plan_write(p, f);
	fclose(f);
	if (*rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void local_date(int64_t unix_ms, const char *fmt, char *buf, size_t size)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, fmt, &tm);
}

/* ---- freezing a plan ------------------------------------------------------------- */

/* The route, found. */
static int freeze_route(struct plan *p, char *errmsg, size_t size)
{
	char *path = NULL, where[600];
	const char *route = p->route ? p->route : "routes/kokiri-moving.route";
	int rc = run_find_data("routes", route, ".route", p->dir, &path);
	if (rc < 0) {
		if (p->route_pos.line)
			snprintf(where, sizeof where, "%s:%d:%d: ", p->path, p->route_pos.line, p->route_pos.column);
		else
			where[0] = 0;
		return run_errf(errmsg, size, rc, "%scannot find route '%s': %s", where, route, strerror(-rc));
	}
	free(p->route);
	p->route = path;
	return 0;
}

/* The env profile ("auto": the Deck's or the PC's), frozen unless it was
 * already. */
static int freeze_profile(struct plan *p, struct deck *deck, char *errmsg, size_t size)
{
	if (p->has_profile_env)
		return 0;
	char *path = NULL, where[600];
	const char *name = p->profile ? p->profile : "auto";
	char chosen[64];
	if (strcmp(name, "auto") == 0) {
		struct deck_facts facts = { 0 };
		bool is_deck = deck && deck_facts_read(deck, &facts) == 0 && facts.device_model &&
		               strncmp(facts.device_model, "Steam Deck", 10) == 0;
		deck_facts_finish(&facts);
		snprintf(chosen, sizeof chosen, "%s", is_deck ? "deck" : "pc");
		name = chosen;
	}
	int rc = run_find_data("profiles", name, ".env", p->dir, &path);
	if (rc < 0) {
		if (p->profile_pos.line)
			snprintf(where, sizeof where, "%s:%d:%d: ", p->path, p->profile_pos.line,
			         p->profile_pos.column);
		else
			where[0] = 0;
		return run_errf(errmsg, size, rc, "%scannot find env profile '%s': %s", where, name,
		                strerror(-rc));
	}
	struct util_diag pe;
	rc = plan_env_load(path, NULL, &p->profile_env, &pe);
	free(path);
	if (rc < 0) {
		char msg[800];
		util_diag_format(&pe, msg, sizeof msg);
		return run_errf(errmsg, size, rc, "%s", msg);
	}
	p->has_profile_env = true;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(p->profile);
	p->profile = copy;
	return 0;
}

/* The inherited values, frozen unless they were already. */
static int freeze_inherited(struct plan *p, const struct run_options *opt)
{
	if (p->has_inherited)
		return 0;
	char *const *env = opt->environ ? opt->environ : environ;
	for (size_t i = 0; i < p->inherit.n; i++) {
		size_t k = strlen(p->inherit.v[i]);
		for (char *const *e = env; e && *e; e++) {
			if (strncmp(*e, p->inherit.v[i], k) == 0 && (*e)[k] == '=') {
				int rc = plan_strv_setenv(&p->inherited_env, *e);
				if (rc < 0)
					return rc;
			}
		}
	}
	p->has_inherited = true;
	return 0;
}

/* The collector profile, found and checked. */
static int freeze_collector(struct plan *p, char *errmsg, size_t size)
{
	const char *collect = p->collect ? p->collect : "rxvk";
	if (strcmp(collect, "none") == 0)
		return 0;
	char *path = NULL;
	int rc = run_find_data("profiles", collect, ".collect", p->dir, &path);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "cannot find collector profile '%s': %s", collect,
		                strerror(-rc));
	struct collect_profile *cp;
	struct collect_error ce;
	rc = collect_profile_load(path, &cp, &ce);
	if (rc < 0) {
		free(path);
		return run_errf(errmsg, size, rc, "%s", ce.msg);
	}
	collect_profile_destroy(cp);
	free(p->collect);
	p->collect = path;
	return 0;
}

/* A build's program and working folder, found. */
static int freeze_build(struct plan *p, struct plan_build *b, char *errmsg, size_t size)
{
	char *path = NULL, msg[512];
	int rc = run_find_program(b->argv.v[0], p->dir, &path, msg, sizeof msg);
	if (rc < 0) {
		if (b->argv_pos.line)
			return run_errf(errmsg, size, rc, "%s:%d:%d: build '%s': %s", p->path,
			                b->argv_pos.line, b->argv_pos.column, b->name, msg);
		return run_errf(errmsg, size, rc, "build '%s': %s", b->name, msg);
	}
	free(b->argv.v[0]);
	b->argv.v[0] = path;
	if (b->launcher.n) {
		rc = run_find_program(b->launcher.v[0], p->dir, &path, msg, sizeof msg);
		if (rc < 0)
			return run_errf(errmsg, size, rc, "%s:%d:%d: build '%s': launcher: %s", p->path,
			                b->launcher_pos.line, b->launcher_pos.column, b->name, msg);
		free(b->launcher.v[0]);
		b->launcher.v[0] = path;
	}
	if (!b->workdir)
		return 0;
	char *wd = util_path_join(p->dir, b->workdir);
	char *abs = wd ? util_path_absolute(wd) : NULL;
	free(wd);
	if (!abs)
		return -ENOMEM;
	struct stat st;
	if (stat(abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = run_errf(errmsg, size, -ENOTDIR, "build '%s': working folder '%s' is not a folder",
		              b->name, abs);
		free(abs);
		return rc;
	}
	free(b->workdir);
	b->workdir = abs;
	return 0;
}

/* The deadline as a date; one already past is refused before any round
 * is planned. */
static int freeze_until(struct plan *p, char *errmsg, size_t size)
{
	if (!p->until)
		return 0;
	int64_t t, now = util_unix_ms();
	if (plan_until_resolve(p->until, now, &t) < 0)
		return run_errf(errmsg, size, -EINVAL, "bad deadline '%s'", p->until);
	char when[32];
	if (t <= now) {
		local_date(now, "%Y-%m-%d %H:%M", when, sizeof when);
		return run_errf(errmsg, size, -EINVAL, "until '%s' is in the past (it is %s now): "
		                "give a later date, or a time of day such as 07:00", p->until, when);
	}
	local_date(t, "%Y-%m-%d %H:%M", when, sizeof when);
	char *copy = strdup(when);
	if (!copy)
		return -ENOMEM;
	free(p->until);
	p->until = copy;
	return 0;
}

/* A deadline without max_rounds: the planned maximum of rounds, which the
 * sequential rule spends its alpha over, is the most rounds that could
 * fit before the deadline (every run at least the route's length), fixed
 * now so a resume decides at the same levels. */
static void freeze_max_rounds(struct run_campaign *c)
{
	struct plan *p = c->plan;
	int64_t until;
	if (!p->until || p->max_rounds > 0 || plan_until_resolve(p->until, 0, &until) < 0)
		return;
	double round_s = route_s(c) * (double)strlen(plan_order(p));
	double fit = round_s > 0 ? floor((double)(until - util_unix_ms()) / 1e3 / round_s) : 0;
	if (!(fit >= 1))
		fit = 1;
	if (fit > PLAN_MAX_ROUNDS)
		fit = PLAN_MAX_ROUNDS;
	p->max_rounds = (int)fit;
}

/* Finds everything the plan names and writes the found form into p. */
static int freeze(struct plan *p, const struct run_options *opt, struct deck *deck, char *errmsg,
                  size_t size)
{
	int rc;
	if ((rc = freeze_route(p, errmsg, size)) < 0 || (rc = freeze_profile(p, deck, errmsg, size)) < 0 ||
	    (rc = freeze_inherited(p, opt)) < 0 || (rc = freeze_collector(p, errmsg, size)) < 0)
		return rc;
	for (size_t i = 0; i < p->n_builds; i++)
		if ((rc = freeze_build(p, &p->builds[i], errmsg, size)) < 0)
			return rc;
	return freeze_until(p, errmsg, size);
}

/* A deep copy of a plan through its canonical form. */
static int clone_plan(const struct plan *p, struct plan **out, char *errmsg, size_t size)
{
	int rc;
	char *text = plan_text(p, &rc);
	if (!text)
		return rc == -EINVAL ? run_errf(errmsg, size, rc,
		                                "the plan holds a value that cannot be written back "
		                                "(a ';' after a space, or space at an end)")
		                     : rc;
	struct plan_parse_options o = { .dir = p->dir };
	struct util_diag e;
	rc = plan_parse(p->path, text, strlen(text), &o, out, &e);
	free(text);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "cannot copy the plan: %s", e.message);
	/* keep the text as given, not the canonical form */
	char *given = strdup(p->text);
	if (!given) {
		plan_free(*out);
		return -ENOMEM;
	}
	free((*out)->text);
	(*out)->text = given;
	return 0;
}

/* ---- planning runs ---------------------------------------------------------------- */

static int64_t arm_id(const struct run_campaign *c, char letter)
{
	for (size_t i = 0; i < c->n_arms; i++)
		if (c->arms[i].letter == letter)
			return c->arms[i].id;
	return 0;
}

/* Plans rounds first_round..last_round, each in its counterbalanced order
 * (plan_round_order()), and the warm-up runs when asked, after the last
 * position. */
static int plan_rounds_db(struct run_campaign *c, int first_round, int last_round, bool warmup,
                          int next_position)
{
	size_t per = strlen(plan_order(c->plan));
	char order[PLAN_MAX_LINE], warm[32] = "";
	if (warmup && plan_warmup_arms(c->plan, warm, sizeof warm) < 0)
		return -EINVAL;
	size_t n_warm = strlen(warm);
	size_t n = (size_t)(last_round - first_round + 1) * per + n_warm;
	struct db_run *runs = calloc(n, sizeof *runs);
	if (!runs)
		return -ENOMEM;
	size_t k = 0;
	int pos = next_position;
	for (size_t i = 0; i < n_warm; i++)
		runs[k++] = (struct db_run){ .arm_id = arm_id(c, warm[i]), .round = 0, .position = pos++,
		                             .is_warmup = true };
	for (int r = first_round; r <= last_round; r++) {
		if (plan_round_order(c->plan, r, order, sizeof order) < 0) {
			free(runs);
			return -EINVAL;
		}
		for (size_t i = 0; i < per; i++)
			runs[k++] = (struct db_run){ .arm_id = arm_id(c, order[i]), .round = r, .position = pos++ };
	}
	int rc = db_run_plan(c->db, c->id, runs, k);
	free(runs);
	return rc;
}

/* ---- creating and opening ---------------------------------------------------------- */

void run_campaign_destroy(struct run_campaign *c)
{
	if (!c)
		return;
	run_lock_release(c->lock);
	plan_free(c->plan);
	route_free(c->route);
	free(c->name);
	free(c->dir);
	free(c->build_ids);
	free(c->arms);
	free(c);
}

int64_t run_campaign_id(const struct run_campaign *c)
{
	return c->id;
}

const char *run_campaign_name(const struct run_campaign *c)
{
	return c->name;
}

const char *run_campaign_dir(const struct run_campaign *c)
{
	return c->dir;
}

const struct plan *run_campaign_plan(const struct run_campaign *c)
{
	return c->plan;
}

static int campaign_new(struct db *db, const struct run_options *opt, struct run_campaign **out)
{
	struct run_campaign *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->db = db;
	if (opt)
		c->opt = *opt;
	c->progress = c->opt.progress ? c->opt.progress : stderr;
	c->tty = isatty(fileno(c->progress));
	const char *nc = getenv("NO_COLOR");
	c->color = c->tty && !(nc && *nc);
	*out = c;
	return 0;
}

static int load_route(struct run_campaign *c, char *errmsg, size_t size)
{
	struct util_diag re;
	int rc = route_load(c->plan->route, &c->route, &re);
	if (rc < 0) {
		char msg[800];
		util_diag_format(&re, msg, sizeof msg);
		return run_errf(errmsg, size, rc, "%s", msg);
	}
	int64_t a, b;
	route_window_ms(c->route, &a, &b);
	c->window_s[0] = (double)a / 1e3;
	c->window_s[1] = (double)b / 1e3;
	return run_route_fits_pad(c->plan, c->route, errmsg, size);
}

int run_route_fits_pad(const struct plan *p, const struct route *route, char *errmsg, size_t size)
{
	if (p->pad != PLAN_PAD_NONE)
		return 0;
	size_t n;
	const struct route_event *ev = route_events(route, &n);
	const struct route_event *first = NULL;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type != ROUTE_EVENT_KEY && ev[i].type != ROUTE_EVENT_ABS)
			continue;
		/* the first in its file, where a person reads it */
		if (!first || (ev[i].file == first->file && ev[i].line < first->line))
			first = &ev[i];
	}
	if (!first)
		return 0;
	return run_errf(errmsg, size, -EINVAL,
	                "%s:%d: an input action, but the plan's pad is none (its programs take no "
	                "input): keep the route's shot and mark lines only, or give the plan a pad",
	                first->file ? first->file : p->route, first->line);
}

static char *data_dir(const struct run_options *opt, int *rc)
{
	char *d = NULL;
	if (opt && opt->data_dir) {
		d = strdup(opt->data_dir);
		*rc = d ? 0 : -ENOMEM;
	} else {
		*rc = run_data_dir(&d);
	}
	return d;
}

static int campaign_name(struct db *db, const struct plan *p, const struct run_options *opt,
                         char **out, char *errmsg, size_t size)
{
	struct db_campaign *found = NULL;
	if (opt && opt->name) {
		if (!plan_name_valid(opt->name, PLAN_MAX_NAME))
			return run_errf(errmsg, size, -EINVAL,
			                "bad campaign name '%s': use letters, digits, '.', '_' and '-'", opt->name);
		if (db_campaign_find(db, opt->name, &found) == 0) {
			free(found);
			return run_errf(errmsg, size, -EEXIST, "campaign '%s' already exists in '%s'", opt->name,
			                db_path(db));
		}
		*out = strdup(opt->name);
		return *out ? 0 : -ENOMEM;
	}
	char base[PLAN_MAX_NAME + 1];
	if (p->name) {
		snprintf(base, sizeof base, "%s", p->name);
	} else {
		const char *slash = strrchr(p->path, '/');
		snprintf(base, sizeof base, "%s", slash ? slash + 1 : p->path);
		char *dot = strrchr(base, '.');
		if (dot && dot != base)
			*dot = 0;
		if (!plan_name_valid(base, PLAN_MAX_NAME))
			snprintf(base, sizeof base, "campaign");
	}
	char date[32];
	local_date(util_unix_ms(), "%Y%m%d-%H%M", date, sizeof date);
	char name[PLAN_MAX_NAME + 64];
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(name, sizeof name, "%s-%s", base, date);
		else
			snprintf(name, sizeof name, "%s-%s-%d", base, date, k);
		if (db_campaign_find(db, name, &found) < 0) {
			*out = strdup(name);
			return *out ? 0 : -ENOMEM;
		}
		free(found);
		found = NULL;
	}
	return run_errf(errmsg, size, -EEXIST, "no free campaign name for '%s'", base);
}

static char *join_lines(const struct plan_strv *l)
{
	size_t n = 1;
	for (size_t i = 0; i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	s[0] = 0;
	for (size_t i = 0; i < l->n; i++) {
		strcat(s, l->v[i]);
		if (i + 1 < l->n)
			strcat(s, "\n");
	}
	return s;
}

/* The demo game built beside this rxdeck comes from rxdeck's own commit:
 * a build with no commit label that is our build tree's forest gets it. */
static const char *own_build_commit(const char *binary)
{
	char self[PATH_MAX], bin[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0 || !realpath(binary, bin))
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/'); /* BUILD/harness/rxdeck */
	if (slash)
		*slash = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	size_t len = strlen(self);
	const char *base = strrchr(bin, '/');
	if (strncmp(bin, self, len) != 0 || bin[len] != '/' || !base || strcmp(base, "/rxdeck-forest") != 0)
		return NULL;
	return strcmp(RXDECK_COMMIT, "unknown") ? RXDECK_COMMIT : NULL;
}

/* The campaign's row: the plan as this campaign runs it (command-line
 * overrides applied), the host's facts and the route. */
static int add_campaign(struct run_campaign *c, const char *route_text, const char *frozen,
                        const struct deck_facts *facts)
{
	struct plan *p = c->plan;
	char os[256] = "";
	if (facts->os)
		snprintf(os, sizeof os, "%s%s%s%s", facts->os, facts->os_build ? " (" : "",
		         facts->os_build ? facts->os_build : "", facts->os_build ? ")" : "");
	struct db_campaign dc = {
		.name = c->name,
		.plan_text = frozen ? frozen : p->text,
		.host = facts->host,
		.device_model = facts->device_model,
		.os = os[0] ? os : NULL,
		.kernel = facts->kernel,
		.cpu = facts->cpu,
		.memory_B = facts->memory_B > 0 ? facts->memory_B : 0,
		.mesa = facts->mesa,
		.notes = p->notes,
		.route_name = route_name(c->route),
		.route_text = route_text,
		.window_start_s = c->window_s[0],
		.window_end_s = c->window_s[1],
		.order = plan_order(p),
		.rounds = plan_rounds(p),
		.warmup = p->warmup != PLAN_WARMUP_NO,
	};
	return db_campaign_create(c->db, &dc, &c->id);
}

/* A row per build: its program's path, commit and SHA-256. */
static int add_builds(struct run_campaign *c)
{
	struct plan *p = c->plan;
	c->build_ids = calloc(p->n_builds, sizeof *c->build_ids);
	if (!c->build_ids)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_builds; i++) {
		char sha[65];
		bool have_sha = run_sha256_file(p->builds[i].argv.v[0], sha) == 0;
		struct db_build b = {
			.campaign_id = c->id,
			.label = p->builds[i].name,
			.commit = p->builds[i].commit ? p->builds[i].commit
			                              : own_build_commit(p->builds[i].argv.v[0]),
			.path = p->builds[i].argv.v[0],
			.sha256 = have_sha ? sha : NULL,
		};
		int rc = db_build_add(c->db, &b, &c->build_ids[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A row per arm, then the arms read back in letter order. */
static int add_arms(struct run_campaign *c)
{
	struct plan *p = c->plan;
	int rc;
	for (size_t i = 0; i < p->n_arms; i++) {
		const struct plan_arm *a = &p->arms[i];
		const struct plan_build *b = plan_arm_build(p, a);
		char *env = join_lines(&a->env);
		if (!env)
			return -ENOMEM;
		struct db_arm da = {
			.campaign_id = c->id,
			.letter = a->letter,
			.label = a->label,
			.env = env,
			.build_id = c->build_ids[b - p->builds],
		};
		int64_t id;
		rc = db_arm_add(c->db, &da, &id);
		free(env);
		if (rc < 0)
			return rc;
	}
	size_t n_arms;
	if ((rc = db_arm_list(c->db, c->id, &c->arms, &n_arms)) < 0)
		return rc;
	c->n_arms = n_arms;
	return 0;
}

/* The route's marks: shots, marks and the window's edges. */
static int add_route_marks(struct run_campaign *c)
{
	size_t n_shots, n_marks;
	const struct route_point *shots = route_shots(c->route, &n_shots);
	const struct route_point *marks = route_marks(c->route, &n_marks);
	struct db_route_mark *rm = calloc(n_shots + n_marks + 2, sizeof *rm);
	if (!rm)
		return -ENOMEM;
	size_t k = 0;
	rm[k++] = (struct db_route_mark){ c->window_s[0], "window-start", "window" };
	for (size_t i = 0; i < n_shots; i++)
		rm[k++] = (struct db_route_mark){ (double)shots[i].t_ms / 1e3, shots[i].name, "shot" };
	for (size_t i = 0; i < n_marks; i++)
		rm[k++] = (struct db_route_mark){ (double)marks[i].t_ms / 1e3, marks[i].name, "mark" };
	rm[k++] = (struct db_route_mark){ c->window_s[1], "window-end", "window" };
	int rc = db_route_marks_store(c->db, c->id, rm, k);
	free(rm);
	return rc;
}

/* The campaign's rows, in one transaction: the campaign, its builds, arms,
 * route marks and first rounds. */
static int create_rows(struct run_campaign *c, const char *route_text, char *errmsg, size_t size)
{
	struct plan *p = c->plan;
	struct deck *deck = NULL;
	struct deck_facts facts = { 0 };
	char msg[256];
	if (deck_create(&(struct deck_options){ .root = c->opt.deck_root }, msg, sizeof msg,
	                &deck) == 0)
		deck_facts_read(deck, &facts);
	int prc;
	char *frozen = plan_text(p, &prc);
	int rc = db_begin(c->db);
	if (rc < 0)
		goto out;
	if ((rc = add_campaign(c, route_text, frozen, &facts)) < 0 || (rc = add_builds(c)) < 0 ||
	    (rc = add_arms(c)) < 0 || (rc = add_route_marks(c)) < 0 ||
	    (rc = plan_rounds_db(c, 1, plan_rounds(p), p->warmup != PLAN_WARMUP_NO, 1)) < 0)
		goto rollback;
	rc = db_commit(c->db);
	if (rc == 0)
		goto out;
rollback:
	run_errf(errmsg, size, rc, "cannot create campaign '%s': %s", c->name,
	         rc == -ENOMEM ? "out of memory" : db_errmsg(c->db));
	db_rollback(c->db);
out:
	free(frozen);
	deck_facts_finish(&facts);
	deck_destroy(deck);
	return rc;
}

int run_campaign_create(struct db *db, const struct plan *plan, const struct run_options *opt,
                        struct run_campaign **out, char *errmsg, size_t size)
{
	struct run_campaign *c;
	int rc = campaign_new(db, opt, &c);
	if (rc < 0)
		return rc;
	char *route_text = NULL, *frozen = NULL, *ddir = NULL, *plan_path = NULL;
	bool made_dir = false;
	struct deck *deck = NULL;
	char msg[256];
	deck_create(&(struct deck_options){ .root = opt ? opt->deck_root : NULL }, msg, sizeof msg,
	            &deck);
	if ((rc = clone_plan(plan, &c->plan, errmsg, size)) < 0)
		goto fail;
	if ((rc = freeze(c->plan, &c->opt, deck, errmsg, size)) < 0)
		goto fail;
	if ((rc = load_route(c, errmsg, size)) < 0)
		goto fail;
	freeze_max_rounds(c);
	size_t len;
	struct collect_error ce;
	if ((rc = collect_read_file("route", c->plan->route, &route_text, &len, &ce)) < 0) {
		run_errf(errmsg, size, rc, "%s", ce.msg);
		goto fail;
	}
	if ((rc = run_pad_choose(c->plan, NULL, 0, errmsg, size)) < 0)
		goto fail;
	if (!(frozen = plan_text(c->plan, &rc))) {
		if (rc == -EINVAL)
			run_errf(errmsg, size, rc, "an inherited or profile value cannot be kept in the plan "
			                           "(a ';' after a space, or space at an end)");
		goto fail;
	}
	if ((rc = campaign_name(db, c->plan, opt, &c->name, errmsg, size)) < 0)
		goto fail;
	/* before anything is written: a deadline that not one round fits */
	if ((rc = run_deadline_check(c->plan, c->name, route_s(c), util_unix_ms(), errmsg, size)) < 0)
		goto fail;
	if (!(ddir = data_dir(opt, &rc))) {
		run_errf(errmsg, size, rc, "no data folder: set XDG_DATA_HOME or HOME");
		goto fail;
	}
	char sub[PATH_MAX];
	snprintf(sub, sizeof sub, "runs/%s", c->name);
	if (!(c->dir = util_path_join(ddir, sub)) || !(plan_path = util_path_join(c->dir, "plan.ini"))) {
		rc = -ENOMEM;
		goto fail;
	}
	struct stat st;
	if (stat(c->dir, &st) == 0) {
		rc = run_errf(errmsg, size, -EEXIST, "folder '%s' already exists: a campaign of that name "
		              "ran with another database", c->dir);
		goto fail;
	}
	if ((rc = util_mkdir_p(c->dir, 0700)) < 0) {
		run_errf(errmsg, size, rc, "cannot make folder '%s': %s", c->dir, strerror(-rc));
		goto fail;
	}
	made_dir = true;
	if ((rc = run_lock_take(c->dir, c->name, &c->lock, errmsg, size)) < 0)
		goto fail;
	if ((rc = write_file_atomic(plan_path, frozen)) < 0) {
		run_errf(errmsg, size, rc, "cannot write '%s': %s", plan_path, strerror(-rc));
		goto fail;
	}
	if ((rc = create_rows(c, route_text, errmsg, size)) < 0)
		goto fail;
	free(route_text);
	free(frozen);
	free(ddir);
	free(plan_path);
	deck_destroy(deck);
	*out = c;
	return 0;
fail:
	if (made_dir) {
		run_lock_release(c->lock);
		c->lock = NULL;
		nftw(c->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	free(route_text);
	free(frozen);
	free(ddir);
	free(plan_path);
	deck_destroy(deck);
	run_campaign_destroy(c);
	return rc;
}

/* The campaign named (a name, or an id), or the one waiting to be
 * resumed when none is named. */
static int find_campaign(struct db *db, const char *name_or_id, struct db_campaign **dc,
                         char *errmsg, size_t size)
{
	int rc;
	if (!name_or_id || !*name_or_id) {
		struct db_campaign *list;
		size_t n;
		if ((rc = db_campaign_list(db, &list, &n)) < 0)
			return run_errf(errmsg, size, rc, "%s", db_errmsg(db));
		int64_t id = 0;
		for (size_t i = 0; i < n && !id; i++)
			if (list[i].status == DB_CAMPAIGN_OPEN)
				id = list[i].id;
		free(list);
		if (!id)
			return run_errf(errmsg, size, -ENOENT, "no campaign in '%s' is waiting to be resumed",
			                db_path(db));
		rc = db_campaign_get(db, id, dc);
	} else {
		rc = db_campaign_find(db, name_or_id, dc);
		char *end;
		long long id = strtoll(name_or_id, &end, 10);
		if (rc == -ENOENT && *end == 0 && id > 0)
			rc = db_campaign_get(db, id, dc);
		if (rc == -ENOENT)
			return run_errf(errmsg, size, rc, "no campaign '%s' in '%s'", name_or_id, db_path(db));
	}
	if (rc < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(db));
	return 0;
}

/* The frozen plan from the campaign's folder, and its route. */
static int load_frozen(struct run_campaign *c, const char *plan_path, char *errmsg, size_t size)
{
	struct util_diag pe;
	int rc = plan_load(plan_path, NULL, &c->plan, &pe);
	if (rc < 0) {
		char msg[800];
		if (pe.line && util_diag_format(&pe, msg, sizeof msg) >= 0)
			run_errf(errmsg, size, rc, "%s", msg);
		else
			run_errf(errmsg, size, rc, "campaign '%s': %s (the campaign's folder keeps the plan "
			         "it runs)", c->name, pe.message);
		return rc;
	}
	return load_route(c, errmsg, size);
}

/* The builds' and arms' rows, matched with the plan's. */
static int read_builds_arms(struct run_campaign *c, const char *plan_path, char *errmsg,
                            size_t size)
{
	struct db_build *builds;
	size_t n_builds;
	int rc;
	if ((rc = db_build_list(c->db, c->id, &builds, &n_builds)) < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	c->build_ids = calloc(c->plan->n_builds ? c->plan->n_builds : 1, sizeof *c->build_ids);
	for (size_t i = 0; c->build_ids && i < c->plan->n_builds; i++)
		for (size_t k = 0; k < n_builds; k++)
			if (strcmp(builds[k].label, c->plan->builds[i].name) == 0)
				c->build_ids[i] = builds[k].id;
	free(builds);
	if (!c->build_ids)
		return -ENOMEM;
	if ((rc = db_arm_list(c->db, c->id, &c->arms, &c->n_arms)) < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	for (size_t i = 0; i < c->n_arms; i++) {
		if (!plan_arm_find(c->plan, c->arms[i].letter))
			return run_errf(errmsg, size, -EINVAL, "campaign '%s': arm %c is in the database but "
			                "not in '%s'", c->name, c->arms[i].letter, plan_path);
	}
	return 0;
}

/* A resume meets the deadline the campaign froze at its start as `rxdeck
 * run` meets its own: refused when not one round (with the warm-up runs
 * still to play) fits before it, before anything is written. */
static int resume_deadline(struct run_campaign *c, char *errmsg, size_t size)
{
	if (!c->plan->until)
		return 0;
	struct db_run *runs;
	size_t n, warm = 0;
	int rc = db_run_list(c->db, c->id, &runs, &n);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	for (size_t i = 0; i < n; i++)
		warm += runs[i].is_warmup && runs[i].status != DB_RUN_DONE &&
		        runs[i].status != DB_RUN_VOID;
	free(runs);
	return run_deadline_check_resume(c->plan, c->name, route_s(c), warm, util_unix_ms(), errmsg,
	                                 size);
}

/* A resume plays what the campaign started with, or says what changed:
 * refused unless the user accepts, then recorded in the campaign's notes. */
static int accept_changes(struct run_campaign *c, struct db_campaign *dc, char *errmsg,
                          size_t size)
{
	struct db_build *builds;
	size_t n_builds;
	int rc = db_build_list(c->db, c->id, &builds, &n_builds);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	char changes[2048];
	int n = run_campaign_changes(c->plan->route, dc->route_text, c->plan, builds, n_builds,
	                             changes, sizeof changes);
	free(builds);
	if (n <= 0)
		return 0;
	if (!c->opt.accept_changes)
		return run_errf(errmsg, size, -ESTALE, "campaign '%s' changed since it started "
		                "(--accept-changes goes on with the changes and records them):\n%s",
		                c->name, changes);
	char when[32];
	local_date(util_unix_ms(), "%Y-%m-%d %H:%M", when, sizeof when);
	size_t len = (dc->notes ? strlen(dc->notes) : 0) + strlen(changes) + 128;
	char *notes = malloc(len);
	if (!notes)
		return -ENOMEM;
	snprintf(notes, len, "%s%sresumed %s with changes accepted:\n%s", dc->notes ? dc->notes : "",
	         dc->notes && dc->notes[0] ? "\n" : "", when, changes);
	const char *old = dc->notes;
	dc->notes = notes;
	rc = db_campaign_update(c->db, dc);
	dc->notes = old;
	free(notes);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "cannot record the accepted changes of campaign '%s': %s",
		                c->name, db_errmsg(c->db));
	if (!c->opt.quiet)
		fprintf(c->progress, "campaign '%s' changed since it started; going on "
		        "(--accept-changes), recorded in its notes:\n%s\n", c->name, changes);
	return 0;
}

int run_campaign_open(struct db *db, const char *name_or_id, const struct run_options *opt,
                      struct run_campaign **out, char *errmsg, size_t size)
{
	struct db_campaign *dc = NULL;
	int rc = find_campaign(db, name_or_id, &dc, errmsg, size);
	if (rc < 0)
		return rc;
	struct run_campaign *c;
	if ((rc = campaign_new(db, opt, &c)) < 0) {
		free(dc);
		return rc;
	}
	c->id = dc->id;
	c->name = strdup(dc->name);
	char *ddir = NULL, *plan_path = NULL;
	char sub[PATH_MAX];
	if (!c->name) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!(ddir = data_dir(opt, &rc))) {
		run_errf(errmsg, size, rc, "no data folder: set XDG_DATA_HOME or HOME");
		goto fail;
	}
	snprintf(sub, sizeof sub, "runs/%s", c->name);
	if (!(c->dir = util_path_join(ddir, sub)) || !(plan_path = util_path_join(c->dir, "plan.ini"))) {
		rc = -ENOMEM;
		goto fail;
	}
	/* before anything is read: a second harness stops here, naming the first */
	struct stat st;
	if (stat(c->dir, &st) == 0 && (rc = run_lock_take(c->dir, c->name, &c->lock, errmsg, size)) < 0)
		goto fail;
	if ((rc = load_frozen(c, plan_path, errmsg, size)) < 0 ||
	    (rc = read_builds_arms(c, plan_path, errmsg, size)) < 0 ||
	    (rc = resume_deadline(c, errmsg, size)) < 0 ||
	    (rc = accept_changes(c, dc, errmsg, size)) < 0)
		goto fail;
	struct db_run *next;
	if (db_run_next(db, c->id, &next) == 0) {
		free(next);
	} else if (!c->plan->until && plan_max_rounds(c->plan) <= 0) {
		rc = run_errf(errmsg, size, -EALREADY, "campaign '%s' has no run left to play", c->name);
		goto fail;
	}
	free(dc);
	free(ddir);
	free(plan_path);
	*out = c;
	return 0;
fail:
	free(dc);
	free(ddir);
	free(plan_path);
	run_campaign_destroy(c);
	return rc;
}

/* ---- the pad ------------------------------------------------------------------------ */

/* Sockets of this user's harnesses that were killed (their pid is gone):
 * a killed pad cannot remove its own. */
static void remove_stale_sockets(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int uid, pid, end = 0;
		if (sscanf(e->d_name, "rxdeck-pad-%d-%d.sock%n", &uid, &pid, &end) != 2 ||
		    e->d_name[end] != 0 || uid != (int)getuid() || pid <= 0)
			continue;
		if (kill(pid, 0) < 0 && errno == ESRCH) {
			struct stat st;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode))
				unlinkat(dirfd(d), e->d_name, 0);
		}
	}
	closedir(d);
}

int run_pad_choose(const struct plan *p, char *spec, size_t spec_size, char *errmsg, size_t size)
{
	if (p->pad == PLAN_PAD_NONE) {
		/* no device: the programs take no input, uinput is not needed */
		if (spec)
			snprintf(spec, spec_size, "none");
		return 0;
	}
	char why[256] = "";
	bool uinput = false;
	if (p->pad != PLAN_PAD_SOCKET)
		uinput = run_uinput_usable(why, sizeof why);
	if (p->pad == PLAN_PAD_UINPUT && !uinput)
		return run_errf(errmsg, size, -EACCES,
		                "the plan asks for a uinput pad and %s (the udev rule in deck/ lets "
		                "the user open /dev/uinput)", why);
	if (!uinput) {
		for (size_t i = 0; i < p->n_builds; i++) {
			if (!p->builds[i].pad_option)
				return run_errf(errmsg, size, -EACCES,
				                "build '%s' is a game that finds its pad itself (no pad_option), "
				                "and this host has no usable uinput: %s; give the user access to "
				                "/dev/uinput (the udev rule in deck/) or run on a host that has it",
				                p->builds[i].name, p->pad == PLAN_PAD_SOCKET ? "the plan asks for the socket pad" : why);
		}
	}
	if (!spec)
		return 0;
	if (uinput) {
		snprintf(spec, spec_size, "uinput");
		return 0;
	}
	/* a socket path must fit a socket address (108 bytes); the pid keeps
	 * two harnesses apart */
	const char *rt = getenv("XDG_RUNTIME_DIR");
	const char *tmp = getenv("TMPDIR");
	const char *dir = rt && rt[0] == '/' ? rt : tmp && tmp[0] == '/' ? tmp : "/tmp";
	int n = snprintf(spec, spec_size, "socket:%s/rxdeck-pad-%d-%d.sock", dir, (int)getuid(),
	                 (int)getpid());
	if (n < 0 || (size_t)n >= spec_size || n - 7 >= 100) {
		dir = "/tmp";
		snprintf(spec, spec_size, "socket:/tmp/rxdeck-pad-%d-%d.sock", (int)getuid(), (int)getpid());
	}
	remove_stale_sockets(dir);
	return 0;
}

/* ---- playing ----------------------------------------------------------------------- */

static const struct db_arm *db_arm_of(const struct run_campaign *c, int64_t id)
{
	for (size_t i = 0; i < c->n_arms; i++)
		if (c->arms[i].id == id)
			return &c->arms[i];
	return NULL;
}

/* The Vulkan device line of the first run, for the campaign's gpu and
 * driver fields: "vk: device 0: NAME (DRIVER INFO), Vulkan 1.3, TYPE".
 * NAME and DRIVER INFO may hold parentheses themselves ("llvmpipe (LLVM
 * 15.0.6, 256 bits)"), so the driver is the last balanced group before
 * ", Vulkan ". */
int run_parse_device_line(const char *config, char **gpu, char **driver)
{
	const char *d = config ? strstr(config, "vk: device ") : NULL;
	if (!d)
		return -ENOENT;
	const char *colon = strstr(d + 11, ": ");
	const char *eol = strchr(d, '\n');
	if (!eol)
		eol = d + strlen(d);
	if (!colon || colon > eol)
		return -ENOENT;
	const char *name = colon + 2;
	const char *vk = NULL;
	for (const char *p = name; (p = strstr(p, ", Vulkan ")) && p < eol; p++)
		vk = p;
	if (!vk || vk == name || vk[-1] != ')')
		return -ENOENT;
	const char *close = vk - 1, *open = NULL;
	int depth = 0;
	for (const char *p = close; p >= name; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0) {
			open = p;
			break;
		}
	}
	if (!open || open == name)
		return -ENOENT;
	const char *name_end = open;
	while (name_end > name && name_end[-1] == ' ')
		name_end--;
	char *g = strndup(name, (size_t)(name_end - name));
	char *dr = strndup(open + 1, (size_t)(close - open - 1));
	if (!g || !dr) {
		free(g);
		free(dr);
		return -ENOMEM;
	}
	*gpu = g;
	*driver = dr;
	return 0;
}

static void note_device(struct run_campaign *c, const char *config)
{
	char *gpu, *drv;
	if (run_parse_device_line(config, &gpu, &drv) < 0)
		return;
	struct db_campaign *dc;
	if (db_campaign_get(c->db, c->id, &dc) == 0) {
		if (!dc->gpu) {
			char *mesa = NULL;
			deck_mesa_from_driver_info(drv, &mesa);
			struct db_campaign u = *dc;
			u.gpu = gpu;
			u.driver = drv;
			if (mesa)
				u.mesa = mesa;
			db_campaign_update(c->db, &u);
			free(mesa);
		}
		free(dc);
	}
	free(gpu);
	free(drv);
}

static int count_runs(struct run_campaign *c, int *max_position, int *max_round)
{
	struct db_run *runs;
	size_t n;
	int rc = db_run_list(c->db, c->id, &runs, &n);
	if (rc < 0)
		return rc;
	*max_position = 0;
	*max_round = 0;
	for (size_t i = 0; i < n; i++) {
		if (runs[i].position > *max_position)
			*max_position = runs[i].position;
		if (runs[i].round > *max_round)
			*max_round = runs[i].round;
	}
	c->total_runs = n;
	free(runs);
	return 0;
}

/* Whether one more round may be added: below the planned maximum of
 * rounds, and with a deadline, ending before it at the measured length of
 * a run.  *stop says why not. */
static int may_add_round(struct run_campaign *c, int max_round, bool *may, enum run_stop *stop)
{
	*may = false;
	*stop = RUN_STOP_PLANNED;
	int most = plan_max_rounds(c->plan);
	if (most > 0) {
		*stop = RUN_STOP_MAX_ROUNDS;
		if (max_round >= most)
			return 0;
	}
	if (c->plan->until) {
		int64_t until;
		if (plan_until_resolve(c->plan->until, 0, &until) < 0)
			return 0;
		double round_s = mean_run_s(c) * (double)strlen(plan_order(c->plan));
		if (util_unix_ms() + (int64_t)(round_s * 1000) > until) {
			*stop = RUN_STOP_DEADLINE;
			return 0;
		}
	} else if (most <= 0) {
		return 0;
	}
	*may = true;
	return 0;
}

/* Once the planned runs ran: the campaign stops when its primary
 * comparisons are decided (a campaign with a maximum of rounds), else one
 * more round is planned when it may be.  *added, or *stop with why not. */
static int next_round(struct run_campaign *c, bool *added, enum run_stop *stop, char *errmsg,
                      size_t size)
{
	*added = false;
	int max_pos, max_round;
	int rc = count_runs(c, &max_pos, &max_round);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	if (plan_max_rounds(c->plan) > 0 && c->opt.decided) {
		bool decided = false;
		if ((rc = c->opt.decided(c->opt.decided_ctx, c->db, c->id, &decided, errmsg, size)) < 0)
			return rc;
		if (decided) {
			*stop = RUN_STOP_DECIDED;
			progress_line(c, "every primary comparison is decided after %d round%s: the "
			              "campaign stops", max_round, max_round == 1 ? "" : "s");
			return 0;
		}
	}
	bool may;
	if ((rc = may_add_round(c, max_round, &may, stop)) < 0 || !may)
		return rc;
	if ((rc = plan_rounds_db(c, max_round + 1, max_round + 1, false, max_pos + 1)) < 0)
		return run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
	struct db_campaign *dc;
	if (db_campaign_get(c->db, c->id, &dc) == 0) {
		dc->rounds = max_round + 1;
		db_campaign_update(c->db, dc);
		free(dc);
	}
	*added = true;
	return 0;
}

static int any_data(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	return flag == FTW_F && st->st_size > 0;
}

/* Moves a folder left by a cut run aside: "<dir>.cut-<n>".  A folder with
 * no byte in it (a run that could not start, a full disk) is removed
 * instead, so a resume that fails again does not pile up copies. */
static void move_aside(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return;
	if (nftw(dir, any_data, 16, FTW_PHYS) == 0 &&
	    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0)
		return;
	char to[PATH_MAX];
	for (int k = 1; k < 1000; k++) {
		snprintf(to, sizeof to, "%s.cut-%d", dir, k);
		if (stat(to, &st) < 0 && rename(dir, to) == 0)
			return;
	}
}

/* The run's folder (one played before is moved aside), and its row
 * marked running there. */
static int play_dir(struct run_campaign *c, const struct db_run *run, const struct plan_arm *arm,
                    char **out, char *errmsg, size_t size)
{
	char sub[64];
	snprintf(sub, sizeof sub, "%03d-%c%s", run->position, arm->letter, run->is_warmup ? "-warmup" : "");
	char *dir = util_path_join(c->dir, sub);
	if (!dir)
		return -ENOMEM;
	/* a full disk is the harness's trouble before the run: nothing is tried */
	char full[512];
	int rc = run_disk_check(c->dir, full, sizeof full);
	if (rc < 0) {
		run_errf(errmsg, size, rc, "cannot start run %d: %s; free space, then 'rxdeck resume' "
		         "goes on", run->position, full);
		free(dir);
		return rc;
	}
	move_aside(dir);
	rc = util_mkdir_p(dir, 0700);
	if (rc < 0) {
		run_errf(errmsg, size, rc, "cannot make folder '%s': %s", dir, strerror(-rc));
		free(dir);
		return rc;
	}
	if ((rc = db_run_mark_running(c->db, run->id, 0, dir)) < 0) {
		run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
		free(dir);
		return rc;
	}
	*out = dir;
	return 0;
}

/* The game played: its env and argv composed from the plan, the progress
 * line, run_game(). */
static int play_game(struct run_campaign *c, const struct db_run *run, const struct plan_arm *arm,
                     const char *dir, struct deck *deck, const char *pad_spec,
                     struct run_game_result *gr, char *errmsg, size_t size)
{
	struct plan *p = c->plan;
	const struct plan_build *b = plan_arm_build(p, arm);
	struct plan_strv env = { 0 }, argv = { 0 };
	char *const *base = c->opt.environ ? c->opt.environ : environ;
	int rc = run_env_compose(base, &p->profile_env, &arm->env, &p->inherited_env, &env);
	/* the launcher (gamescope, mangohud) runs the game: its words first */
	for (size_t i = 0; rc == 0 && i < b->launcher.n; i++)
		rc = plan_strv_push(&argv, b->launcher.v[i]);
	for (size_t i = 0; rc == 0 && i < b->argv.n; i++)
		rc = plan_strv_push(&argv, b->argv.v[i]);
	for (size_t i = 0; rc == 0 && i < arm->args.n; i++)
		rc = plan_strv_push(&argv, arm->args.v[i]);
	if (rc < 0) {
		plan_strv_finish(&env);
		plan_strv_finish(&argv);
		return rc;
	}
	double hard = p->hard_limit_s > 0 ? p->hard_limit_s
	                                  : route_s(c) + p->start_timeout_s + p->start_delay_s + 60;
	struct run_game_spec spec = {
		.argv = (const char *const *)argv.v,
		.envp = (const char *const *)env.v,
		.workdir = b->workdir,
		.run_dir = dir,
		.route = c->route,
		.pad_spec = pad_spec,
		.pad_option = b->pad_option,
		.mangohud = p->frames == PLAN_FRAMES_MANGOHUD,
		.window_shots = !plan_build_is_demo(b),
		.watchdog_s = p->watchdog_s,
		.start_timeout_s = p->start_timeout_s,
		.start_delay_s = p->start_delay_s,
		.hard_limit_s = hard,
		.stop_timeout_s = p->stop_timeout_s,
		.deck = deck,
		.stop = c->opt.stop,
		.on_tick = on_tick,
		.tick_ctx = c,
	};
	char label[32];
	c->cur = run;
	c->cur_route_s = -1;
	if (!c->opt.quiet && !c->tty)
		progress_line(c, "run %d of %zu: arm %c, %s, started", run->position, c->total_runs,
		              arm->letter, run_label(run, label, sizeof label));
	status_line(c);
	rc = run_game(&spec, gr, errmsg, size);
	plan_strv_finish(&env);
	plan_strv_finish(&argv);
	c->cur = NULL;
	return rc;
}

/* What the run left, collected and stored with its status: void (with
 * reason, at most reason_size - 1 bytes) for every end but a normal one,
 * and for a window without real frames.  col is the caller's to finish
 * on success. */
static int store_run(struct run_campaign *c, const struct db_run *run, const char *dir,
                     const struct run_game_result *gr, const char *slept,
                     struct run_collected *col, char *reason, size_t reason_size, char *errmsg,
                     size_t size)
{
	struct plan *p = c->plan;
	struct run_collect_spec cs = {
		.run_dir = dir,
		.window_s = { c->window_s[0], c->window_s[1] },
		.t0_ns = gr->t0_ns,
		.t0_log_ns = gr->t0_log_ns,
		.mangohud = p->frames == PLAN_FRAMES_MANGOHUD,
		.mangohud_version = gr->mangohud_version,
		.min_coverage_pct = p->void_rules.min_coverage_pct > 0 ? p->void_rules.min_coverage_pct : -1,
		.collect_profile = p->collect,
		.shot_names = (const char *const *)gr->shot_names,
		.n_shots = gr->shots_asked,
		.shot_notes = gr->shot_notes,
		.samples = gr->samples,
		.n_samples = gr->n_samples,
	};
	int rc = run_collect(&cs, col, errmsg, size);
	if (rc < 0)
		return rc;
	if (gr->t0_ns) {
		/* the route's start on the frame log's clock: plots place marks and
		 * the window with it, from the database alone */
		run_collected_add_metric(col, "route_t0_ns", (double)gr->t0_ns);
		run_collected_add_metric(col, "route_late_p99_ms", (double)gr->late_p99_ns / 1e6);
		run_collected_add_metric(col, "route_late_max_ms", (double)gr->late_max_ns / 1e6);
	}
	run_collected_add_metric(col, "run_s", (double)(gr->end_ns - gr->spawn_ns) / 1e9);

	char device_reason[200];
	run_device_check(&c->device, gr->samples, gr->n_samples, col, device_reason,
	                 sizeof device_reason);
	/* the game's writes failed for want of space: whatever its end looked
	 * like (a watchdog's hang, a crash), it is a full disk */
	reason[0] = 0;
	if (run_disk_check(dir, reason, reason_size) < 0)
		;
	else if (slept[0]) /* a hang or a lost frame after a wake is the sleep's */
		snprintf(reason, reason_size, "%s", slept);
	else if (gr->end != RUN_END_OK)
		snprintf(reason, reason_size, "%s", gr->reason);
	else if (col->no_log)
		snprintf(reason, reason_size, "%s", col->void_reason);
else if (col->no_frames)
		snprintf(reason, reason_size, "no frames: the game showed no real frame in the route's "
		                              "window");
	else if (device_reason[0])
		snprintf(reason, reason_size, "%s", device_reason);
	else if (col->void_reason[0])
		snprintf(reason, reason_size, "%s", col->void_reason);
	col->r.status = reason[0] ? DB_RUN_VOID : DB_RUN_DONE;
	col->r.void_reason = reason[0] ? reason : NULL;
	col->r.end_unix_ms = gr->end_unix_ms;
	col->r.exit_status = gr->exit_status;
	rc = db_run_store_results(c->db, run->id, &col->r);
	if (rc < 0) {
		run_errf(errmsg, size, rc, "cannot store run %d: %s", run->position, db_errmsg(c->db));
		run_collected_finish(col);
		return rc;
	}
	note_device(c, col->r.config);
	return 0;
}

/* The run's progress line: done with its figures, or void with its
 * reason and the game's last lines. */
/* Where the campaign stands now: the round, runs left and the expected
 * finish from every run's measured length (run-eta.c). */
static void progress_eta(struct run_campaign *c)
{
	struct db_run *all;
	size_t n_all;
	struct run_eta eta;
	if (db_run_list(c->db, c->id, &all, &n_all) != 0)
		return;
	if (run_eta_compute(all, n_all, 0, route_s(c) + 5.0, util_unix_ms(), &eta) == 0 &&
	    eta.runs_left) {
		char line[256];
		run_eta_format(&eta, util_unix_ms(), line, sizeof line);
		progress_line(c, "  %s", line);
	}
	free(all);
}

static void report_run(struct run_campaign *c, const struct db_run *run, const struct plan_arm *arm,
                       struct run_game_result *gr, const struct run_collected *col,
                       const char *reason, double dur)
{
	char label[32], d[32];
	run_format_duration(dur, d, sizeof d);
	const char *on = c->color ? (reason[0] ? "\033[33m" : "\033[32m") : "";
	const char *off = c->color ? "\033[0m" : "";
	double fps = NAN, rb = NAN;
	for (size_t i = 0; i < col->r.n_metrics; i++) {
		if (strcmp(col->r.metrics[i].name, "real_fps") == 0)
			fps = col->r.metrics[i].value;
		if (strcmp(col->r.metrics[i].name, "rb_wait_ms") == 0)
			rb = col->r.metrics[i].value;
	}
	char figures[128] = "";
	if (isfinite(fps))
		snprintf(figures, sizeof figures, ", %.1f real fps", fps);
	if (isfinite(rb))
		snprintf(figures + strlen(figures), sizeof figures - strlen(figures),
		         ", readback wait %.2f ms a frame", rb);
	if (reason[0])
		progress_line(c, "run %d of %zu: arm %c, %s: %svoid%s (%s), %s", run->position,
		              c->total_runs, arm->letter, run_label(run, label, sizeof label), on, off,
		              reason, d);
	else
		progress_line(c, "run %d of %zu: arm %c, %s: %sdone%s in %s%s", run->position,
		              c->total_runs, arm->letter, run_label(run, label, sizeof label), on, off,
		              d, figures);
	progress_eta(c);
	char *t = gr->log_tail;
	while (t && *t) {
		char *nl = strchr(t, '\n');
		if (nl)
			*nl = 0;
		progress_line(c, "    | %s", t);
		t = nl ? nl + 1 : NULL;
	}
}

/* One run: its folder, the game, its results stored, its line. */
static int play_one(struct run_campaign *c, const struct db_run *run, struct deck *deck,
                    const char *pad_spec, bool *interrupted, char *errmsg, size_t size)
{
	const struct db_arm *da = db_arm_of(c, run->arm_id);
	const struct plan_arm *arm = da ? plan_arm_find(c->plan, da->letter) : NULL;
	if (!arm)
		return run_errf(errmsg, size, -EINVAL, "run %d: its arm is not in the plan", run->position);
	bool stop_now = false;
	int rc = run_device_before_run(&c->device, c->plan, arm, c->opt.stop, &stop_now, errmsg,
	                               size);
	if (rc < 0)
		return rc;
	if (stop_now) {
		*interrupted = true;
		return 0;
	}
	char *dir;
	rc = play_dir(c, run, arm, &dir, errmsg, size);
	if (rc < 0)
		return rc;
	struct run_game_result gr;
	run_sleep_mark(&c->sleep);
	rc = play_game(c, run, arm, dir, deck, pad_spec, &gr, errmsg, size);
	char slept[160];
	run_sleep_check(&c->sleep, slept, sizeof slept);
	if (rc < 0) {
		/* nothing could be tried (the pad, the FIFO, a fork): the harness's
		 * trouble, which the next run would have too.  The run stays
		 * running, for `rxdeck resume` once it is fixed. */
		free(dir);
		return rc;
	}
	if (gr.end == RUN_END_INTERRUPTED) {
		*interrupted = true;
		run_game_result_finish(&gr);
		free(dir);
		return 0;
	}
	struct run_collected col;
	char reason[600];
	rc = store_run(c, run, dir, &gr, slept, &col, reason, sizeof reason, errmsg, size);
	if (rc < 0) {
		run_game_result_finish(&gr);
		free(dir);
		return rc;
	}
	double dur = (double)(gr.end_ns - gr.spawn_ns) / 1e9;
	c->run_s_sum += dur;
	c->run_s_n++;
	if (!c->opt.quiet)
		report_run(c, run, arm, &gr, &col, reason, dur);
	run_collected_finish(&col);
	run_game_result_finish(&gr);
	free(dir);
	if (strncmp(reason, "disk full: ", 11) == 0)
		return run_errf(errmsg, size, -ENOSPC, "the campaign stopped after run %d: %s; free space, "
		                "then 'rxdeck resume' goes on", run->position, reason);
	/* the round goes on; whether another round starts is the deadline's */
	if (slept[0] && !c->opt.quiet)
		progress_line(c, "the host slept during run %d; the campaign goes on", run->position);
	return 0;
}

/* Readies the device and the database for the runs: the device set up
 * for the plan, the host's facts recorded as the runs will find them, the
 * campaign marked open.  c->device is always left for run_device_end(). */
static int play_begin(struct run_campaign *c, struct deck *deck, char *errmsg, size_t size)
{
	int drc = 0;
	char *ddir = data_dir(&c->opt, &drc);
	if (!ddir)
		return run_errf(errmsg, size, drc, "cannot find the data folder");
	int rc = run_device_begin(&c->device, deck, c->plan, ddir, c->name, errmsg, size);
	free(ddir);
	if (rc < 0)
		return rc;
	/* after the device is put back: the host as the runs will find it */
	char changes[2048];
	int hrc = run_host_record(c->db, c->id, deck, changes, sizeof changes);
	if (hrc < 0)
		return run_errf(errmsg, size, hrc, "cannot record the host's facts: %s",
		                db_errmsg(c->db));
	if (hrc > 0)
		progress_line(c, "the host changed since the campaign last played (recorded):\n%s",
		              changes);
	if (db_campaign_set_status(c->db, c->id, DB_CAMPAIGN_OPEN, 0) < 0)
		return run_errf(errmsg, size, -EIO, "%s", db_errmsg(c->db));
	return 0;
}

/* Plays the pending runs one by one, adding rounds while the plan wants
 * them, until none is left (o->complete), the stop flag is raised or a run
 * is interrupted (o->interrupted).  Returns 0 or a negative errno. */
static int play_runs(struct run_campaign *c, struct deck *deck, const char *pad_spec,
                     struct run_outcome *o, char *errmsg, size_t size)
{
	int rc;
	for (;;) {
		if (c->opt.stop && *c->opt.stop) {
			o->interrupted = true;
			return 0;
		}
		int max_pos, max_round;
		if ((rc = count_runs(c, &max_pos, &max_round)) < 0) {
			run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
			return rc;
		}
		struct db_run *next;
		rc = db_run_next(c->db, c->id, &next);
		if (rc == -ENOENT) {
			bool added;
			if ((rc = next_round(c, &added, &o->stop, errmsg, size)) < 0)
				return rc;
			if (added)
				continue;
			o->complete = true;
			o->rounds = max_round;
			return 0;
		}
		if (rc < 0) {
			run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
			return rc;
		}
		bool interrupted = false;
		rc = play_one(c, next, deck, pad_spec, &interrupted, errmsg, size);
		free(next);
		if (rc < 0)
			return rc;
		if (interrupted) {
			o->interrupted = true;
			return 0;
		}
		o->runs_done++;
	}
}

/* The word results-db stores for why the run loop stopped (the report's
 * JSON stop.reason); NULL for none. */
static const char *stop_reason_name(enum run_stop stop)
{
	switch (stop) {
	case RUN_STOP_PLANNED:
		return "planned";
	case RUN_STOP_DECIDED:
		return "decided";
	case RUN_STOP_MAX_ROUNDS:
		return "max_rounds";
	case RUN_STOP_DEADLINE:
		return "deadline";
	case RUN_STOP_NONE:
	default:
		return NULL;
	}
}

/* After the runs: a complete campaign gets its void rules applied and is
 * marked done with why it stopped (results-db stop_reason); the voided runs are counted into o and the progress line is
 * cleared. */
static int play_end(struct run_campaign *c, struct run_outcome *o, char *errmsg, size_t size)
{
	int rc;
	if (o->complete) {
		size_t voided = 0;
		if ((rc = run_void_apply(c->db, c->id, &c->plan->void_rules, &voided, errmsg, size)) < 0)
			return rc;
		if ((rc = db_campaign_set_status(c->db, c->id, DB_CAMPAIGN_DONE, 0)) < 0 ||
		    (rc = db_campaign_set_stop_reason(c->db, c->id, stop_reason_name(o->stop))) < 0) {
			run_errf(errmsg, size, rc, "%s", db_errmsg(c->db));
			return rc;
		}
	}
	struct db_run *runs;
	size_t n;
	if (db_run_list(c->db, c->id, &runs, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			o->runs_void += runs[i].status == DB_RUN_VOID;
		free(runs);
	}
	if (c->tty && !c->opt.quiet) {
		fputs("\r\033[K", c->progress);
		fflush(c->progress);
	}
	return 0;
}

int run_campaign_play(struct run_campaign *c, struct run_outcome *out, char *errmsg, size_t size)
{
	struct run_outcome o = { 0 };
	char pad_spec[512];
	int rc = run_pad_choose(c->plan, pad_spec, sizeof pad_spec, errmsg, size);
	if (rc < 0)
		return rc;
	struct deck *deck = NULL;
	char msg[256];
	if (deck_create(&(struct deck_options){ .root = c->opt.deck_root }, msg, sizeof msg,
	                &deck) < 0) {
		deck = NULL;
		if (!c->opt.quiet)
			progress_line(c, "no samplers: %s", msg);
	}
	c->device = (struct run_device){ .progress = c->progress, .quiet = c->opt.quiet,
	                                 .poll_s = c->opt.ac_poll_s };
	if ((rc = play_begin(c, deck, errmsg, size)) < 0)
		goto out;
	c->play_start_ns = util_now_ns();
	run_sleep_begin(&c->sleep, c->opt.suspended_ns, c->opt.suspended_ctx);
	if ((rc = play_runs(c, deck, pad_spec, &o, errmsg, size)) < 0)
		goto out;
	if ((rc = play_end(c, &o, errmsg, size)) < 0)
		goto out;
	*out = o;
out:
	run_sleep_end(&c->sleep);
	run_device_end(&c->device);
	deck_destroy(deck);
	return rc;
}
