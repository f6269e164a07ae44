/* plan-parse: the plan file parser (keys in docs/running.md).
 *
 * inih splits the file into sections and key = value pairs; this file owns
 * what they mean.  inih's handler is not told line numbers, so the parser
 * feeds inih through its own line reader, which counts lines, keeps the raw
 * text of the line inih is looking at (to place columns), and classifies
 * each line the way inih will (comment, section, continuation, pair), so
 * that lines inih rejects are reported with a column and a reason instead of
 * inih's bare line number.  Sections are decided in the reader too, since
 * inih hands the handler only the section's name.  Checks across keys (an
 * arm's build exists, the order names every arm) run after the last line.
 * Writing a plan back (plan_write) lives in plan.c, the env profile parser
 * in plan-env.c, the string lists in plan-strv.c.
 */
#include "plan.h"
#include "plan-private.h"
#include "stats/stats.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ERRORS 200

enum section {
	S_NONE = 0,   /* before the first section */
	S_CAMPAIGN,
	S_BUILD,
	S_ARM,
	S_VOID,
	S_PROFILE,
	S_INHERITED,
	S_VERDICT,
	S_BAD,        /* an unknown or repeated section: its keys are ignored */
};

/* Keys: one table for every section; `multi` keys take continuation lines
 * and repeats (each line adds), the others one line once. */
enum key {
	K_NAME, K_NOTES, K_ROUTE, K_PROFILE, K_COLLECT, K_ORDER, K_ROUNDS, K_UNTIL, K_WARMUP,
	K_WATCHDOG, K_START_TIMEOUT, K_START_DELAY, K_HARD_LIMIT, K_STOP_TIMEOUT, K_INHERIT,
	K_PAD, K_FRAMES, K_GPU_CLOCK, K_TDP_W, K_MIN_BATTERY,
	K_BINARY, K_COMMAND, K_COMMIT, K_WORKDIR, K_PAD_OPTION, K_LAUNCHER,
	K_LABEL, K_BUILD, K_ENV, K_ARGS, K_ARM_GPU_CLOCK, K_ARM_TDP_W,
	K_SWAP_FACTOR, K_SWAP_MIN_PAGES, K_SHOT_LUMA, K_CLOCK_DROP_PCT, K_TEMP_MAX_C, K_MIN_COVERAGE,
	K_MAX_ROUNDS, K_PRIMARY, K_TIME_TERMS, K_MIN_EFFECT,
	K_COUNT
};

struct key_def {
	const char *name;
	enum section section;
	bool multi;
};

static const struct key_def keys[K_COUNT] = {
	[K_NAME] = { "name", S_CAMPAIGN, false },
	[K_NOTES] = { "notes", S_CAMPAIGN, true },
	[K_ROUTE] = { "route", S_CAMPAIGN, false },
	[K_PROFILE] = { "profile", S_CAMPAIGN, false },
	[K_COLLECT] = { "collect", S_CAMPAIGN, false },
	[K_ORDER] = { "order", S_CAMPAIGN, false },
	[K_ROUNDS] = { "rounds", S_CAMPAIGN, false },
	[K_UNTIL] = { "until", S_CAMPAIGN, false },
	[K_WARMUP] = { "warmup", S_CAMPAIGN, false },
	[K_WATCHDOG] = { "watchdog", S_CAMPAIGN, false },
	[K_START_TIMEOUT] = { "start_timeout", S_CAMPAIGN, false },
	[K_START_DELAY] = { "start_delay", S_CAMPAIGN, false },
	[K_HARD_LIMIT] = { "hard_limit", S_CAMPAIGN, false },
	[K_STOP_TIMEOUT] = { "stop_timeout", S_CAMPAIGN, false },
	[K_INHERIT] = { "inherit", S_CAMPAIGN, true },
	[K_PAD] = { "pad", S_CAMPAIGN, false },
	[K_FRAMES] = { "frames", S_CAMPAIGN, false },
	[K_GPU_CLOCK] = { "gpu_clock", S_CAMPAIGN, false },
	[K_TDP_W] = { "tdp_w", S_CAMPAIGN, false },
	[K_MIN_BATTERY] = { "min_battery_pct", S_CAMPAIGN, false },
	[K_BINARY] = { "binary", S_BUILD, false },
	[K_COMMAND] = { "command", S_BUILD, true },
	[K_COMMIT] = { "commit", S_BUILD, false },
	[K_WORKDIR] = { "workdir", S_BUILD, false },
	[K_PAD_OPTION] = { "pad_option", S_BUILD, false },
	[K_LAUNCHER] = { "launcher", S_BUILD, true },
	[K_LABEL] = { "label", S_ARM, false },
	[K_BUILD] = { "build", S_ARM, false },
	[K_ENV] = { "env", S_ARM, true },
	[K_ARGS] = { "args", S_ARM, true },
	[K_ARM_GPU_CLOCK] = { "gpu_clock", S_ARM, false },
	[K_ARM_TDP_W] = { "tdp_w", S_ARM, false },
	[K_SWAP_FACTOR] = { "swap_factor", S_VOID, false },
	[K_SWAP_MIN_PAGES] = { "swap_min_pages", S_VOID, false },
	[K_SHOT_LUMA] = { "shot_luma", S_VOID, false },
	[K_CLOCK_DROP_PCT] = { "clock_drop_pct", S_VOID, false },
	[K_TEMP_MAX_C] = { "temp_max_c", S_VOID, false },
	[K_MIN_COVERAGE] = { "min_coverage", S_VOID, false },
	[K_MAX_ROUNDS] = { "max_rounds", S_CAMPAIGN, false },
	[K_PRIMARY] = { "primary", S_VERDICT, false },
	[K_TIME_TERMS] = { "time_terms", S_VERDICT, false },
	/* in [verdict], a metric's key sets its minimum effect (handle_pair) */
	[K_MIN_EFFECT] = { "METRIC", S_VERDICT, false },
};

static const char *section_title(enum section s)
{
	switch (s) {
	case S_CAMPAIGN: return "[campaign]";
	case S_BUILD: return "[build NAME]";
	case S_ARM: return "[arm X]";
	case S_VOID: return "[void]";
	case S_PROFILE: return "[profile]";
	case S_INHERITED: return "[inherited]";
	case S_VERDICT: return "[verdict]";
	default: return "a section";
	}
}

struct ctx {
	struct plan *plan;
	const struct plan_parse_options *opt;
	struct util_diag first;
	int n_errors;
	bool oom;

