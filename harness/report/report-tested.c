/* report-tested: a campaign's run file for docs/tested/.
 *
 * It owns the run file's layout, which docs/tested-configurations.md
 * defines (title, date, builds, hardware, settings, route and window,
 * method, the table, void runs, how to reproduce), its stable name, and the
 * rule that a file is only ever replaced by the same campaign's file: each
 * carries an identity line naming its campaign, and a file of the same name
 * naming another campaign is left alone.  Files are written to a temporary
 * name and renamed, so a reader never sees half a file.  Everything comes
 * from the database.
 */
#include "report-private.h"
#include "plan/plan.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

static bool name_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* FNV-1a, 32 bits: tells apart names that slug to the same text. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static int tested_stem(const struct db_campaign *c, char **out)
{
	char date[32];
	report_format_time(date, sizeof date, c->created_unix_ms, true);
	size_t len = strlen(c->name);
	char *slug = malloc(len + 1);
	if (!slug)
		return -ENOMEM;
	bool changed = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)c->name[i];
		slug[i] = name_char_ok(ch) ? (char)ch : '-';
		changed |= !name_char_ok(ch);
	}
	slug[len] = 0;
	if (slug[0] == '.')
		slug[0] = '-', changed = true; /* never a hidden file */
	char *s = NULL;
	int n = changed ? asprintf(&s, "%s-%s-%08x", date, slug, fnv1a(c->name))
	                : asprintf(&s, "%s-%s", date, slug);
	free(slug);
	if (n < 0)
		return -ENOMEM;
	*out = s;
	return 0;
}

int report_tested_name(struct db *db, int64_t campaign_id, char **out)
{
	struct db_campaign *c;
	int err = db_campaign_get(db, campaign_id, &c);
	if (err)
		return err;
	char *stem;
	err = tested_stem(c, &stem);
	free(c);
	if (err)
		return err;
	char *s;
	if (asprintf(&s, "%s.md", stem) < 0) {
		free(stem);
		return -ENOMEM;
	}
	free(stem);
	*out = s;
	return 0;
}

/* The identity line: the campaign's name (percent-encoded outside
 * [A-Za-z0-9._-], so it can never close the comment) and creation time. */
static void identity_line(const struct db_campaign *c, FILE *out)
{
	fputs("<!-- rxdeck run file: campaign ", out);
	for (const char *p = c->name; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (name_char_ok(ch))
			fputc(ch, out);
		else
			fprintf(out, "%%%02X", ch);
	}
	fprintf(out, " created %lld -->\n", (long long)c->created_unix_ms);
}

static void fact(FILE *out, const char *what, const char *value)
{
	fprintf(out, "- %s: ", what);
	report_md_text(out, value && value[0] ? value : "not recorded");
	fputc('\n', out);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* GPU shader clock of an arm's usable runs, from the gpu_sclk_mhz samples
 * inside the window when the run knows its route start, else the window's
 * median the run stored as the metric gpu_sclk_mhz, else every sample. */
static int arm_clock(struct db *db, const struct report_data *rd, const struct report_arm *a,
                     FILE *out)
{
	double *all = NULL;
	size_t n_all = 0, cap = 0;
	const struct db_campaign *c = rd->campaign;
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		if (r->is_void)
			continue;
		struct db_sample *s;
		size_t n;
		int err = db_samples_read(db, r->run->id, REPORT_SAMPLE_SCLK, &s, &n);
		if (err) {
			free(all);
			return err;
		}
		double stored;
		bool use_stored = !r->has_t0 &&
		                  db_metric_get(db, r->run->id, REPORT_SAMPLE_SCLK, &stored) == 0 &&
		                  isfinite(stored);
		for (size_t i = 0; i < n && !use_stored; i++) {
			if (s[i].absent || !isfinite(s[i].value))
				continue;
			if (r->has_t0 && c->window_start_s < c->window_end_s) {
				double t = (double)(s[i].t_ns - r->t0_ns) / 1e9;
				if (!(t > c->window_start_s && t <= c->window_end_s))
					continue;
			}
			if (n_all == cap) {
				cap = cap ? cap * 2 : 64;
				double *g = realloc(all, cap * sizeof *g);
				if (!g) {
					free(s);
					free(all);
					return -ENOMEM;
				}
				all = g;
			}
			all[n_all++] = s[i].value;
		}
		free(s);
		if (use_stored) {
			/* the run's own median in the window, as it stored it */
			double *g = realloc(all, (n_all + 1) * sizeof *g);
			if (!g) {
				free(all);
				return -ENOMEM;
			}
			all = g;
			all[n_all++] = stored;
			cap = n_all;
		}
	}
	fprintf(out, "%c ", a->arm->letter);
	if (n_all == 0) {
		fputs("not sampled", out);
	} else {
		qsort(all, n_all, sizeof *all, cmp_double);
		double med = all[(n_all - 1) / 2];
		if (all[0] == all[n_all - 1])
			fprintf(out, "%.0f MHz", med);
		else
			fprintf(out, "median %.0f MHz (%.0f–%.0f)", med, all[0], all[n_all - 1]);
	}
	free(all);
	return 0;
}

