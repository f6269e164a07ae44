/* collect-profile: collector profiles (profiles/NAME.collect), the files
 * that say which log lines mean what.  It owns the profile format
 * (docs/collector-profiles.md): directives, named captures `(?<name>...)`
 * turned into plain POSIX ERE groups for regcomp(), and metric
 * declarations checked against their pattern's captures.  Scanning logs
 * with a profile is collect-log.c's. */
#include "collect-profile-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 64

static const struct {
	const char *name;
	enum collect_agg agg;
	int nargs; /* capture arguments; per() takes a number after them */
} aggs[] = {
	{ "count", AGG_COUNT, 0 },
	{ "sum", AGG_SUM, 1 },
	{ "mean", AGG_MEAN, 1 },
	{ "min", AGG_MIN, 1 },
	{ "max", AGG_MAX, 1 },
	{ "last", AGG_LAST, 1 },
	{ "wmean", AGG_WMEAN, 2 },
	{ "per", AGG_PER, 2 },
};

struct pctx {
	const char *name;
	size_t line_no;
	const char *line; /* start of the current line, for columns */
	struct collect_error *err;
	struct collect_profile *p;
};

static int perr(struct pctx *c, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct pctx *c, const char *at, const char *fmt, ...)
{
	if (c->err) {
		int n = snprintf(c->err->msg, sizeof c->err->msg, "%s:%zu:%zu: ", c->name,
		                 c->line_no, (size_t)(at - c->line) + 1);
		if (n < 0 || (size_t)n >= sizeof c->err->msg)
			return -EINVAL;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err->msg + n, sizeof c->err->msg - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static bool is_name_start(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_name_char(char ch)
{
	return is_name_start(ch) || (ch >= '0' && ch <= '9');
}

/* Reads a name at s; returns its end (== s when there is none). */
static const char *name_end(const char *s, const char *e)
{
	if (s >= e || !is_name_start(*s))
		return s;
	const char *p = s + 1;
	while (p < e && is_name_char(*p))
		p++;
	return p;
}

static int take_name(struct pctx *c, const char *s, const char *e, const char *what,
                     char **out, const char **after)
{
	const char *ne = name_end(s, e);
	if (ne == s)
		return perr(c, s, "expected %s (letters, digits, '_')", what);
	if (ne - s > NAME_MAX_LEN)
		return perr(c, s, "%s is longer than %d characters", what, NAME_MAX_LEN);
	char *n = strndup(s, (size_t)(ne - s));
	if (!n)
		return -ENOMEM;
	*out = n;
	*after = ne;
	return 0;
}

static bool at_end(const char *s, const char *e)
{
	s = skip_ws(s, e);
	return s == e || *s == '#';
}

/* Limits that keep regcomp() small whatever a profile says: glibc copies a
 * repeated part once per repetition ('+' and {m,n} included), so nested
 * repetitions grow exponentially. */
#define REGEX_MAX_LEN 2048
#define REGEX_MAX_DEPTH 32
#define REGEX_MAX_COST 20000.0

/* Skips a bracket expression starting at p ('['); returns its end or NULL. */
static const char *bracket_end(const char *p, const char *e)
{
	p++;
	if (p < e && *p == '^')
		p++;
	if (p < e && *p == ']')
		p++;
	while (p < e) {
		if (*p == '[' && p + 1 < e && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char kind = p[1];
			const char *q = p + 2;
			while (q + 1 < e && !(q[0] == kind && q[1] == ']'))
				q++;
			if (q + 1 >= e)
				return NULL;
			p = q + 2;
			continue;
		}
		if (*p == ']')
			return p + 1;
		p++;
	}
	return NULL;
}

/*
 * Estimates the size regcomp() will build: every atom costs 1, a group the
 * sum of its inside, and a repetition multiplies what it repeats (x2 for
 * '+', m or n + 1 for {m,n}).  Also refuses two repetitions in a row,
 * which POSIX leaves undefined.  Bracket and escape errors are left to
 * convert_regex() and regcomp().
 */
static int check_cost(struct pctx *c, const char *s, const char *e)
{
	if (e - s > REGEX_MAX_LEN)
		return perr(c, s, "the regular expression is longer than %d characters", REGEX_MAX_LEN);
	double stack[REGEX_MAX_DEPTH + 1];
	int depth = 0;
	double cur = 0, last = 0;
	bool prev_dup = false, have_atom = false;
	for (const char *p = s; p < e;) {
		double factor = 0;
		const char *at = p;
		if (*p == '*' || *p == '+' || *p == '?') {
			factor = *p == '+' ? 2 : 1;
			p++;
		} else if (*p == '{' && have_atom) {
			const char *q = p + 1;
			double lo = 0, hi = -1;
			while (q < e && *q >= '0' && *q <= '9' && lo <= 1e6)
				lo = lo * 10 + (*q++ - '0');
			if (q < e && *q == ',') {
				q++;
				if (q < e && *q >= '0' && *q <= '9') {
					hi = 0;
					while (q < e && *q >= '0' && *q <= '9' && hi <= 1e6)
						hi = hi * 10 + (*q++ - '0');
				}
			} else {
				hi = lo;
			}
			if (q >= e || *q != '}')
				return perr(c, at, "a repetition '{' needs the form {m}, {m,} or {m,n}");
			if (lo > 255 || hi > 255)
				return perr(c, at, "repetition counts above 255 are not allowed");
			factor = (hi > lo ? hi : lo) + 1;
			p = q + 1;
		}
		if (factor > 0) {
			if (prev_dup)
				return perr(c, at, "a repetition right after another one (undefined in POSIX regular expressions)");
			if (!have_atom) {
				/* a leading '*' is literal in some libraries; cost 1 */
				cur += 1;
				last = 1;
				have_atom = true;
				continue;
			}
			cur += last * (factor - 1);
			last *= factor;
			prev_dup = true;
		} else if (*p == '(') {
			if (depth == REGEX_MAX_DEPTH)
				return perr(c, p, "groups nest deeper than %d", REGEX_MAX_DEPTH);
			stack[depth++] = cur;
			cur = 0;
			have_atom = false;
			prev_dup = false;
			p++;
			if (p + 1 < e && p[0] == '?' && p[1] == '<') {
				while (p < e && *p != '>')
					p++;
				if (p < e)
					p++;
			}
			continue;
		} else if (*p == ')' && depth > 0) {
			last = cur + 1;
			cur = stack[--depth] + last;
			have_atom = true;
			prev_dup = false;
			p++;
		} else if (*p == '|') {
			have_atom = false;
			prev_dup = false;
			p++;
			continue;
		} else {
			const char *q = p + 1;
			if (*p == '\\' && p + 1 < e)
				q = p + 2;
			else if (*p == '[')
				q = bracket_end(p, e);
			if (!q)
				return 0; /* convert_regex() names the unclosed '[' */
			p = q;
			cur += 1;
			last = 1;
			have_atom = true;
			prev_dup = false;
		}
		if (cur > REGEX_MAX_COST)
			return perr(c, at, "the regular expression repeats too much (over %.0f parts once expanded)",
			            REGEX_MAX_COST);
	}
	while (depth > 0)
		cur += stack[--depth];
	if (cur > REGEX_MAX_COST)
		return perr(c, s, "the regular expression repeats too much (over %.0f parts once expanded)",
		            REGEX_MAX_COST);
	return 0;
}

/* Copies a bracket expression starting at *pp ('[') to out + *o, with
 * its [:class:], [=equiv=] and [.coll.] parts; *pp ends past its ']'. */
static int copy_bracket(struct pctx *c, const char **pp, const char *e, char *out, size_t *o)
{
	const char *p = *pp, *b = p;
	out[(*o)++] = *p++;
	if (p < e && *p == '^')
		out[(*o)++] = *p++;
	if (p < e && *p == ']')
		out[(*o)++] = *p++;
	for (;;) {
		if (p >= e)
			return perr(c, b, "bracket expression '[' is not closed");
		if (*p == '[' && p + 1 < e && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char kind = p[1];
			const char *q = p + 2;
			while (q + 1 < e && !(q[0] == kind && q[1] == ']'))
				q++;
			if (q + 1 >= e)
				return perr(c, p, "'[%c' is not closed with '%c]'", kind, kind);
			q += 2;
			while (p < q)
				out[(*o)++] = *p++;
			continue;
		}
		if (*p == ']') {
			out[(*o)++] = *p++;
			break;
		}
		out[(*o)++] = *p++;
	}
	*pp = p;
	return 0;
}

/* A named capture '(?<name>' at *pp: its name kept with group, '(' to
 * out + *o; *pp ends past the '>'. */
static int named_capture(struct pctx *c, const char **pp, const char *e,
                         struct collect_pattern *pat, size_t group, char *out, size_t *o)
{
	const char *p = *pp;
	if (p + 2 >= e || p[2] != '<')
		return perr(c, p, "only named captures '(?<name>...)' may follow '(?'");
	const char *ns = p + 3;
	const char *ne = name_end(ns, e);
	if (ne == ns || ne >= e || *ne != '>')
		return perr(c, ns, "expected a capture name and '>' after '(?<'");
	if (ne - ns > NAME_MAX_LEN)
		return perr(c, ns, "capture name is longer than %d characters", NAME_MAX_LEN);
	for (size_t i = 0; i < pat->ncaptures; i++) {
		if (strlen(pat->captures[i].name) == (size_t)(ne - ns) &&
		    memcmp(pat->captures[i].name, ns, (size_t)(ne - ns)) == 0)
			return perr(c, ns, "capture '%.*s' is named twice in pattern '%s'",
			            (int)(ne - ns), ns, pat->name);
	}
	struct collect_capture *v = realloc(pat->captures, (pat->ncaptures + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	pat->captures = v;
	char *n = strndup(ns, (size_t)(ne - ns));
	if (!n)
		return -ENOMEM;
	v[pat->ncaptures].name = n;
	v[pat->ncaptures].group = group;
	pat->ncaptures++;
	out[(*o)++] = '(';
	*pp = ne + 1;
	return 0;
}

/*
 * Turns the profile's regex into a POSIX ERE: `(?<name>` becomes `(` and
 * the group number is kept for the name.  Every unescaped `(` outside a
 * bracket expression opens a group (ERE has no other kind).
 */
static int convert_regex(struct pctx *c, const char *s, const char *e, struct collect_pattern *pat)
{
	size_t len = (size_t)(e - s);
	char *out = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	size_t o = 0;
	size_t group = 0;
	int rc = 0;
	for (const char *p = s; p < e;) {
		if (*p == '\\') {
			if (p + 1 >= e) {
				rc = perr(c, p, "the regular expression ends with a lone '\\'");
				goto fail;
			}
			out[o++] = *p++;
			out[o++] = *p++;
		} else if (*p == '[') {
			if ((rc = copy_bracket(c, &p, e, out, &o)) < 0)
				goto fail;
		} else if (*p == '(' && p + 1 < e && p[1] == '?') {
			if ((rc = named_capture(c, &p, e, pat, ++group, out, &o)) < 0)
				goto fail;
		} else {
			group += *p == '(';
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	pat->ngroups = group;
	pat->regex = out;
	return 0;
fail:
	free(out);
	return rc;
}

static struct collect_pattern *find_pattern(struct collect_profile *p, const char *s, size_t n)
{
	for (size_t i = 0; i < p->npatterns; i++)
		if (strlen(p->patterns[i].name) == n && memcmp(p->patterns[i].name, s, n) == 0)
			return &p->patterns[i];
	return NULL;
}

static int directive_pattern(struct pctx *c, const char *s, const char *e)
{
	struct collect_profile *p = c->p;
	char *name;
	const char *after;
	int rc = take_name(c, s, e, "a pattern name", &name, &after);
	if (rc < 0)
		return rc;
	if (find_pattern(p, name, strlen(name))) {
		rc = perr(c, s, "pattern '%s' is defined twice", name);
		free(name);
		return rc;
	}
	struct collect_pattern *v = realloc(p->patterns, (p->npatterns + 1) * sizeof *v);
	if (!v) {
		free(name);
		return -ENOMEM;
	}
	p->patterns = v;
	struct collect_pattern *pat = &v[p->npatterns];
	memset(pat, 0, sizeof *pat);
	pat->name = name;
	pat->line = c->line_no;
	p->npatterns++; /* from here on collect_profile_destroy() frees it */
	if (after >= e || (*after != ' ' && *after != '\t'))
		return perr(c, after, "expected a regular expression after the pattern name");
	const char *rs = skip_ws(after, e);
	if (rs == e)
		return perr(c, rs, "expected a regular expression after the pattern name");
	rc = check_cost(c, rs, e);
	if (rc < 0)
		return rc;
	rc = convert_regex(c, rs, e, pat);
	if (rc < 0)
		return rc;
	int r = regcomp(&pat->re, pat->regex, REG_EXTENDED);
	if (r != 0) {
		char msg[200];
		regerror(r, &pat->re, msg, sizeof msg);
		return perr(c, rs, "bad regular expression: %s", msg);
	}
	pat->compiled = true;
	if (pat->re.re_nsub != pat->ngroups)
		return perr(c, rs, "cannot count the groups of this regular expression (%zu, regcomp says %zu)",
		            pat->ngroups, (size_t)pat->re.re_nsub);
	return 0;
}

static int capture_index(const struct collect_pattern *pat, const char *s, size_t n)
{
	for (size_t i = 0; i < pat->ncaptures; i++)
		if (strlen(pat->captures[i].name) == n && memcmp(pat->captures[i].name, s, n) == 0)
			return (int)i;
	return -1;
}

static int directive_metric(struct pctx *c, const char *s, const char *e)
{
	struct collect_profile *p = c->p;
	if (p->npatterns == 0)
		return perr(c, s, "'metric' before any 'pattern': a metric aggregates the captures of the pattern above it");
	struct collect_pattern *pat = &p->patterns[p->npatterns - 1];
	char *name;
	const char *q;
	int rc = take_name(c, s, e, "a metric name", &name, &q);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p->nmetrics; i++) {
		if (strcmp(p->metrics[i].name, name) == 0) {
			rc = perr(c, s, "metric '%s' is defined twice", name);
			free(name);
			return rc;
		}
	}
	struct collect_metric_def m = { .name = name, .pattern = p->npatterns - 1, .line = c->line_no };
	q = skip_ws(q, e);
	if (q >= e || *q != '=') {
		rc = perr(c, q, "expected '=' after the metric name");
		goto fail;
	}
	q = skip_ws(q + 1, e);
	const char *fs = q, *fe = name_end(q, e);
	int ai = -1;
	for (size_t i = 0; i < sizeof aggs / sizeof *aggs; i++)
		if (strlen(aggs[i].name) == (size_t)(fe - fs) && memcmp(aggs[i].name, fs, (size_t)(fe - fs)) == 0)
			ai = (int)i;
	if (ai < 0) {
		rc = perr(c, fs, "unknown function '%.*s' (count, sum, mean, min, max, last, wmean, per)",
		          (int)(fe - fs), fs);
		goto fail;
	}
	m.agg = aggs[ai].agg;
	q = skip_ws(fe, e);
	if (q >= e || *q != '(') {
		rc = perr(c, q, "expected '(' after '%s'", aggs[ai].name);
		goto fail;
	}
	q = skip_ws(q + 1, e);
	for (int k = 0; k < aggs[ai].nargs; k++) {
		if (k > 0) {
			if (q >= e || *q != ',') {
				rc = perr(c, q, "%s() takes %d captures of pattern '%s'; expected ','",
				          aggs[ai].name, aggs[ai].nargs, pat->name);
				goto fail;
			}
			q = skip_ws(q + 1, e);
		}
		const char *as = q, *ae = name_end(q, e);
		if (ae == as) {
			rc = perr(c, as, "expected a capture name of pattern '%s'", pat->name);
			goto fail;
		}
		int ci = capture_index(pat, as, (size_t)(ae - as));
		if (ci < 0) {
			rc = perr(c, as, "pattern '%s' has no capture '%.*s'", pat->name, (int)(ae - as), as);
			goto fail;
		}
		m.arg[k] = ci;
		q = skip_ws(ae, e);
	}
	m.scale = 1.0;
	if (m.agg == AGG_PER) {
		if (q >= e || *q != ',') {
			rc = perr(c, q, "per() takes two captures and a number: per(x, y, 3000)");
			goto fail;
		}
		q = skip_ws(q + 1, e);
		const char *ns = q;
		while (q < e && *q != ')' && *q != ' ' && *q != '\t')
			q++;
		if (collect_parse_number(ns, q, &m.scale) != 0 || !(m.scale > 0)) {
			rc = perr(c, ns, "per()'s scale must be a number above 0");
			goto fail;
		}
		q = skip_ws(q, e);
	}
	if (q >= e || *q != ')') {
		rc = perr(c, q, "expected ')' to close %s(", aggs[ai].name);
		goto fail;
	}
	if (!at_end(q + 1, e)) {
		rc = perr(c, skip_ws(q + 1, e), "unexpected text after the metric");
		goto fail;
	}
	struct collect_metric_def *v = realloc(p->metrics, (p->nmetrics + 1) * sizeof *v);
	if (!v) {
		rc = -ENOMEM;
		goto fail;
	}
	p->metrics = v;
	v[p->nmetrics++] = m;
	return 0;
fail:
	free(m.name);
	return rc;
}

static int parse_line(struct pctx *c, const char *s, const char *e)
{
	const char *k = skip_ws(s, e);
	if (k == e || *k == '#')
		return 0;
	const char *ke = name_end(k, e);
	size_t kn = (size_t)(ke - k);
	const char *arg = skip_ws(ke, e);
	if (kn == 7 && memcmp(k, "pattern", 7) == 0)
		return directive_pattern(c, arg, e);
	if (kn == 6 && memcmp(k, "metric", 6) == 0)
		return directive_metric(c, arg, e);
	if (kn == 4 && memcmp(k, "name", 4) == 0) {
		if (c->p->name_line)
			return perr(c, k, "'name' is given twice (first on line %zu)", c->p->name_line);
		char *n;
		const char *after;
		int rc = take_name(c, arg, e, "a profile name", &n, &after);
		if (rc < 0)
			return rc;
		if (!at_end(after, e)) {
			free(n);
			return perr(c, skip_ws(after, e), "unexpected text after the profile name");
		}
		free(c->p->name);
		c->p->name = n;
		c->p->name_line = c->line_no;
		return 0;
	}
	if (kn == 10 && memcmp(k, "timestamps", 10) == 0) {
		const char *ve = name_end(arg, e);
		if ((size_t)(ve - arg) == 5 && memcmp(arg, "rxlog", 5) == 0)
			c->p->timestamps = true;
		else if ((size_t)(ve - arg) == 4 && memcmp(arg, "none", 4) == 0)
			c->p->timestamps = false;
		else
			return perr(c, arg, "'timestamps' takes 'rxlog' or 'none'");
		if (!at_end(ve, e))
			return perr(c, skip_ws(ve, e), "unexpected text after '%.*s'", (int)(ve - arg), arg);
		return 0;
	}
	if (kn == 0)
		return perr(c, k, "expected a directive (name, timestamps, pattern, metric)");
	return perr(c, k, "unknown directive '%.*s' (name, timestamps, pattern, metric)", (int)kn, k);
}

int collect_profile_parse(const char *name, const char *text, size_t len,
                          struct collect_profile **out, struct collect_error *err)
{
	struct collect_profile *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->timestamps = true;
	p->path = strdup(name ? name : "-");
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	struct pctx c = { .name = p->path, .err = err, .p = p };
	int rc = 0;
	const char *s = text, *end = text + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);
		c.line_no++;
		c.line = s;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		const char *e = s + n;
		const char *nul = memchr(s, '\0', n);
		if (nul) {
			rc = perr(&c, nul, "NUL byte in a profile");
			goto fail;
		}
		rc = parse_line(&c, s, e);
		if (rc < 0)
			goto fail;
		s = nl ? nl + 1 : end;
	}
	if (p->npatterns == 0) {
		c.line_no = c.line_no ? c.line_no : 1;
		c.line = s;
		rc = perr(&c, s, "the profile has no 'pattern'");
		goto fail;
	}
	if (!p->name) {
		/* the file's base name without .collect */
		const char *b = strrchr(p->path, '/');
		b = b ? b + 1 : p->path;
		size_t n = strlen(b);
		if (n > 8 && strcmp(b + n - 8, ".collect") == 0)
			n -= 8;
		p->name = strndup(b, n);
		if (!p->name) {
			rc = -ENOMEM;
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	if (rc == -ENOMEM && err)
		snprintf(err->msg, sizeof err->msg, "%s: out of memory", p->path);
	collect_profile_destroy(p);
	return rc;
}

int collect_profile_load(const char *path, struct collect_profile **out,
                         struct collect_error *err)
{
	char *buf;
	size_t len;
	int rc = collect_read_file("collector profile", path, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = collect_profile_parse(path, buf, len, out, err);
	free(buf);
	return rc;
}

void collect_profile_destroy(struct collect_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->npatterns; i++) {
		struct collect_pattern *pat = &p->patterns[i];
		if (pat->compiled)
			regfree(&pat->re);
		for (size_t k = 0; k < pat->ncaptures; k++)
			free(pat->captures[k].name);
		free(pat->captures);
		free(pat->regex);
		free(pat->name);
	}
	free(p->patterns);
	for (size_t i = 0; i < p->nmetrics; i++)
		free(p->metrics[i].name);
	free(p->metrics);
	free(p->name);
	free(p->path);
	free(p);
}

const char *collect_profile_name(const struct collect_profile *p)
{
	return p->name;
}

size_t collect_profile_metric_count(const struct collect_profile *p)
{
	return p->nmetrics;
}

const char *collect_profile_metric_name(const struct collect_profile *p, size_t i)
{
	return i < p->nmetrics ? p->metrics[i].name : NULL;
}