	/* the reader */
	const char *data;
	size_t len, pos;
	int line;             /* the line inih is handling */
	const char *raw;      /* its raw text (no newline) */
	size_t raw_len;
	bool have_prev_key;   /* inih's prev_name is set: indented lines continue it */
	int error_line;       /* the last line an error was reported on */

	/* the section being read */
	enum section section;
	struct plan_build *build;
	struct plan_arm *arm;
	int section_line[S_BAD];     /* first line of each single section, 0 none */
	int key_line[K_COUNT];       /* line each key was set on in this section */
	int key_col[K_COUNT];
	int last_key;                /* the key the previous pair set, -1 none */
};

/* ---- errors ---------------------------------------------------------------- */

void plan_diag_print(const struct util_diag *e, FILE *f)
{
	if (e->line > 0)
		fprintf(f, "%s:%d:%d: %s\n", e->file, e->line, e->column, e->message);
	else
		fprintf(f, "%s: %s\n", e->file, e->message);
}

void plan_diag_set(struct util_diag *e, const char *file, int line, int column,
                   const char *fmt, ...)
{
	snprintf(e->file, sizeof e->file, "%s", file ? file : "plan");
	e->line = line > 0 ? line : 0;
	e->column = line > 0 ? (column > 0 ? column : 1) : 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
}

static void report(struct ctx *c, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void report(struct ctx *c, int line, int column, const char *fmt, ...)
{
	if (c->n_errors >= MAX_ERRORS) {
		c->n_errors++;
		return;
	}
	struct util_diag e;
	snprintf(e.file, sizeof e.file, "%s", c->plan->path);
	e.line = line > 0 ? line : 0;
	e.column = line > 0 ? (column > 0 ? column : 1) : 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof e.message, fmt, ap);
	va_end(ap);
	if (c->n_errors == 0)
		c->first = e;
	c->n_errors++;
	if (line > 0)
		c->error_line = line;
	if (c->opt && c->opt->on_error)
		c->opt->on_error(c->opt->error_ctx, &e);
}

/* A value shown in a message: at most 40 bytes, control bytes as '?'. */
static const char *shown(const char *v, char *buf, size_t size)
{
	size_t n = 0;
	for (; v[n] && n + 4 < size && n < 40; n++)
		buf[n] = (unsigned char)v[n] < 0x20 || v[n] == 0x7f ? '?' : v[n];
	if (v[n]) {
		memcpy(buf + n, "...", 4);
	} else {
		buf[n] = 0;
	}
	return buf;
}

/* ---- small value parsers ---------------------------------------------------- */

int plan_parse_duration_s(const char *text, double *out_s)
{
	if (!text || !*text)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || !isdigit((unsigned char)text[0]))
		return -EINVAL;
	double unit = 1.0;
	if (*end == 0 || strcmp(end, "s") == 0)
		unit = 1.0;
	else if (strcmp(end, "ms") == 0)
		unit = 1e-3;
	else if (strcmp(end, "min") == 0 || strcmp(end, "m") == 0)
		unit = 60.0;
	else if (strcmp(end, "h") == 0)
		unit = 3600.0;
	else
		return -EINVAL;
	v *= unit;
	if (!isfinite(v) || v < 0 || v > 1e9)
		return -EINVAL;
	*out_s = v;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *yes[] = { "yes", "true", "on", "1" }, *no[] = { "no", "false", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_number(const char *v, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < min || d > max ||
	    !(isdigit((unsigned char)v[0]) || v[0] == '.'))
		return -EINVAL;
	*out = d;
	return 0;
}

bool plan_name_valid(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return s[0] != '.' && s[0] != '-';
}

/* ---- the reader ------------------------------------------------------------ */

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* inih's inline comment rule: ';' at the start or after white space. */
static size_t find_comment(const char *s, size_t from, size_t len)
{
	bool was_space = from == 0;
	for (size_t i = from; i < len; i++) {
		if (s[i] == ';' && was_space)
			return i;
		was_space = is_space(s[i]);
	}
	return len;
}

static int column_of(const struct ctx *c, const char *p)
{
	return (int)(p - c->raw) + 1;
}

static enum section parse_section(struct ctx *c, const char *t, size_t n, int col);

/* Classifies the line inih is about to see and reports what inih would
 * reject, with a column. */
static void classify(struct ctx *c, size_t max_content)
{
	const char *s = c->raw;
	size_t len = c->raw_len, i = 0;
	if (c->line == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	size_t start = i;
	while (i < len && is_space(s[i]))
		i++;
	size_t end = len;
	while (end > i && is_space(s[end - 1]))
		end--;
	if (memchr(s, 0, len)) {
		report(c, c->line, (int)((const char *)memchr(s, 0, len) - s) + 1,
		       "NUL byte in the plan (is it a text file?)");
		return;
	}
	if (len > max_content) {
		report(c, c->line, (int)max_content + 1,
		       "line longer than %zu characters; continue a long value on indented lines",
		       max_content);
		return;
	}
	if (i == end || s[i] == ';' || s[i] == '#')
		return;
	if (c->have_prev_key && i > start)
		return; /* a continuation: the handler looks at it */
	if (s[i] == '[') {
		size_t close = i + 1;
		size_t cend = find_comment(s, i + 1, end);
		while (close < cend && s[close] != ']')
			close++;
		c->have_prev_key = false;
		if (close >= cend) {
			report(c, c->line, (int)cend + 1, "missing ']' at the end of the section name");
			c->section = S_BAD;
			return;
		}
		size_t after = close + 1;
		while (after < cend && is_space(s[after]))
			after++;
		if (after < cend) {
			report(c, c->line, (int)after + 1,
			       "unexpected text after the section name (a comment starts with ';' or '#')");
		}
		c->section = parse_section(c, s + i + 1, close - i - 1, (int)i + 2);
		return;
	}
	/* a pair: inih wants '=' or ':' before any inline comment */
	size_t cend = find_comment(s, i, end);
	size_t sep = i;
	while (sep < cend && s[sep] != '=' && s[sep] != ':')
		sep++;
	if (sep >= cend) {
		report(c, c->line, (int)i + 1, "expected 'key = value', a [section] or a comment");
		c->have_prev_key = false;
		return;
	}
	size_t kend = sep;
	while (kend > i && is_space(s[kend - 1]))
		kend--;
	if (kend == i)
		report(c, c->line, (int)i + 1, "missing key name before '%c'", s[sep]);
	else if (kend - i >= 50)
		report(c, c->line, (int)i + 1, "key name longer than 49 characters");
	c->have_prev_key = true;
}

static char *reader(char *str, int num, void *stream)
{
	struct ctx *c = stream;
	if (c->pos >= c->len || num < 8)
		return NULL;
	const char *p = c->data + c->pos;
	size_t rest = c->len - c->pos;
	const char *nl = memchr(p, '\n', rest);
	size_t n = nl ? (size_t)(nl - p) : rest;
	c->pos += nl ? n + 1 : n;
	c->line++;
	c->raw = p;
	c->raw_len = n;
	size_t max_content = (size_t)num - 3 < PLAN_MAX_LINE ? (size_t)num - 3 : PLAN_MAX_LINE;
	classify(c, max_content);
	/* Hand inih the line; a bad one (too long, NUL) as an empty line so it
	 * stays in step. */
	if (n > max_content || memchr(p, 0, n)) {
		str[0] = '\n';
		str[1] = 0;
		return str;
	}
	memcpy(str, p, n);
	str[n] = '\n';
	str[n + 1] = 0;
	return str;
}

/* ---- sections ------------------------------------------------------------- */

/* [campaign], [void], [profile], [inherited] or [verdict], each at most
 * once; S_NONE when name is none of them. */
static enum section single_section(struct ctx *c, const char *name, int col)
{
	static const struct { const char *name; enum section s; } singles[] = {
		{ "campaign", S_CAMPAIGN }, { "void", S_VOID }, { "profile", S_PROFILE },
		{ "inherited", S_INHERITED }, { "verdict", S_VERDICT },
	};
	for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
		if (strcmp(name, singles[i].name) != 0)
			continue;
		enum section s = singles[i].s;
		if (c->section_line[s]) {
			report(c, c->line, col, "section [%s] given twice (first on line %d)", name,
			       c->section_line[s]);
			return S_BAD;
		}
		c->section_line[s] = c->line;
		if (s == S_PROFILE)
			c->plan->has_profile_env = true;
		if (s == S_INHERITED)
			c->plan->has_inherited = true;
		return s;
	}
	return S_NONE;
}