/* The plan text with every "ROOT/" dropped, ROOT being the tree the route
 * file lies in (ROOT/routes/NAME.route): a run file carries no path of the
 * machine that ran it, and the plan then runs from the top of any checkout.
 * NULL when the route is not in such a tree (or out of memory). */
static char *tree_relative(const char *text, const char *route)
{
	const char *cut = route && route[0] == '/' ? strstr(route, "/routes/") : NULL;
	if (!cut)
		return NULL;
	size_t root_len = (size_t)(cut - route) + 1; /* with the slash */
	char *out = malloc(strlen(text) + 1), *w = out;
	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		if (strncmp(p, route, root_len) == 0) {
			p += root_len;
			continue;
		}
		*w++ = *p++;
	}
	*w = '\0';
	return out;
}

static void fenced(FILE *out, const char *lang, const char *text)
{
	/* a fence longer than any run of backticks in the text */
	size_t run = 0, longest = 0;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	size_t n = longest < 3 ? 3 : longest + 1;
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
	fprintf(out, "%s\n%s", lang, text);
	if (text[0] && text[strlen(text) - 1] != '\n')
		fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
	fputc('\n', out);
}

static void duration_text(char *buf, size_t size, int64_t ms)
{
	if (ms <= 0) {
		snprintf(buf, size, "-");
		return;
	}
	long long s = (ms + 500) / 1000;
	if (s >= 3600)
		snprintf(buf, size, "%lld h %02lld min", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, size, "%lld min %02lld s", s / 60, s % 60);
	else
		snprintf(buf, size, "%lld s", s);
}

/* Title, identity line, dates, host, state and notes. */
static void section_title(const struct report_data *rd, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	char t0[64], t1[64];
	fputs("# ", out);
	report_md_text(out, c->name);
	fputs("\n\n", out);
	identity_line(c, out);
	fputc('\n', out);
	report_format_time(t0, sizeof t0, c->created_unix_ms, false);
	report_format_time(t1, sizeof t1, c->finished_unix_ms, false);
	fprintf(out, "Ran from %s to %s", t0, c->finished_unix_ms ? t1 : "(not finished)");
	if (c->host && c->host[0]) {
		fputs(" on ", out);
		report_md_text(out, c->host);
	}
	char stop[160], why[180] = "every planned run finished";
	report_stop_text(rd, stop, sizeof stop);
	if (rd->stop != REPORT_STOP_NONE && rd->stop != REPORT_STOP_PLANNED)
		snprintf(why, sizeof why, "finished: %s", stop);
	fprintf(out, "; %s.\n", c->status == DB_CAMPAIGN_DONE      ? why
	                        : c->status == DB_CAMPAIGN_STOPPED ? "stopped before every planned run finished"
	                                                            : "still open");
	if (c->notes && c->notes[0]) {
		fputc('\n', out);
		report_md_text(out, c->notes);
		fputc('\n', out);
	}
}