/* [build NAME]: a new build, which the keys after it fill. */
static enum section build_section(struct ctx *c, const char *arg, int col, int arg_col)
{
	struct plan *p = c->plan;
	char buf[64];
	if (!*arg) {
		report(c, c->line, col, "[build] needs a name: [build NAME]");
		return S_BAD;
	}
	if (!plan_name_valid(arg, PLAN_MAX_NAME)) {
		report(c, c->line, arg_col,
		       "bad build name '%s': use letters, digits, '.', '_' and '-' (at most %d)",
		       shown(arg, buf, sizeof buf), PLAN_MAX_NAME);
		return S_BAD;
	}
	for (size_t i = 0; i < p->n_builds; i++) {
		if (strcmp(p->builds[i].name, arg) == 0) {
			report(c, c->line, arg_col, "build '%s' given twice (first on line %d)", arg,
			       p->builds[i].pos.line);
			return S_BAD;
		}
	}
	if (p->n_builds >= PLAN_MAX_BUILDS) {
		report(c, c->line, col, "more than %d builds", PLAN_MAX_BUILDS);
		return S_BAD;
	}
	struct plan_build *b = realloc(p->builds, (p->n_builds + 1) * sizeof *b);
	if (!b) {
		c->oom = true;
		return S_BAD;
	}
	p->builds = b;
	b = &p->builds[p->n_builds];
	*b = (struct plan_build){ .pos = { c->line, col } };
	if (!(b->name = strdup(arg))) {
		c->oom = true;
		return S_BAD;
	}
	p->n_builds++;
	c->build = b;
	return S_BUILD;
}

/* [arm X]: a new arm, which the keys after it fill. */
static enum section arm_section(struct ctx *c, const char *arg, int col, int arg_col)
{
	struct plan *p = c->plan;
	char buf[64];
	if (!*arg) {
		report(c, c->line, col, "[arm] needs a letter: [arm A]");
		return S_BAD;
	}
	if (strlen(arg) != 1 || arg[0] < 'A' || arg[0] > 'Z') {
		report(c, c->line, arg_col, "bad arm '%s': an arm is one capital letter, A to Z",
		       shown(arg, buf, sizeof buf));
		return S_BAD;
	}
	for (size_t i = 0; i < p->n_arms; i++) {
		if (p->arms[i].letter == arg[0]) {
			report(c, c->line, arg_col, "arm %c given twice (first on line %d)", arg[0],
			       p->arms[i].pos.line);
			return S_BAD;
		}
	}
	struct plan_arm *a = realloc(p->arms, (p->n_arms + 1) * sizeof *a);
	if (!a) {
		c->oom = true;
		return S_BAD;
	}
	p->arms = a;
	a = &p->arms[p->n_arms++];
	*a = (struct plan_arm){ .letter = arg[0], .pos = { c->line, col } };
	c->arm = a;
	return S_ARM;
}

static enum section parse_section(struct ctx *c, const char *t, size_t n, int col)
{
	char name[64];
	char buf[64];
	while (n > 0 && is_space(t[0])) {
		t++;
		n--;
		col++;
	}
	while (n > 0 && is_space(t[n - 1]))
		n--;
	if (n >= sizeof name) {
		report(c, c->line, col, "section name longer than %zu characters", sizeof name - 1);
		return S_BAD;
	}
	memcpy(name, t, n);
	name[n] = 0;
	c->build = NULL;
	c->arm = NULL;
	c->last_key = -1;
	for (int k = 0; k < K_COUNT; k++)
		c->key_line[k] = 0;

	enum section s = single_section(c, name, col);
	if (s != S_NONE)
		return s;
	size_t w = 0;
	while (w < n && !is_space(name[w]))
		w++;
	const char *arg = name + w;
	while (*arg && is_space(*arg))
		arg++;
	int arg_col = col + (int)(arg - name);
	if (w == 5 && strncmp(name, "build", 5) == 0)
		return build_section(c, arg, col, arg_col);
	if (w == 3 && strncmp(name, "arm", 3) == 0)
		return arm_section(c, arg, col, arg_col);
	report(c, c->line, col,
	       "unknown section [%s] (expected [campaign], [build NAME], [arm X], [void], "
	       "[verdict], [profile] or [inherited])", shown(name, buf, sizeof buf));
	return S_BAD;
}

/* ---- keys ------------------------------------------------------------------ */

static int set_str(struct ctx *c, char **field, const char *v)
{
	char *copy = strdup(v);
	if (!copy) {
		c->oom = true;
		return -ENOMEM;
	}
	free(*field);
	*field = copy;
	return 0;
}

static void set_duration(struct ctx *c, double *field, const char *key, const char *v, int col,
                         bool positive)
{
	double s;
	char buf[64];
	if (plan_parse_duration_s(v, &s) < 0 || (positive && s <= 0)) {
		report(c, c->line, col, "%s '%s': expected a %sduration such as 10s, 500ms or 2min",
		       key, shown(v, buf, sizeof buf), positive ? "positive " : "");
		return;
	}
	*field = s;
}

/* gpu_clock = 1600 (MHz, "MHz" may follow), the shader clock an arm runs at. */
static void set_gpu_clock(struct ctx *c, unsigned *field, const char *v, int col)
{
	char buf[64], *end;
	errno = 0;
	unsigned long mhz = strtoul(v, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || end == v || !isdigit((unsigned char)v[0]) ||
	    (*end && strcasecmp(end, "mhz") != 0) || mhz < 1 || mhz > 10000) {
		report(c, c->line, col, "gpu_clock '%s': expected a shader clock in MHz such as 1600",
		       shown(v, buf, sizeof buf));
		return;
	}
	*field = (unsigned)mhz;
}

/* tdp_w = 12 (W), the TDP limit an arm runs at. */
static void set_tdp_w(struct ctx *c, double *field, const char *v, int col)
{
	char buf[64], *end;
	errno = 0;
	double w = strtod(v, &end);
	if (errno || end == v || !isdigit((unsigned char)v[0]) || *end || !(w > 0 && w <= 500)) {
		report(c, c->line, col, "tdp_w '%s': expected a TDP limit in watts such as 12",
		       shown(v, buf, sizeof buf));
		return;
	}
	*field = w;
}

static void add_env(struct ctx *c, struct plan_strv *list, const char *key, const char *v, int col)
{
	char buf[64];
	const char *eq = strchr(v, '=');
	if (!eq) {
		report(c, c->line, col, "%s '%s': expected KEY=VALUE", key, shown(v, buf, sizeof buf));
		return;
	}
	size_t k = (size_t)(eq - v);
	while (k > 0 && is_space(v[k - 1]))
		k--;
	if (!plan_env_key_valid(v, k) || k != (size_t)(eq - v)) {
		report(c, c->line, col,
		       "%s '%s': the name before '=' must be letters, digits and '_', not starting "
		       "with a digit, with no space before '='", key, shown(v, buf, sizeof buf));
		return;
	}
	if (plan_strv_setenv(list, v) < 0)
		c->oom = true;
}

static void add_words(struct ctx *c, struct plan_strv *list, const char *key, const char *v,
                      int col)
{
	size_t bad = 0;
	int rc = plan_split_words(v, list, &bad);
	if (rc == -ENOMEM)
		c->oom = true;
	else if (rc < 0)
		report(c, c->line, col + (int)bad, "%s: %s", key,
		       v[bad] == '\\' ? "a backslash at the end of the value escapes nothing"
		                      : "this quote is not closed on the line");
}

static void set_void_number(struct ctx *c, double *field, const char *key, const char *v, int col,
                            double max, const char *what)
{
	char buf[64];
	double d;
	if (strcasecmp(v, "off") == 0) {
		*field = 0;
		return;
	}
	if (parse_number(v, 0, max, &d) < 0) {
		report(c, c->line, col, "%s '%s': expected %s, or 'off'", key,
		       shown(v, buf, sizeof buf), what);
		return;
	}
	*field = d;
}

static void campaign_name(struct ctx *c, const char *v, int col)
{
	char buf[64];
	if (!plan_name_valid(v, PLAN_MAX_NAME)) {
		report(c, c->line, col,
		       "name '%s': use letters, digits, '.', '_' and '-', not starting with '.' "
		       "or '-' (at most %d)", shown(v, buf, sizeof buf), PLAN_MAX_NAME);
		return;
	}
	set_str(c, &c->plan->name, v);
}

/* notes: every line is kept, joined by newlines. */
static void campaign_notes(struct ctx *c, const char *v)
{
	struct plan *p = c->plan;
	if (!*v)
		return;
	if (!p->notes) {
		set_str(c, &p->notes, v);
		return;
	}
	size_t a = strlen(p->notes), b = strlen(v);
	char *n = realloc(p->notes, a + b + 2);
	if (!n) {
		c->oom = true;
		return;
	}
	n[a] = '\n';
	memcpy(n + a + 1, v, b + 1);
	p->notes = n;
}

/* route, profile, collect: a file or name, and where it was given. */
static void campaign_file(struct ctx *c, enum key k, const char *v, int col)
{
	struct plan *p = c->plan;
	if (!*v) {
		report(c, c->line, col, "%s: expected a %s", keys[k].name,
		       k == K_ROUTE ? "route file" : "profile name or file");
		return;
	}
	set_str(c, k == K_ROUTE ? &p->route : k == K_PROFILE ? &p->profile : &p->collect, v);
	(k == K_ROUTE ? &p->route_pos : k == K_PROFILE ? &p->profile_pos : &p->collect_pos)[0] =
		(struct plan_pos){ c->line, col };
}

static void campaign_order(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	size_t n = strlen(v);
	if (n == 0 || n > PLAN_MAX_ORDER) {
		report(c, c->line, col, "order: expected 1 to %d arm letters, such as ABCDDCBA",
		       PLAN_MAX_ORDER);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 'A' || v[i] > 'Z') {
			report(c, c->line, col + (int)i,
			       "order '%s': '%c' is not an arm letter (A to Z, no spaces)",
			       shown(v, buf, sizeof buf), isprint((unsigned char)v[i]) ? v[i] : '?');
			return;
		}
	}
	set_str(c, &p->order, v);
	p->order_pos = (struct plan_pos){ c->line, col };
}

/* rounds, max_rounds: a whole number of rounds. */
static void set_rounds(struct ctx *c, int *field, const char *key, const char *v, int col)
{
	char buf[64];
	double d;
	if (parse_number(v, 1, PLAN_MAX_ROUNDS, &d) < 0 || d != floor(d)) {
		report(c, c->line, col, "%s '%s': expected a whole number from 1 to %d", key,
		       shown(v, buf, sizeof buf), PLAN_MAX_ROUNDS);
		return;
	}
	*field = (int)d;
}

static void campaign_until(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	int64_t t;
	if (plan_until_resolve(v, 0, &t) < 0) {
		report(c, c->line, col,
		       "until '%s': expected a time of day HH:MM (07:00) or a date and time "
		       "YYYY-MM-DD HH:MM", shown(v, buf, sizeof buf));
		return;
	}
	set_str(c, &p->until, v);
	p->until_pos = (struct plan_pos){ c->line, col };
}