static void section_builds(const struct report_data *rd, FILE *out)
{
	fputs("\n## Builds\n\n", out);
	if (rd->n_builds == 0) {
		fputs("No build was recorded.\n", out);
		return;
	}
	fputs("| build | commit | binary | SHA-256 |\n|---|---|---|---|\n", out);
	for (size_t i = 0; i < rd->n_builds; i++) {
		const struct db_build *b = &rd->builds[i];
		fputs("| ", out);
		report_md_text(out, b->label);
		fputs(" | ", out);
		report_md_text(out, b->commit && b->commit[0] ? b->commit : "not recorded");
		fputs(" | ", out);
		/* the file name: its checksum identifies it, and where it lay on
		 * the machine that ran it stays in the database */
		if (b->path && b->path[0])
			report_md_code(out, strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path);
		else
			fputs("not recorded", out);
		fputs(" | ", out);
		if (b->sha256 && b->sha256[0])
			report_md_code(out, b->sha256);
		else
			fputs("not recorded", out);
		fputs(" |\n", out);
	}
}

/* "<lead> DATE: key: OLD -> NEW; ...", a resume's changes on one line. */
static void change_line(const struct db_host_facts *h, const char *lead, FILE *out)
{
	char when[32];
	time_t t = (time_t)(h->at_unix_ms / 1000);
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm))
		snprintf(when, sizeof when, "?");
	fprintf(out, "%s %s: ", lead, when);
	const char *line = h->changes ? h->changes : "";
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char part[512];
		snprintf(part, sizeof part, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
		report_md_code(out, part);
		line = nl ? nl + 1 : NULL;
		fputs(line && *line ? "; " : "", out);
	}
	fputc('\n', out);
}

/* The host's facts as the campaign recorded them at its start (`rxdeck deck
 * info`'s: swap, zram, carve-out, panel refresh, gpu_metrics, SteamOS build,
 * GPU level, TDP, power source), then what a resume found changed. */
static void host_facts(struct db *db, int64_t campaign_id, FILE *out)
{
	struct db_host_facts *h = NULL;
	size_t n = 0;
	if (db_host_facts_list(db, campaign_id, &h, &n) < 0 || n == 0) {
		free(h);
		return;
	}
	json_t *o = json_loads(h[0].facts, 0, NULL);
	const char *key;
	json_t *v;
	bool first = true;
	fputs("- Host facts at the start (`rxdeck deck info`): ", out);
	json_object_foreach(o, key, v) {
		if (json_is_null(v))
			continue;
		char *val = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
		fputs(first ? "" : ", ", out);
		report_md_code(out, key);
		fputc(' ', out);
		report_md_text(out, val ? val : "?");
		free(val);
		first = false;
	}
	fputc('\n', out);
	json_decref(o);
	for (size_t i = 1; i < n; i++)
		change_line(&h[i], "- Changed at the resume of", out);
	free(h);
}

int report_host_changes(struct db *db, int64_t campaign_id, FILE *out)
{
	struct db_host_facts *h = NULL;
	size_t n = 0;
	int err = db_host_facts_list(db, campaign_id, &h, &n);
	for (size_t i = 1; !err && i < n; i++)
		change_line(&h[i], "The host changed at the resume of", out);
	if (!err && n > 1)
		fputc('\n', out);
	free(h);
	return err;
}