static void campaign_warmup(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	bool yes;
	if (strcasecmp(v, "each") == 0)
		p->warmup = PLAN_WARMUP_EACH;
	else if (strcasecmp(v, "first") == 0)
		p->warmup = PLAN_WARMUP_FIRST;
	else if (parse_bool(v, &yes) == 0)
		p->warmup = yes ? PLAN_WARMUP_FIRST : PLAN_WARMUP_NO;
	else
		report(c, c->line, col, "warmup '%s': expected each, first or no",
		       shown(v, buf, sizeof buf));
}

static void campaign_watchdog(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	set_duration(c, &p->watchdog_s, "watchdog", v, col, true);
	if (p->watchdog_s > 0 && p->watchdog_s < PLAN_MIN_WATCHDOG_S)
		report(c, c->line, col, "watchdog '%s' is too short: the frame log is flushed "
		       "once a second, so give at least %ds", shown(v, buf, sizeof buf),
		       PLAN_MIN_WATCHDOG_S);
}

/* inherit: variable names, each kept once. */
static void campaign_inherit(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	struct plan_strv words = { 0 };
	add_words(c, &words, "inherit", v, col);
	for (size_t i = 0; i < words.n; i++) {
		if (!plan_env_key_valid(words.v[i], strlen(words.v[i]))) {
			report(c, c->line, col, "inherit '%s': not an environment variable name",
			       shown(words.v[i], buf, sizeof buf));
			continue;
		}
		if (!plan_strv_contains(&p->inherit, words.v[i]) &&
		    plan_strv_push(&p->inherit, words.v[i]) < 0)
			c->oom = true;
	}
	plan_strv_finish(&words);
}

static void campaign_pad(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	if (strcmp(v, "auto") == 0)
		p->pad = PLAN_PAD_AUTO;
	else if (strcmp(v, "uinput") == 0)
		p->pad = PLAN_PAD_UINPUT;
	else if (strcmp(v, "socket") == 0)
		p->pad = PLAN_PAD_SOCKET;
	else if (strcmp(v, "none") == 0)
		p->pad = PLAN_PAD_NONE;
	else
		report(c, c->line, col, "pad '%s': expected auto, uinput, socket or none",
		       shown(v, buf, sizeof buf));
}

static void campaign_min_battery(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	char *end;
	double pct = strcmp(v, "off") == 0 ? 0 : strtod(v, &end);
	if (strcmp(v, "off") == 0)
		p->min_battery_pct = 0;
	else if (end == v || *end || !isdigit((unsigned char)v[0]) || pct > 100)
		report(c, c->line, col, "min_battery_pct '%s': expected a percentage from 0 to 100",
		       shown(v, buf, sizeof buf));
	else
		p->min_battery_pct = pct;
}

static void campaign_frames(struct ctx *c, const char *v, int col)
{
	struct plan *p = c->plan;
	char buf[64];
	if (strcmp(v, "rxvk") == 0)
		p->frames = PLAN_FRAMES_RXVK;
	else if (strcmp(v, "mangohud") == 0)
		p->frames = PLAN_FRAMES_MANGOHUD;
	else
		report(c, c->line, col, "frames '%s': expected rxvk or mangohud",
		       shown(v, buf, sizeof buf));
}

/* A key of [campaign]: each is one named step above, or a duration. */
static void campaign_key(struct ctx *c, enum key k, const char *v, int col, bool cont)
{
	struct plan *p = c->plan;
	(void)cont;
	switch (k) {
	case K_NAME:
		campaign_name(c, v, col);
		return;
	case K_NOTES:
		campaign_notes(c, v);
		return;
	case K_ROUTE:
	case K_PROFILE:
	case K_COLLECT:
		campaign_file(c, k, v, col);
		return;
	case K_ORDER:
		campaign_order(c, v, col);
		return;
	case K_ROUNDS:
		set_rounds(c, &p->rounds, "rounds", v, col);
		return;
	case K_MAX_ROUNDS:
		set_rounds(c, &p->max_rounds, "max_rounds", v, col);
		return;
	case K_UNTIL:
		campaign_until(c, v, col);
		return;
	case K_WARMUP:
		campaign_warmup(c, v, col);
		return;
	case K_WATCHDOG:
		campaign_watchdog(c, v, col);
		return;
	case K_START_TIMEOUT:
		set_duration(c, &p->start_timeout_s, "start_timeout", v, col, true);
		return;
	case K_START_DELAY:
		set_duration(c, &p->start_delay_s, "start_delay", v, col, false);
		return;
	case K_HARD_LIMIT:
		if (strcmp(v, "auto") == 0)
			p->hard_limit_s = 0;
		else
			set_duration(c, &p->hard_limit_s, "hard_limit", v, col, true);
		return;
	case K_STOP_TIMEOUT:
		set_duration(c, &p->stop_timeout_s, "stop_timeout", v, col, true);
		return;
	case K_INHERIT:
		campaign_inherit(c, v, col);
		return;
	case K_PAD:
		campaign_pad(c, v, col);
		return;
	case K_GPU_CLOCK:
		set_gpu_clock(c, &p->gpu_clock_mhz, v, col);
		return;
	case K_TDP_W:
		set_tdp_w(c, &p->tdp_w, v, col);
		return;
	case K_MIN_BATTERY:
		campaign_min_battery(c, v, col);
		return;
	case K_FRAMES:
		campaign_frames(c, v, col);
		return;
	default:
		return;
	}
}

static void build_key(struct ctx *c, enum key k, const char *v, int col)
{
	struct plan_build *b = c->build;
	char buf[64];
	switch (k) {
	case K_BINARY:
	case K_COMMAND:
		if (k == K_BINARY ? c->key_line[K_COMMAND] : c->key_line[K_BINARY]) {
			report(c, c->line, col, "give 'binary' or 'command', not both");
			return;
		}
		if (k == K_BINARY) {
			if (!*v) {
				report(c, c->line, col, "binary: expected a program");
				return;
			}
			if (plan_strv_push(&b->argv, v) < 0)
				c->oom = true;
		} else {
			add_words(c, &b->argv, "command", v, col);
		}
		if (!b->argv_pos.line)
			b->argv_pos = (struct plan_pos){ c->line, col };
		return;
	case K_COMMIT:
		set_str(c, &b->commit, v);
		return;
	case K_LAUNCHER:
		add_words(c, &b->launcher, "launcher", v, col);
		if (!b->launcher_pos.line)
			b->launcher_pos = (struct plan_pos){ c->line, col };
		return;
	case K_WORKDIR:
		if (!*v) {
			report(c, c->line, col, "workdir: expected a folder");
			return;
		}
		set_str(c, &b->workdir, v);
		return;
	case K_PAD_OPTION:
		if (!*v || strchr(v, ' ') || strchr(v, '\t')) {
			report(c, c->line, col, "pad_option '%s': expected one option word (--pad) or none",
			       shown(v, buf, sizeof buf));
			return;
		}
		set_str(c, &b->pad_option, v);
		return;
	default:
		return;
	}
}

static void arm_key(struct ctx *c, enum key k, const char *v, int col)
{
	struct plan_arm *a = c->arm;
	char buf[64];
	switch (k) {
	case K_LABEL:
		set_str(c, &a->label, v);
		return;
	case K_BUILD:
		if (!plan_name_valid(v, PLAN_MAX_NAME)) {
			report(c, c->line, col, "build '%s': not a build name", shown(v, buf, sizeof buf));
			return;
		}
		set_str(c, &a->build, v);
		a->build_pos = (struct plan_pos){ c->line, col };
		return;
	case K_ENV:
		if (*v)
			add_env(c, &a->env, "env", v, col);
		return;
	case K_ARGS:
		add_words(c, &a->args, "args", v, col);
		return;
	case K_ARM_GPU_CLOCK:
		set_gpu_clock(c, &a->gpu_clock_mhz, v, col);
		return;
	case K_ARM_TDP_W:
		set_tdp_w(c, &a->tdp_w, v, col);
		return;
	default:
		return;
	}
}

static void void_key(struct ctx *c, enum key k, const char *v, int col)
{
	struct plan_void_rules *r = &c->plan->void_rules;
	switch (k) {
	case K_SWAP_FACTOR:
		set_void_number(c, &r->swap_factor, "swap_factor", v, col, 1e6, "a factor such as 1.5");
		return;
	case K_SWAP_MIN_PAGES:
		set_void_number(c, &r->swap_min_pages, "swap_min_pages", v, col, 1e15, "a number of pages");
		return;
	case K_SHOT_LUMA:
		set_void_number(c, &r->shot_luma, "shot_luma", v, col, 255, "a luma difference from 0 to 255");
		return;
	case K_CLOCK_DROP_PCT:
		set_void_number(c, &r->clock_drop_pct, "clock_drop_pct", v, col, 100, "a percentage from 0 to 100");
		return;
	case K_TEMP_MAX_C:
		set_void_number(c, &r->temp_max_c, "temp_max_c", v, col, 200, "degrees Celsius");
		return;
	case K_MIN_COVERAGE:
		set_void_number(c, &r->min_coverage_pct, "min_coverage", v, col, 100,
		                "a percentage of the window from 0 to 100");
		return;
	default:
		return;
	}
}

/* [verdict] primary = METRIC...: known metric keys, each once. */
static void verdict_primary(struct ctx *c, const char *v, int col)
{
	struct plan_strv words = { 0 };
	char buf[64];
	size_t bad = 0;
	int rc = plan_split_words(v, &words, &bad);
	if (rc == -ENOMEM) {
		c->oom = true;
		return;
	}
	if (rc < 0 || words.n == 0) {
		report(c, c->line, col, "primary: expected one or more metric keys (real_fps p99_ms)");
		plan_strv_finish(&words);
		return;
	}
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		int wcol = col + (int)(strstr(v, w) ? strstr(v, w) - v : 0);
		if (!stats_metric_find(w)) {
			report(c, c->line, wcol, "primary: unknown metric '%s' (see docs/metrics.md)",
			       shown(w, buf, sizeof buf));
			continue;
		}
		bool dup = false;
		for (size_t j = 0; j < c->plan->verdict.primary.n; j++)
			dup |= strcmp(c->plan->verdict.primary.v[j], w) == 0;
		if (dup) {
			report(c, c->line, wcol, "primary: metric '%s' named twice", w);
			continue;
		}
		if (plan_strv_push(&c->plan->verdict.primary, w) < 0)
			c->oom = true;
	}
	plan_strv_finish(&words);
}

/* [verdict] time_terms = narrowest | drop-orthogonal. */
static void verdict_time_terms(struct ctx *c, const char *v, int col)
{
	char buf[64];
	if (strcmp(v, "narrowest") == 0)
		c->plan->verdict.time_terms = PLAN_TIME_TERMS_NARROWEST;
	else if (strcmp(v, "drop-orthogonal") == 0)
		c->plan->verdict.time_terms = PLAN_TIME_TERMS_DROP;
	else
		report(c, c->line, col, "time_terms '%s': expected narrowest or drop-orthogonal",
		       shown(v, buf, sizeof buf));
}

/* [verdict] METRIC = N % (or N): the metric's minimum effect, % of the
 * baseline's mean. */
static void verdict_min_effect(struct ctx *c, const char *key, const char *v, int key_col, int col)
{
	struct plan_verdict *pv = &c->plan->verdict;
	char buf[64];
	for (size_t i = 0; i < pv->n_min_effects; i++)
		if (strcmp(pv->min_effects[i].key, key) == 0) {
			report(c, c->line, key_col, "'%s' given twice in this section", key);
			return;
		}
	char num[64];
	size_t n = strlen(v);
	if (n >= sizeof num)
		n = sizeof num - 1;
	memcpy(num, v, n);
	num[n] = 0;
	while (n && (num[n - 1] == ' ' || num[n - 1] == '\t'))
		num[--n] = 0;
	if (n && num[n - 1] == '%') {
		num[--n] = 0;
		while (n && (num[n - 1] == ' ' || num[n - 1] == '\t'))
			num[--n] = 0;
	}
	double d;
	if (parse_number(num, 0, 100, &d) < 0 || !(d > 0)) {
		report(c, c->line, col, "%s '%s': expected a minimum effect in %% of the baseline "
		       "such as '2 %%' (above 0, at most 100)", key, shown(v, buf, sizeof buf));
		return;
	}
	struct plan_min_effect *m = realloc(pv->min_effects, (pv->n_min_effects + 1) * sizeof *m);
	if (!m) {
		c->oom = true;
		return;
	}
	pv->min_effects = m;
	snprintf(m[pv->n_min_effects].key, sizeof m->key, "%s", key);
	m[pv->n_min_effects].pct = d;
	pv->n_min_effects++;
}