static int section_hardware(struct db *db, const struct report_data *rd, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	char buf[256];
	int err;
	fputs("\n## Hardware\n\n", out);
	fact(out, "Device", c->device_model);
	fact(out, "GPU", c->gpu);
	fact(out, "Driver", c->driver);
	fact(out, "Mesa", c->mesa);
	fact(out, "Kernel", c->kernel);
	fact(out, "OS", c->os);
	fact(out, "CPU", c->cpu);
	if (c->memory_B > 0) {
		snprintf(buf, sizeof buf, "%.1f GiB", (double)c->memory_B / (1024.0 * 1024 * 1024));
		fact(out, "Memory", buf);
	} else {
		fact(out, "Memory", NULL);
	}
	host_facts(db, c->id, out);
	fputs("- GPU shader clock in the measured runs: ", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		fputs(i ? "; " : "", out);
		if ((err = arm_clock(db, rd, &rd->arms[i], out)))
			return err;
	}
	fputs("\n", out);
	return 0;
}

/* The arms' settings, the env profile and the plan as the campaign ran it. */
static void section_settings(const struct report_data *rd, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	fputs("\n## Settings\n\n| arm | label | build | env |\n|---|---|---|---|\n", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		char env[2048];
		report_env_line(a->arm->env, env, sizeof env);
		fprintf(out, "| %c | ", a->arm->letter);
		report_md_text(out, a->arm->label && a->arm->label[0] ? a->arm->label : "-");
		fputs(" | ", out);
		report_md_text(out, a->build ? a->build->label : "-");
		fputs(" | ", out);
		if (env[0])
			report_md_code(out, env);
		else
			fputs("(nothing set)", out);
		fputs(" |\n", out);
	}
	struct plan *plan = NULL;
	char *shown = NULL; /* the plan with the tree's paths made relative */
	if (c->plan_text && c->plan_text[0] &&
	    plan_parse("plan", c->plan_text, strlen(c->plan_text), NULL, &plan, NULL) == 0) {
		shown = tree_relative(c->plan_text, plan->route);
		fputs("\n- Env profile: ", out);
		report_md_text(out, plan->profile ? plan->profile : "auto");
		if (plan->has_profile_env) {
			fputs(", as frozen into the plan: ", out);
			char *joined = plan_strv_join(&plan->profile_env, " ");
			if (joined && joined[0])
				report_md_code(out, joined);
			else
				fputs("(nothing set)", out);
			free(joined);
		}
		fputc('\n', out);
		if (plan->pad == PLAN_PAD_NONE)
			fputs("- Input: no pad (`pad = none`): the programs took no input; the route "
			      "played its shots and marks only\n", out);
		plan_free(plan);
	}
	fputs("\nThe plan as the campaign ran it (profile, builds, arms and void rules)", out);
	if (shown)
		fputs("; paths inside the rxdeck tree the route came from are relative to its top", out);
	fputs(":\n\n", out);
	if (c->plan_text && c->plan_text[0])
		fenced(out, "ini", shown ? shown : c->plan_text);
	else
		fputs("Not recorded.\n", out);
	free(shown);
}

static void section_route(const struct report_data *rd, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	fputs("\n## Route and window\n\n", out);
	fact(out, "Route", c->route_name);
	if (c->window_start_s < c->window_end_s)
		fprintf(out, "- Measured window: %g s to %g s of the route\n", c->window_start_s,
		        c->window_end_s);
	else
		fputs("- Measured window: the whole run\n", out);
	if (rd->n_marks) {
		fputs("- Marks:", out);
		for (size_t i = 0; i < rd->n_marks; i++) {
			fputs(i ? ", " : " ", out);
			report_md_text(out, rd->marks[i].name);
			fprintf(out, " at %g s (", rd->marks[i].t_s);
			report_md_text(out, rd->marks[i].kind);
			fputc(')', out);
		}
		fputc('\n', out);
	}
	if (c->route_text && c->route_text[0]) {
		fputs("\n", out);
		fenced(out, "", c->route_text);
	}
}