static void handle_pair(struct ctx *c, const char *name, const char *value, bool cont,
                        int key_col, int col);

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *c = user;
	(void)section;
	if (c->oom || !*name)
		return 1; /* an empty key name was reported by the reader */
	bool cont = c->raw_len > 0 && is_space(c->raw[0]) &&
	            !(c->line == 1 && c->raw_len >= 3 && memcmp(c->raw, "\xef\xbb\xbf", 3) == 0);
	/* where the value starts in the raw line */
	const char *vp = c->raw;
	const char *end = c->raw + c->raw_len;
	int key_col = 1;
	if (cont) {
		while (vp < end && is_space(*vp))
			vp++;
	} else {
		while (vp < end && is_space(*vp))
			vp++;
		key_col = column_of(c, vp);
		while (vp < end && *vp != '=' && *vp != ':')
			vp++;
		if (vp < end)
			vp++;
		while (vp < end && is_space(*vp))
			vp++;
	}
	int col = column_of(c, vp);

	/* Some inih versions keep an inline comment on a continuation line:
	 * cut it here so every version reads a plan the same way. */
	char *stripped = NULL;
	if (cont) {
		size_t n = strlen(value);
		size_t cut = find_comment(value, 0, n);
		if (cut < n) {
			while (cut > 0 && is_space(value[cut - 1]))
				cut--;
			if (!(stripped = strndup(value, cut))) {
				c->oom = true;
				return 1;
			}
			value = stripped;
		}
	}
	handle_pair(c, name, value, cont, key_col, col);
	free(stripped);
	return 1;
}

static void handle_pair(struct ctx *c, const char *name, const char *value, bool cont,
                        int key_col, int col)
{
	if (c->section == S_BAD)
		return;
	if (c->section == S_NONE) {
		if (!cont)
			report(c, c->line, key_col, "'%s' comes before any section (start with [campaign])",
			       name);
		c->section = S_BAD; /* one message is enough */
		return;
	}
	enum section want = c->section == S_PROFILE || c->section == S_INHERITED ? S_ARM : c->section;
	int k = -1;
	for (int i = 0; i < K_COUNT; i++) {
		if (keys[i].section == want && strcmp(keys[i].name, name) == 0) {
			k = i;
			break;
		}
	}
	if ((c->section == S_PROFILE || c->section == S_INHERITED) && k != K_ENV)
		k = -1;
	if (c->section == S_VERDICT && k == K_MIN_EFFECT)
		k = -1;
	if (c->section == S_VERDICT && k < 0 && !cont && stats_metric_find(name)) {
		verdict_min_effect(c, name, value, key_col, col);
		c->last_key = -1;
		return;
	}
	if (k < 0) {
		if (cont)
			return; /* the key line was reported */
		char list[256] = "";
		size_t n = 0;
		for (int i = 0; i < K_COUNT; i++) {
			if (keys[i].section != want ||
			    ((c->section == S_PROFILE || c->section == S_INHERITED) && i != K_ENV))
				continue;
			int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", keys[i].name);
			if (w > 0 && (size_t)w < sizeof list - n)
				n += (size_t)w;
		}
		report(c, c->line, key_col, "unknown key '%s' in %s (known: %s)", name,
		       section_title(c->section), list);
		c->last_key = -1;
		return;
	}
	if (cont) {
		if (!keys[k].multi) {
			report(c, c->line, col,
			       "'%s' takes one line; an indented line continues the key above it "
			       "(start keys at the first column)", name);
			return;
		}
	} else if (c->key_line[k] && !keys[k].multi) {
		report(c, c->line, key_col, "'%s' given twice in this section (first on line %d)", name,
		       c->key_line[k]);
		return;
	} else if (!c->key_line[k]) {
		c->key_line[k] = c->line;
		c->key_col[k] = key_col;
	}
	c->last_key = k;

	switch (c->section) {
	case S_CAMPAIGN:
		campaign_key(c, (enum key)k, value, col, cont);
		break;
	case S_BUILD:
		build_key(c, (enum key)k, value, col);
		break;
	case S_ARM:
		arm_key(c, (enum key)k, value, col);
		break;
	case S_VOID:
		void_key(c, (enum key)k, value, col);
		break;
	case S_VERDICT:
		if (k == K_TIME_TERMS)
			verdict_time_terms(c, value, col);
		else
			verdict_primary(c, value, col);
		break;
	case S_PROFILE:
		if (*value)
			add_env(c, &c->plan->profile_env, "env", value, col);
		break;
	case S_INHERITED:
		if (*value)
			add_env(c, &c->plan->inherited_env, "env", value, col);
		break;
	default:
		break;
	}
}

/* ---- checks across keys ---------------------------------------------------- */

static int add_default_build(struct plan *p)
{
	struct plan_build *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	if (!(b->name = strdup("forest")) || plan_strv_push(&b->argv, "forest") < 0) {
		free(b->name);
		free(b);
		return -ENOMEM;
	}
	p->builds = b;
	p->n_builds = 1;
	return 0;
}

bool plan_build_is_demo(const struct plan_build *b)
{
	if (b->argv.n == 0)
		return false;
	const char *prog = b->argv.v[0];
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	return strcmp(prog, "forest") == 0 || strcmp(base, "rxdeck-forest") == 0;
}

/* Defaults that depend on other keys, once after the file: the demo game
 * is told where the pad is with --pad unless pad_option says otherwise. */
static void fill_defaults(struct ctx *c)
{
	struct plan *p = c->plan;
	if (p->n_builds == 0 && add_default_build(p) < 0) {
		c->oom = true;
		return;
	}
	for (size_t i = 0; i < p->n_builds; i++) {
		struct plan_build *b = &p->builds[i];
		if (!b->pad_option && plan_build_is_demo(b) && set_str(c, &b->pad_option, "--pad") < 0)
			return;
		if (b->pad_option && strcmp(b->pad_option, "none") == 0) {
			free(b->pad_option);
			b->pad_option = NULL;
		}
	}
	if (!p->order && p->n_arms > 0 && 2 * p->n_arms <= PLAN_MAX_ORDER) {
		char *o = malloc(2 * p->n_arms + 1);
		if (!o) {
			c->oom = true;
			return;
		}
		for (size_t i = 0; i < p->n_arms; i++)
			o[i] = o[2 * p->n_arms - 1 - i] = p->arms[i].letter;
		o[2 * p->n_arms] = 0;
		p->order = o;
	}
}

/* Checks what needs the whole plan; reports through c.  Also fills the
 * defaults that depend on other keys. */
static void check(struct ctx *c)
{
	struct plan *p = c->plan;
	for (size_t i = 0; i < p->n_builds; i++) {
		struct plan_build *b = &p->builds[i];
		if (b->argv.n == 0)
			report(c, b->pos.line, b->pos.column,
			       "build '%s' needs 'binary' or 'command' (the program to run)", b->name);
	}
	if (p->n_arms == 0)
		report(c, 0, 0, "the plan has no arm: add at least one [arm X] section");
	for (size_t i = 0; i < p->n_arms; i++) {
		struct plan_arm *a = &p->arms[i];
		if (a->build && !plan_build_find(p, a->build)) {
			char list[160] = "";
			size_t n = 0;
			for (size_t k = 0; k < p->n_builds; k++) {
				int w = snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", p->builds[k].name);
				if (w > 0 && (size_t)w < sizeof list - n)
					n += (size_t)w;
			}
			report(c, a->build_pos.line, a->build_pos.column,
			       "arm %c: no build '%s' in the plan (builds: %s)", a->letter, a->build, list);
		}
	}
	if (p->order) {
		for (const char *o = p->order; *o; o++) {
			if (!plan_arm_find(p, *o)) {
				report(c, p->order_pos.line, p->order_pos.column + (int)(o - p->order),
				       "order '%s': there is no [arm %c]", p->order, *o);
				break;
			}
		}
		for (size_t i = 0; i < p->n_arms; i++) {
			if (!strchr(p->order, p->arms[i].letter)) {
				report(c, p->order_pos.line, p->order_pos.column,
				       "order '%s' never runs arm %c (defined on line %d)", p->order,
				       p->arms[i].letter, p->arms[i].pos.line);
				break;
			}
		}
	} else if (2 * p->n_arms > PLAN_MAX_ORDER) {
		report(c, 0, 0, "too many arms for the default order");
	}
	if (p->rounds && p->until)
		report(c, p->until_pos.line, p->until_pos.column,
		       "give 'rounds' or 'until', not both");
}

/* ---- entry points ---------------------------------------------------------- */

void plan_defaults(struct plan *p)
{
	p->warmup = PLAN_WARMUP_EACH;
	p->watchdog_s = 10;
	p->min_battery_pct = 10;
	p->start_timeout_s = 120;
	p->start_delay_s = 0;
	p->hard_limit_s = 0;
	p->stop_timeout_s = 10;
	p->void_rules = (struct plan_void_rules){
		.swap_factor = 1.5,
		.swap_min_pages = 10000,
		.shot_luma = 16,
		.clock_drop_pct = 10,
		.temp_max_c = 0,
		.min_coverage_pct = 90,
	};
}

static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	if (!slash)
		return strdup(".");
	if (slash == name)
		return strdup("/");
	return strndup(name, (size_t)(slash - name));
}

int plan_parse(const char *name, const char *text, size_t len,
               const struct plan_parse_options *opt, struct plan **out, struct util_diag *err)
{
	if (!name)
		name = "plan";
	struct plan *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	plan_defaults(p);
	p->path = strdup(name);
	p->dir = opt && opt->dir ? strdup(opt->dir) : dir_of(name);
	p->text = malloc(len + 1);
	if (!p->path || !p->dir || !p->text) {
		plan_free(p);
		return -ENOMEM;
	}
	memcpy(p->text, text, len);
	p->text[len] = 0;

	struct ctx c = { .plan = p, .opt = opt, .data = text, .len = len, .last_key = -1 };
	int rc = ini_parse_stream(reader, &c, handler, &c);
	if (rc == -2)
		c.oom = true;
	else if (rc > 0 && c.n_errors == 0)
		report(&c, rc, 1, "cannot read this line (expected 'key = value', a [section] or a comment)");
	if (!c.oom)
		fill_defaults(&c);
	if (!c.oom)
		check(&c);
	if (c.oom) {
		plan_free(p);
		return -ENOMEM;
	}
	if (c.n_errors > MAX_ERRORS && c.opt && c.opt->on_error) {
		/* the listing stopped at MAX_ERRORS: say so, never silently */
		struct util_diag e = { .line = 0 };
		snprintf(e.file, sizeof e.file, "%s", p->path);
		snprintf(e.message, sizeof e.message, "%d more errors not listed (%d in all)",
		         c.n_errors - MAX_ERRORS, c.n_errors);
		c.opt->on_error(c.opt->error_ctx, &e);
	}
	if (c.n_errors > 0) {
		if (err)
			*err = c.first;
		plan_free(p);
		return -EINVAL;
	}
	*out = p;
	return 0;
}

int plan_load(const char *path, const struct plan_parse_options *opt, struct plan **out,
              struct util_diag *err)
{
	char *text;
	size_t len;
	int rc = util_read_file(path, PLAN_MAX_FILE_B, UTIL_READ_REGULAR, &text, &len);
	if (rc < 0) {
		if (err)
			plan_diag_set(err, path, 0, 0, "cannot open plan '%s': %s", path,
			               rc == -EFBIG ? "larger than 1 MiB, not a plan"
			               : rc == -ENOTSUP ? "not a regular file" : strerror(-rc));
		return rc;
	}
	rc = plan_parse(path, text, len, opt, out, err);
	free(text);
	return rc;
}

int plan_set(struct plan *p, const char *where, const char *key, const char *value,
             struct util_diag *err)
{
	int k = -1;
	for (int i = 0; i < K_COUNT; i++)
		if (keys[i].section == S_CAMPAIGN && strcmp(keys[i].name, key) == 0)
			k = i;
	if (k < 0) {
		if (err)
			plan_diag_set(err, where, 0, 0, "unknown campaign key '%s'", key);
		return -EINVAL;
	}
	struct plan_strv saved_inherit = { 0 };
	if (k == K_INHERIT && plan_strv_copy(&saved_inherit, &p->inherit) < 0)
		return -ENOMEM;
	struct util_diag first;
	/* report() names the file from plan->path: borrow it for `where` */
	char *path = p->path;
	p->path = (char *)where;
	struct ctx c = { .plan = p, .section = S_CAMPAIGN, .last_key = -1 };
	if (k == K_INHERIT)
		plan_strv_finish(&p->inherit);
	campaign_key(&c, (enum key)k, value, 0, false);
	if (c.n_errors == 0 && !c.oom) {
		if (k == K_ROUNDS) {
			free(p->until);
			p->until = NULL;
		} else if (k == K_UNTIL) {
			p->rounds = 0;
		}
		check(&c);
	}
	p->path = path;
	first = c.first;
	if (c.n_errors > 0 || c.oom) {
		if (k == K_INHERIT) {
			plan_strv_finish(&p->inherit);
			p->inherit = saved_inherit;
		}
		if (err && !c.oom)
			*err = first;
		return c.oom ? -ENOMEM : -EINVAL;
	}
	plan_strv_finish(&saved_inherit);
	return 0;
}