/* The order, the runs' counts and a line per run; *n_void: the void runs. */
static void section_method(const struct report_data *rd, size_t *n_void, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	char t0[64], t1[64], buf[256];
	fputs("\n## Method\n\n", out);
	fputs("- Order of one round: ", out);
	report_md_text(out, c->order && c->order[0] ? c->order : "not recorded");
	if (report_counterbalanced(rd))
		fputs(" in round 1; later rounds in their own order (counterbalanced, docs/running.md)", out);
	fprintf(out, "; %d round%s; ", c->rounds, c->rounds == 1 ? "" : "s");
	if (rd->n_warmup > 1)
		fprintf(out, "a cold warm-up run of each arm first (%zu), not measured\n", rd->n_warmup);
	else
		fputs(c->warmup ? "a cold warm-up run first, not measured\n" : "no warm-up run\n", out);
	size_t n_done = 0;
	*n_void = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		rd->runs[i].is_void ? (*n_void)++ : n_done++;
	fprintf(out, "- Runs: %zu usable, %zu void, %zu not finished", n_done, *n_void,
	        rd->n_pending);
	if (rd->n_warmup)
		fprintf(out, ", %zu warm-up", rd->n_warmup);
	fputs("\n- Statistics over runs, a run's value being one sample (frames are not "
	      "independent); the decision's method is named below the table (docs/metrics.md)\n\n",
	      out);
	fputs("| run | arm | round | started | length | real fps | state |\n"
	      "|---|---|---|---|---|---|---|\n", out);
	int fps = report_metric_index("real_fps");
	for (size_t i = 0; i < rd->n_db_runs; i++) {
		const struct db_run *r = &rd->db_runs[i];
		double v = NAN;
		for (size_t k = 0; k < rd->n_runs; k++)
			if (rd->runs[k].run == r)
				v = rd->runs[k].v[fps];
		report_format_time(t0, sizeof t0, r->start_unix_ms, false);
		duration_text(t1, sizeof t1,
		              r->start_unix_ms && r->end_unix_ms ? r->end_unix_ms - r->start_unix_ms : 0);
		if (isfinite(v))
			snprintf(buf, sizeof buf, "%.*f", stats_metrics[fps].decimals, v);
		else
			snprintf(buf, sizeof buf, "-");
		char round[16];
		if (r->is_warmup)
			snprintf(round, sizeof round, "warm-up");
		else
			snprintf(round, sizeof round, "%d", r->round);
		fprintf(out, "| %d | %c | %s | %s | %s | %s | %s |\n", r->position, r->arm_letter,
		        round, r->start_unix_ms ? t0 : "-", t1, buf, db_run_status_name(r->status));
	}
}

static int section_reproduce(const struct db_campaign *c, FILE *out)
{
	fputs("\n## How to reproduce\n\n", out);
	if (c->plan_text && c->plan_text[0]) {
		char *stem;
		int err = tested_stem(c, &stem);
		if (err)
			return err;
		fprintf(out, "Save the plan under Settings as `%s.ini` at the top of an rxdeck tree, "
		             "then:\n\n", stem);
		fprintf(out, "```sh\nrxdeck run %s.ini\nrxdeck report '", stem);
		free(stem);
	} else {
		fputs("The plan was not recorded with this campaign; its arms and route are above.  "
		      "The numbers come back with:\n\n```sh\nrxdeck report '", out);
	}
	for (const char *p = c->name; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	}
	fputs("'\n```\n", out);
	return 0;
}

/* The run file, section by section (docs/tested-configurations.md). */
/* The link to the campaign's HTML page beside the run file (html: its
 * name), when there is one. */
static void results_page_link(const char *html, FILE *out)
{
	if (!html || !html[0])
		return;
	fputs("The page with the plots and every route shot side by side: [", out);
	report_md_text(out, html);
	fputs("](", out);
	for (const char *p = html; *p; p++) {
		if (*p == ' ' || *p == '(' || *p == ')' || *p == '<' || *p == '>')
			fprintf(out, "%%%02X", (unsigned char)*p);
		else
			fputc(*p, out);
	}
	fputs(").\n\n", out);
}

static int print_tested(struct db *db, const struct report_data *rd, const char *html, FILE *out)
{
	size_t n_void;
	int err;
	section_title(rd, out);
	if (rd->n_arms > 1) {
		fputc('\n', out);
		report_md_headline(rd, out);
	}
	section_builds(rd, out);
	if ((err = section_hardware(db, rd, out)))
		return err;
	section_settings(rd, out);
	section_route(rd, out);
	section_method(rd, &n_void, out);
	fputs("\n## Results\n\n", out);
	results_page_link(html, out);
	if ((err = report_md_body(rd, false, out)))
		return err;
	fputs("\n## Void runs\n\n", out);
	if (n_void == 0)
		fputs("None.\n", out);
	else
		report_md_void_list(rd, out);
	if ((err = section_reproduce(rd->campaign, out)))
		return err;
	return ferror(out) ? -EIO : 0;
}

int report_tested_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                        FILE *out)
{
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, opts, &rd);
	if (err)
		return err;
	err = print_tested(db, rd, opts ? opts->tested_html : NULL, out);
	report_data_destroy(rd);
	if (err == 0 && fflush(out) != 0)
		err = -EIO;
	if (err)
		return report_fail(opts, err, "cannot write the run file: %s", strerror(-err));
	return 0;
}

/* The identity line of an existing file, or "" when it has none. */
static int existing_identity(const char *path, char *buf, size_t size, bool *exists)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT) {
			*exists = false;
			return 0;
		}
		return -errno;
	}
	*exists = true;
	char line[1024];
	for (int i = 0; i < 8 && fgets(line, sizeof line, f); i++)
		if (strncmp(line, "<!-- rxdeck run file: ", 22) == 0) {
			snprintf(buf, size, "%s", line);
			break;
		}
	fclose(f);
	return 0;
}

int report_tested_write(struct db *db, int64_t campaign_id, const char *dir,
                        const struct report_options *opts, char **path_out)
{
	char *text = NULL, *name = NULL, *path = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return report_fail(opts, -ENOMEM, "out of memory");
	int err = report_tested_print(db, campaign_id, opts, mem);
	if (fclose(mem) != 0 && !err)
		err = report_fail(opts, -ENOMEM, "out of memory");
	if (err)
		goto out;
	if ((err = report_tested_name(db, campaign_id, &name))) {
		err = report_fail(opts, err, "cannot name the run file: %s", strerror(-err));
		goto out;
	}
	if ((err = util_mkdir_p(dir, 0755))) {
		err = report_fail(opts, err, "cannot make folder '%s': %s", dir, strerror(-err));
		goto out;
	}
	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		path = NULL;
		err = report_fail(opts, -ENOMEM, "out of memory");
		goto out;
	}
	/* our identity line is the text's third line */
	const char *id = strstr(text, "<!-- rxdeck run file: ");
	const char *id_end = id ? strchr(id, '\n') : NULL;
	char have[1024];
	bool exists;
	if ((err = existing_identity(path, have, sizeof have, &exists))) {
		err = report_fail(opts, err, "cannot read '%s': %s", path, strerror(-err));
		goto out;
	}
	if (exists && (!id || !id_end || strlen(have) != (size_t)(id_end + 1 - id) ||
	               strncmp(have, id, (size_t)(id_end + 1 - id)) != 0)) {
		err = report_fail(opts, -EEXIST, "'%s' exists and is not this campaign's run file; "
		                  "it was left as it is (move it, or write into another folder)", path);
		goto out;
	}
	if ((err = util_write_file_atomic(path, text, len))) {
		err = report_fail(opts, err, "cannot write '%s': %s", path, strerror(-err));
		goto out;
	}
	if (path_out) {
		*path_out = path;
		path = NULL;
	}
out:
	free(text);
	free(name);
	free(path);
	return err;
}
