/* route-parse: the route file parser (format in docs/routes.md).
 *
 * It owns reading a route file and its includes, expanding repeat blocks,
 * checking the result (times, ranges, overlapping use of one control,
 * the window against the duration), and building the flat, sorted event
 * list of struct route.  Every error is reported with file:line:column and
 * parsing goes on, so `rxdeck route check` lists them all.  Playing the
 * events is route-player.c's business.
 *
 * Inside, every action becomes one or two *steps*: a change of one control
 * (a button, a stick, a trigger, the d-pad) at a time relative to the block
 * it is in, or a point (shot, mark).  A repeat block's steps are copied N
 * times into the enclosing block when it closes; an include's steps are
 * copied into the including block at the include's time.  At the end the
 * top block's steps are absolute; they are sorted (time, then ends before
 * starts, then file order), checked, and turned into pad events.
 */
#include "route.h"
#include "pad/pad.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE_B (16 * 1024 * 1024)
#define MAX_ERRORS 1000
#define MAX_TOKENS 12

enum control {
	C_BUTTON0 = 0, /* + enum pad_button */
	C_STICK_L = PAD_BUTTON_COUNT,
	C_STICK_R,
	C_TRIG_L,
	C_TRIG_R,
	C_DPAD,
	C_SHOT,
	C_MARK,
	C_COUNT
};

/* Sort phase within one instant: ends first, so a control can be freed and
 * set again at the same millisecond; points last. */
enum op { OP_END = 0, OP_SET = 1, OP_POINT = 2 };

enum how { H_PRESS, H_HOLD, H_RELEASE, H_AUTO_END, H_SET, H_POINT };

struct step {
	int64_t t;        /* ms; block-relative while parsing, absolute at the end */
	int64_t until;    /* OP_SET of a timed action: its end (same base); else -1 */
	uint64_t seq;     /* file order */
	uint32_t src;     /* index into ctx->srcs */
	uint32_t name;    /* points: index into ctx->strings */
	int32_t v[2];
	uint16_t base_len; /* points: length of the name as written */
	uint8_t control;
	uint8_t op;
	uint8_t how;
};

struct src {
	uint32_t file; /* index into ctx->files */
	int line, col;
};

struct block {
	struct step *steps;
	size_t n, cap;
	int64_t last_t;   /* the previous line's time, for the order check */
	int64_t start;    /* repeat: the time of its line in the enclosing block */
	int64_t count;    /* repeat: N */
	int64_t every;    /* repeat: the length of one repetition; -1 for other blocks */
	uint32_t src;     /* repeat: its line */
	int unopened;     /* repeat lines inside nested too deep, whose '}' are pending */
};

struct error_item {
	struct util_diag e;
	uint32_t file;
	uint64_t order;
};

struct ctx {
	const struct route_parse_options *opt;
	char **files;       /* names as reported; owned, move to the route */
	size_t n_files, cap_files;
	char **strings;     /* names of the route, shots and marks; owned, move to the route */
	size_t n_strings, cap_strings;
	struct src *srcs;
	size_t n_srcs, cap_srcs;
	struct error_item *errors;
	size_t n_errors, cap_errors;
	size_t dropped_errors;
	uint64_t seq;
	size_t total_steps; /* steps alive in all blocks, against ROUTE_MAX_EVENTS */
	bool too_many;
	bool oom;

	/* the include chain, for cycles: resolved paths */
	const char *chain[ROUTE_MAX_INCLUDE_DEPTH + 2];
	uint32_t chain_file[ROUTE_MAX_INCLUDE_DEPTH + 2]; /* the same, as named */
	int depth;

	/* the header, from the top file */
	uint32_t name;      /* index into strings, or UINT32_MAX */
	int name_line;      /* where it was given (even if wrongly) */
	int64_t duration_ms;
	int duration_line;  /* where a good duration was given */
	int duration_seen;  /* where one was given at all */
	uint32_t duration_src;
	int64_t window_start, window_end;
	int window_line;
	uint32_t window_src_start, window_src_end;
};

/* ---- small vectors ---- */

static bool grow(struct ctx *c, void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*p, ncap * elem);
	if (!n) {
		c->oom = true;
		return false;
	}
	*p = n;
	*cap = ncap;
	return true;
}

static uint32_t add_string(struct ctx *c, const char *s, size_t len)
{
	if (!grow(c, (void **)&c->strings, &c->cap_strings, c->n_strings + 1, sizeof *c->strings))
		return UINT32_MAX;
	char *d = malloc(len + 1);
	if (!d) {
		c->oom = true;
		return UINT32_MAX;
	}
	memcpy(d, s, len);
	d[len] = 0;
	c->strings[c->n_strings] = d;
	return (uint32_t)c->n_strings++;
}

static uint32_t add_file(struct ctx *c, const char *name)
{
	if (!grow(c, (void **)&c->files, &c->cap_files, c->n_files + 1, sizeof *c->files))
		return UINT32_MAX;
	char *d = strdup(name);
	if (!d) {
		c->oom = true;
		return UINT32_MAX;
	}
	c->files[c->n_files] = d;
	return (uint32_t)c->n_files++;
}

static uint32_t add_src(struct ctx *c, uint32_t file, int line, int col)
{
	if (!grow(c, (void **)&c->srcs, &c->cap_srcs, c->n_srcs + 1, sizeof *c->srcs))
		return 0;
	c->srcs[c->n_srcs] = (struct src){ file, line, col };
	return (uint32_t)c->n_srcs++;
}

/* ---- errors ---- */

static void verror_at(struct ctx *c, uint32_t file, int line, int col, const char *fmt, va_list ap)
{
	if (c->n_errors >= MAX_ERRORS) {
		c->dropped_errors++;
		return;
	}
	if (!grow(c, (void **)&c->errors, &c->cap_errors, c->n_errors + 1, sizeof *c->errors))
		return;
	struct error_item *it = &c->errors[c->n_errors++];
	memset(it, 0, sizeof *it);
	it->file = file;
	it->order = c->n_errors;
	snprintf(it->e.file, sizeof it->e.file, "%s", file < c->n_files ? c->files[file] : "?");
	it->e.line = line;
	it->e.column = col;
	vsnprintf(it->e.message, sizeof it->e.message, fmt, ap);
}

__attribute__((format(printf, 5, 6)))
static void error_at(struct ctx *c, uint32_t file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(c, file, line, col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void error_src(struct ctx *c, uint32_t src, const char *fmt, ...)
{
	const struct src *s = src < c->n_srcs ? &c->srcs[src] : &(struct src){ 0, 1, 1 };
	va_list ap;
	va_start(ap, fmt);
	verror_at(c, s->file, s->line, s->col, fmt, ap);
	va_end(ap);
}

void route_format_time(int64_t t_ms, char *buf, size_t size)
{
	if (t_ms != 0 && t_ms > -1000 && t_ms < 1000) {
		snprintf(buf, size, "%" PRId64 "ms", t_ms);
		return;
	}
	int64_t s = t_ms / 1000, ms = t_ms % 1000;
	if (ms < 0)
		ms = -ms;
	if (ms == 0)
		snprintf(buf, size, "%" PRId64 "s", s);
	else if (ms % 100 == 0)
		snprintf(buf, size, "%" PRId64 ".%" PRId64 "s", s, ms / 100);
	else if (ms % 10 == 0)
		snprintf(buf, size, "%" PRId64 ".%02" PRId64 "s", s, ms / 10);
	else
		snprintf(buf, size, "%" PRId64 ".%03" PRId64 "s", s, ms);
}

/* A time for a message; rotates over a few buffers so one message can
 * hold several. */
struct tbuf {
	char b[4][32];
	int i;
};

static const char *ts(struct tbuf *tb, int64_t t)
{
	char *b = tb->b[tb->i++ & 3];
	route_format_time(t, b, sizeof tb->b[0]);
	return b;
}

/* ---- tokens ---- */

struct tok {
	const char *s;
	size_t len;
	int col;
};

static bool tok_is(const struct tok *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* The token as a C string for messages (truncated). */
static const char *tq(const struct tok *t, char *buf, size_t size)
{
	size_t n = t->len < size - 4 ? t->len : size - 4;
	memcpy(buf, t->s, n);
	if (n < t->len)
		memcpy(buf + n, "...", 4);
	else
		buf[n] = 0;
	return buf;
}

/* ---- values ---- */

/* "12s", "1.5s", "250ms" -> ms.  Returns NULL or what is wrong. */
static const char *parse_time(const struct tok *t, int64_t *ms)
{
	const char *p = t->s, *end = t->s + t->len;
	if (p == end || *p < '0' || *p > '9')
		return "is not a time (a number with s or ms: 2s, 1.5s, 250ms)";
	int64_t whole = 0;
	int digits = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (++digits > 9)
			return "is too large for a time";
		whole = whole * 10 + (*p++ - '0');
	}
	int64_t frac = 0;
	int frac_digits = 0;
	bool nonzero_beyond = false;
	if (p < end && *p == '.') {
		p++;
		if (p == end || *p < '0' || *p > '9')
			return "is not a time (a number with s or ms: 2s, 1.5s, 250ms)";
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (frac_digits < 3) {
				frac = frac * 10 + (*p - '0');
				frac_digits++;
			} else if (*p != '0') {
				nonzero_beyond = true;
			}
		}
	}
	size_t unit = (size_t)(end - p);
	if (unit == 0)
		return "needs a unit: s or ms";
	if (unit == 1 && p[0] == 's') {
		while (frac_digits < 3) {
			frac *= 10;
			frac_digits++;
		}
		if (nonzero_beyond)
			return "is finer than 1 ms";
		*ms = whole * 1000 + frac;
		return NULL;
	}
	if (unit == 2 && p[0] == 'm' && p[1] == 's') {
		if (frac != 0 || nonzero_beyond)
			return "is finer than 1 ms";
		*ms = whole;
		return NULL;
	}
	return "has an unknown unit (use s or ms)";
}

/* A decimal like -0.5 as num / 10^digits. */
static bool parse_decimal(const struct tok *t, int64_t *num, int *digits)
{
	const char *p = t->s, *end = t->s + t->len;
	bool neg = false;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end || *p < '0' || *p > '9')
		return false;
	int64_t n = 0;
	int whole_digits = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (++whole_digits > 6)
			return false;
		n = n * 10 + (*p++ - '0');
	}
	int d = 0;
	if (p < end && *p == '.') {
		p++;
		if (p == end)
			return false;
		while (p < end && *p >= '0' && *p <= '9') {
			if (d < 9) {
				n = n * 10 + (*p - '0');
				d++;
			}
			p++;
		}
	}
	if (p != end)
		return false;
	*num = neg ? -n : n;
	*digits = d;
	return true;
}

static int64_t pow10i(int d)
{
	int64_t p = 1;
	while (d-- > 0)
		p *= 10;
	return p;
}

/* num/10^d in [-1, 1] to pad units, rounding half away from zero:
 * positive values scale by pos_max, negative ones by neg_max. */
static int32_t to_units(int64_t num, int d, int64_t pos_max, int64_t neg_max)
{
	int64_t den = pow10i(d);
	if (num >= 0)
		return (int32_t)((num * pos_max * 2 + den) / (2 * den));
	return (int32_t) - ((-num * neg_max * 2 + den) / (2 * den));
}

static bool valid_name(const struct tok *t)
{
	if (t->len == 0 || t->len > ROUTE_MAX_NAME || t->s[0] == '.' || t->s[0] == '-')
		return false;
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '.' || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

static const struct {
	const char *name;
	int button;
} button_aliases[] = {
	{ "SELECT", PAD_BUTTON_BACK }, { "VIEW", PAD_BUTTON_BACK },
	{ "MENU", PAD_BUTTON_START },  { "MODE", PAD_BUTTON_GUIDE },
	{ "HOME", PAD_BUTTON_GUIDE },  { "L3", PAD_BUTTON_LS },
	{ "R3", PAD_BUTTON_RS },       { "L1", PAD_BUTTON_LB },
	{ "R1", PAD_BUTTON_RB },
};

static bool tok_is_ci(const struct tok *t, const char *word)
{
	return t->len == strlen(word) && strncasecmp(t->s, word, t->len) == 0;
}

static int find_button(const struct tok *t)
{
	for (int i = 0; i < PAD_BUTTON_COUNT; i++)
		if (tok_is_ci(t, pad_buttons[i].name))
			return i;
	for (size_t i = 0; i < sizeof button_aliases / sizeof *button_aliases; i++)
		if (tok_is_ci(t, button_aliases[i].name))
			return button_aliases[i].button;
	return -1;
}

static const struct {
	const char *name;
	int x, y;
} dpad_dirs[] = {
	{ "up", 0, -1 },       { "down", 0, 1 },       { "left", -1, 0 },
	{ "right", 1, 0 },     { "up-left", -1, -1 },  { "up-right", 1, -1 },
	{ "down-left", -1, 1 }, { "down-right", 1, 1 }, { "centre", 0, 0 },
	{ "center", 0, 0 },    { "none", 0, 0 },
};

static const char *control_name(int control)
{
	switch (control) {
	case C_STICK_L: return "stick 'left'";
	case C_STICK_R: return "stick 'right'";
	case C_TRIG_L: return "trigger 'left'";
	case C_TRIG_R: return "trigger 'right'";
	case C_DPAD: return "the d-pad";
	default: return "?";
	}
}

int route_parse_time(const char *s, int64_t *t_ms)
{
	struct tok t = { s, strlen(s), 1 };
	int64_t ms;
	if (parse_time(&t, &ms) || ms > ROUTE_MAX_DURATION_MS)
		return -EINVAL;
	*t_ms = ms;
	return 0;
}

bool route_name_is_valid(const char *name)
{
	struct tok t = { name, strlen(name), 1 };
	return valid_name(&t);
}

int route_button_from_name(const char *name)
{
	struct tok t = { name, strlen(name), 1 };
	return find_button(&t);
}

/* ---- steps ---- */

static struct step *add_step(struct ctx *c, struct block *b)
{
	if (c->total_steps >= ROUTE_MAX_EVENTS) {
		c->too_many = true;
		return NULL;
	}
	if (!grow(c, (void **)&b->steps, &b->cap, b->n + 1, sizeof *b->steps))
		return NULL;
	struct step *s = &b->steps[b->n++];
	memset(s, 0, sizeof *s);
	s->until = -1;
	s->seq = c->seq++;
	c->total_steps++;
	return s;
}

static void free_block(struct ctx *c, struct block *b)
{
	c->total_steps -= b->n;
	free(b->steps);
	b->steps = NULL;
	b->n = b->cap = 0;
}

/* Copies src's steps into dst, offset by off; points get the suffix (when
 * iter > 0) right after their written name, so the outermost repetition's
 * number comes first.  Fresh seq numbers keep the copies in order. */
static bool copy_steps(struct ctx *c, struct block *dst, const struct block *src, int64_t off,
                       int64_t iter)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct step *s = &src->steps[i];
		struct step *d = add_step(c, dst);
		if (!d)
			return false;
		uint64_t seq = d->seq;
		*d = *s;
		d->seq = seq;
		d->t = s->t + off;
		if (s->until >= 0)
			d->until = s->until + off;
		if (s->op == OP_POINT && iter > 0 && s->name < c->n_strings) {
			const char *old = c->strings[s->name];
			size_t len = strlen(old);
			char buf[ROUTE_MAX_NAME * 4 + 64];
			int n = snprintf(buf, sizeof buf, "%.*s-%" PRId64 "%s", (int)s->base_len, old,
			                 iter, old + s->base_len);
			if (n < 0 || (size_t)n >= sizeof buf || len > ROUTE_MAX_NAME * 3) {
				d->name = s->name;
			} else {
				d->name = add_string(c, buf, (size_t)n);
				if (d->name == UINT32_MAX)
					return false;
			}
		}
	}
	return true;
}

/* ---- includes ---- */

/* Why a file could not be read: a FIFO or device is "not a regular file"
 * (-EINVAL from read_from_disk()), the rest strerror()'s words. */
static const char *read_error(int r)
{
	return r == -EINVAL ? "not a regular file" : strerror(-r);
}

static int read_from_disk(void *ctx, const char *path, char **text, size_t *len)
{
	(void)ctx;
	int r = util_read_file(path, MAX_FILE_B, UTIL_READ_REGULAR, text, len);
	return r == -ENOTSUP ? -EINVAL : r; /* a route's "not a regular file" */
}

static char *join_path(const char *including, const char *rel, size_t rel_len)
{
	size_t dir_len = 0;
	if (rel_len > 0 && rel[0] != '/') {
		const char *slash = strrchr(including, '/');
		if (slash)
			dir_len = (size_t)(slash - including) + 1;
	}
	char *p = malloc(dir_len + rel_len + 1);
	if (!p)
		return NULL;
	memcpy(p, including, dir_len);
	memcpy(p + dir_len, rel, rel_len);
	p[dir_len + rel_len] = 0;
	return p;
}

/* A path with "." segments dropped and "dir/.." pairs folded, lexically. */
static char *fold_path(const char *path)
{
	size_t len = strlen(path);
	const char **seg = malloc((len / 2 + 2) * sizeof *seg);
	size_t *seg_len = malloc((len / 2 + 2) * sizeof *seg_len);
	char *out = malloc(len + 2);
	if (!seg || !seg_len || !out) {
		free(seg);
		free(seg_len);
		free(out);
		return NULL;
	}
	size_t n = 0;
	bool abs = path[0] == '/';
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const char *s = p;
		while (*p && *p != '/')
			p++;
		size_t l = (size_t)(p - s);
		if (l == 0 || (l == 1 && s[0] == '.'))
			continue;
		bool up = l == 2 && s[0] == '.' && s[1] == '.';
		if (up && n > 0 && !(seg_len[n - 1] == 2 && seg[n - 1][0] == '.' && seg[n - 1][1] == '.')) {
			n--;
			continue;
		}
		if (up && abs)
			continue;
		seg[n] = s;
		seg_len[n++] = l;
	}
	size_t o = 0;
	if (abs)
		out[o++] = '/';
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			out[o++] = '/';
		memcpy(out + o, seg[i], seg_len[i]);
		o += seg_len[i];
	}
	out[o] = 0;
	free(seg);
	free(seg_len);
	return out;
}

/* ---- the line parser ---- */

static void parse_text(struct ctx *c, uint32_t file, const char *text, size_t len,
                       struct block *top);

struct line {
	struct ctx *c;
	uint32_t file;
	int lineno;
	struct tok tok[MAX_TOKENS];
	int n;
	bool overflow;
};

__attribute__((format(printf, 3, 4)))
static void lerr(struct line *l, const struct tok *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(l->c, l->file, l->lineno, t ? t->col : 1, fmt, ap);
	va_end(ap);
}

static bool expect_count(struct line *l, int first, int n, const char *usage)
{
	if (l->n < first + n) {
		const struct tok *kw = &l->tok[first - 1];
		lerr(l, kw, "'%.*s' needs %s", (int)kw->len, kw->s, usage);
		return false;
	}
	return true;
}

static bool no_more(struct line *l, int from)
{
	if (l->n > from || l->overflow) {
		char q[64];
		const struct tok *t = &l->tok[from < l->n ? from : l->n - 1];
		lerr(l, t, "unexpected '%s' at the end of the line", tq(t, q, sizeof q));
		return false;
	}
	return true;
}

static bool get_time(struct line *l, const struct tok *t, int64_t *ms)
{
	const char *why = parse_time(t, ms);
	if (why) {
		char q[64];
		lerr(l, t, "'%s' %s", tq(t, q, sizeof q), why);
		return false;
	}
	if (*ms > ROUTE_MAX_DURATION_MS) {
		char q[64];
		lerr(l, t, "'%s' is longer than the 24 h a route may last", tq(t, q, sizeof q));
		return false;
	}
	return true;
}

static bool get_duration(struct line *l, const struct tok *t, int64_t *ms)
{
	if (!get_time(l, t, ms))
		return false;
	if (*ms < 1) {
		lerr(l, t, "a duration must be at least 1 ms");
		return false;
	}
	return true;
}

/* Optional "for DURATION" at l->tok[at]; *d = -1 when absent. */
static bool get_for(struct line *l, int at, int64_t *d)
{
	*d = -1;
	if (l->n <= at)
		return true;
	if (!tok_is(&l->tok[at], "for")) {
		char q[64];
		lerr(l, &l->tok[at], "expected 'for DURATION' or the end of the line, not '%s'",
		     tq(&l->tok[at], q, sizeof q));
		return false;
	}
	if (l->n <= at + 1) {
		lerr(l, &l->tok[at], "'for' needs a duration (for 1.5s)");
		return false;
	}
	if (!get_duration(l, &l->tok[at + 1], d))
		return false;
	return no_more(l, at + 2);
}

static int get_button(struct line *l, const struct tok *t)
{
	int b = find_button(t);
	if (b >= 0)
		return b;
	char q[64];
	tq(t, q, sizeof q);
	if (tok_is_ci(t, "LT") || tok_is_ci(t, "RT") || tok_is_ci(t, "L2") || tok_is_ci(t, "R2"))
		lerr(l, t, "'%s' is a trigger, not a button: use 'trigger %s 1 for 100ms'", q,
		     (q[0] == 'L' || q[0] == 'l') ? "left" : "right");
	else if (tok_is_ci(t, "UP") || tok_is_ci(t, "DOWN") || tok_is_ci(t, "LEFT") ||
	         tok_is_ci(t, "RIGHT"))
		lerr(l, t, "'%s' is on the d-pad, not a button: use 'dpad %s for 100ms'", q, q);
	else
		lerr(l, t, "unknown button '%s' (buttons: A B X Y LB RB BACK START GUIDE LS RS)", q);
	return -1;
}

static bool get_side(struct line *l, const struct tok *t, int *right)
{
	if (tok_is(t, "left"))
		*right = 0;
	else if (tok_is(t, "right"))
		*right = 1;
	else {
		char q[64];
		lerr(l, t, "expected 'left' or 'right', not '%s'", tq(t, q, sizeof q));
		return false;
	}
	return true;
}

/* A stick value in -1..1 (pad units in *units). */
static bool get_stick(struct line *l, const struct tok *t, int32_t *units)
{
	int64_t num;
	int d;
	char q[64];
	if (!parse_decimal(t, &num, &d)) {
		lerr(l, t, "'%s' is not a number (a stick takes -1..1)", tq(t, q, sizeof q));
		return false;
	}
	int64_t den = pow10i(d);
	if (num > den || num < -den) {
		lerr(l, t, "stick value %s is out of range -1..1", tq(t, q, sizeof q));
		return false;
	}
	*units = to_units(num, d, PAD_STICK_MAX, -(int64_t)PAD_STICK_MIN);
	return true;
}

static bool get_trigger(struct line *l, const struct tok *t, int32_t *units)
{
	int64_t num;
	int d;
	char q[64];
	if (!parse_decimal(t, &num, &d)) {
		lerr(l, t, "'%s' is not a number (a trigger takes 0..1)", tq(t, q, sizeof q));
		return false;
	}
	if (num < 0 || num > pow10i(d)) {
		lerr(l, t, "trigger value %s is out of range 0..1", tq(t, q, sizeof q));
		return false;
	}
	*units = to_units(num, d, PAD_TRIGGER_MAX, PAD_TRIGGER_MAX);
	return true;
}

/* A control set (with an optional timed end) at time t. */
static void add_set(struct line *l, struct block *b, int64_t t, uint32_t src, int control,
                    int32_t v0, int32_t v1, int64_t dur, int how)
{
	struct step *s = add_step(l->c, b);
	if (!s)
		return;
	s->t = t;
	s->src = src;
	s->control = (uint8_t)control;
	s->op = OP_SET;
	s->how = (uint8_t)how;
	s->v[0] = v0;
	s->v[1] = v1;
	if (dur >= 0) {
		s->until = t + dur;
		struct step *e = add_step(l->c, b);
		if (!e)
			return;
		e->t = t + dur;
		e->src = src;
		e->control = (uint8_t)control;
		e->op = OP_END;
		e->how = H_AUTO_END;
	}
}

/* The rest of "TIME repeat N every D {". */
static bool parse_repeat(struct line *l, int64_t *count, int64_t *every)
{
	char q[64];
	if (!expect_count(l, 2, 4, "a count, 'every' and a length, then '{' (repeat 3 every 2s {)"))
		return false;
	const struct tok *nt = &l->tok[2];
	int64_t n = 0;
	bool ok = nt->len > 0 && nt->len <= 7;
	for (size_t i = 0; ok && i < nt->len; i++) {
		ok = nt->s[i] >= '0' && nt->s[i] <= '9';
		n = n * 10 + (nt->s[i] - '0');
	}
	if (!ok || n < 1 || n > 1000000) {
		lerr(l, nt, "repeat count '%s' must be a whole number 1..1000000", tq(nt, q, sizeof q));
		return false;
	}
	if (!tok_is(&l->tok[3], "every")) {
		lerr(l, &l->tok[3], "expected 'every' after the repeat count, not '%s'",
		     tq(&l->tok[3], q, sizeof q));
		return false;
	}
	if (!get_duration(l, &l->tok[4], every))
		return false;
	if (!tok_is(&l->tok[5], "{")) {
		lerr(l, &l->tok[5], "expected '{' at the end of the repeat line, not '%s'",
		     tq(&l->tok[5], q, sizeof q));
		return false;
	}
	if (!no_more(l, 6))
		return false;
	*count = n;
	return true;
}

/* Where an action lands: the stack of open blocks (the innermost is
 * stack[*sp]), the action's time in it and its line. */
struct at {
	struct block **stack;
	int *sp;
	int64_t t;
	uint32_t src;
};

/* press BUTTON DURATION */
static void act_press(struct line *l, const struct tok *a, struct at *at)
{
	(void)a;
	if (!expect_count(l, 2, 2, "a button and a duration (press A 100ms)"))
		return;
	int btn = get_button(l, &l->tok[2]);
	int64_t d;
	if (btn < 0 || !get_duration(l, &l->tok[3], &d) || !no_more(l, 4))
		return;
	add_set(l, at->stack[*at->sp], at->t, at->src, C_BUTTON0 + btn, 1, 0, d, H_PRESS);
}

/* hold BUTTON, release BUTTON */
static void act_hold_release(struct line *l, const struct tok *a, struct at *at)
{
	bool hold = tok_is(a, "hold");
	if (!expect_count(l, 2, 1, "a button"))
		return;
	int btn = get_button(l, &l->tok[2]);
	if (btn < 0 || !no_more(l, 3))
		return;
	struct block *b = at->stack[*at->sp];
	if (hold) {
		add_set(l, b, at->t, at->src, C_BUTTON0 + btn, 1, 0, -1, H_HOLD);
		return;
	}
	struct step *s = add_step(l->c, b);
	if (!s)
		return;
	s->t = at->t;
	s->src = at->src;
	s->control = (uint8_t)(C_BUTTON0 + btn);
	s->op = OP_END;
	s->how = H_RELEASE;
}

/* stick SIDE X Y [for DURATION] */
static void act_stick(struct line *l, const struct tok *a, struct at *at)
{
	(void)a;
	if (!expect_count(l, 2, 3, "a side and two values (stick left 0 -1)"))
		return;
	int right;
	int32_t x, y;
	int64_t d;
	if (!get_side(l, &l->tok[2], &right))
		return;
	bool okx = get_stick(l, &l->tok[3], &x);
	bool oky = get_stick(l, &l->tok[4], &y);
	if (!okx || !oky || !get_for(l, 5, &d))
		return;
	add_set(l, at->stack[*at->sp], at->t, at->src, right ? C_STICK_R : C_STICK_L, x, y, d, H_SET);
}

/* trigger SIDE VALUE [for DURATION] */
static void act_trigger(struct line *l, const struct tok *a, struct at *at)
{
	(void)a;
	if (!expect_count(l, 2, 2, "a side and a value (trigger right 1)"))
		return;
	int right;
	int32_t v;
	int64_t d;
	if (!get_side(l, &l->tok[2], &right) || !get_trigger(l, &l->tok[3], &v) ||
	    !get_for(l, 4, &d))
		return;
	add_set(l, at->stack[*at->sp], at->t, at->src, right ? C_TRIG_R : C_TRIG_L, v, 0, d, H_SET);
}

/* dpad DIRECTION [for DURATION] */
static void act_dpad(struct line *l, const struct tok *a, struct at *at)
{
	(void)a;
	char q[64];
	if (!expect_count(l, 2, 1, "a direction (dpad up)"))
		return;
	const struct tok *dt = &l->tok[2];
	int k = -1;
	for (size_t i = 0; i < sizeof dpad_dirs / sizeof *dpad_dirs; i++)
		if (tok_is(dt, dpad_dirs[i].name))
			k = (int)i;
	if (k < 0) {
		lerr(l, dt, "unknown d-pad direction '%s' (up down left right up-left "
		            "up-right down-left down-right centre)", tq(dt, q, sizeof q));
		return;
	}
	int64_t d;
	if (!get_for(l, 3, &d))
		return;
	add_set(l, at->stack[*at->sp], at->t, at->src, C_DPAD, dpad_dirs[k].x, dpad_dirs[k].y, d, H_SET);
}

/* shot NAME, mark NAME */
static void act_point(struct line *l, const struct tok *a, struct at *at)
{
	struct ctx *c = l->c;
	char q[64];
	bool shot = tok_is(a, "shot");
	if (!expect_count(l, 2, 1, "a name"))
		return;
	const struct tok *n = &l->tok[2];
	if (!valid_name(n)) {
		lerr(l, n, "%s name '%s' may hold only letters, digits, '.', '_' and '-' "
		           "(not first), at most %d of them", shot ? "shot" : "mark",
		     tq(n, q, sizeof q), ROUTE_MAX_NAME);
		return;
	}
	if (!no_more(l, 3))
		return;
	struct step *s = add_step(c, at->stack[*at->sp]);
	if (!s)
		return;
	s->t = at->t;
	s->src = at->src;
	s->control = shot ? C_SHOT : C_MARK;
	s->op = OP_POINT;
	s->how = H_POINT;
	s->name = add_string(c, n->s, n->len);
	s->base_len = (uint16_t)n->len;
}

/* repeat N every DURATION {: opens a block, even a bad one */
static void act_repeat(struct line *l, const struct tok *a, struct at *at)
{
	int64_t count = 0, every = 0;
	bool ok = parse_repeat(l, &count, &every);
	bool opens = tok_is(&l->tok[l->n - 1], "{");
	if (!ok && !opens)
		return;
	if (*at->sp >= ROUTE_MAX_REPEAT_DEPTH) {
		/* not opened, but its '}' must still match */
		lerr(l, a, "repeat blocks nest deeper than %d", ROUTE_MAX_REPEAT_DEPTH);
		at->stack[*at->sp]->unopened++;
		return;
	}
	struct block *nb = calloc(1, sizeof *nb);
	if (!nb) {
		l->c->oom = true;
		return;
	}
	/* a bad repeat line still opens a block, so its '}' matches; the
	 * block's lines are read for their own errors, then dropped */
	nb->start = at->t;
	nb->count = ok ? count : 0;
	nb->every = ok ? every : ROUTE_MAX_DURATION_MS;
	nb->src = at->src;
	at->stack[++*at->sp] = nb;
}

/* Whether including key (path as named) closes a cycle; says so if it
 * does. */
static bool include_cycle(struct line *l, const struct tok *ft, const char *key, const char *path)
{
	struct ctx *c = l->c;
	for (int i = 0; i <= c->depth; i++) {
		if (!c->chain[i] || strcmp(c->chain[i], key) != 0)
			continue;
		char chain[700];
		size_t o = 0;
		for (int k = i; k <= c->depth && o < sizeof chain; k++)
			o += (size_t)snprintf(chain + o, sizeof chain - o, "'%s'%s includes ",
			                      c->files[c->chain_file[k]], k > i ? ", which" : "");
		if (o < sizeof chain)
			snprintf(chain + o, sizeof chain - o, "'%s' again", path);
		lerr(l, ft, "include cycle: %s", chain);
		return true;
	}
	return false;
}

/* include FILE: its steps copied in at the line's time */
static void act_include(struct line *l, const struct tok *a, struct at *at)
{
	(void)a;
	struct ctx *c = l->c;
	if (!expect_count(l, 2, 1, "a file name"))
		return;
	const struct tok *ft = &l->tok[2];
	if (!no_more(l, 3))
		return;
	if (c->depth >= ROUTE_MAX_INCLUDE_DEPTH) {
		lerr(l, ft, "includes nest deeper than %d", ROUTE_MAX_INCLUDE_DEPTH);
		return;
	}
	char *path = join_path(c->files[l->file], ft->s, ft->len);
	if (!path) {
		c->oom = true;
		return;
	}
	/* cycles are found on the real path when reading from disk, and
	 * on the path with "." and ".." folded otherwise */
	char *real = (c->opt && c->opt->read_file) ? fold_path(path) : realpath(path, NULL);
	const char *key = real ? real : path;
	char *text = NULL;
	size_t tlen = 0;
	if (include_cycle(l, ft, key, path))
		goto out;
	int r = (c->opt && c->opt->read_file)
	                ? c->opt->read_file(c->opt->read_ctx, path, &text, &tlen)
	                : read_from_disk(NULL, path, &text, &tlen);
	if (r < 0) {
		lerr(l, ft, "cannot read included file '%s': %s", path, read_error(r));
		goto out;
	}
	uint32_t fi = add_file(c, path);
	if (fi != UINT32_MAX) {
		struct block inc = { .every = -1 };
		c->chain[++c->depth] = key;
		c->chain_file[c->depth] = fi;
		parse_text(c, fi, text, tlen, &inc);
		c->depth--;
		/* the included steps go with inc: not counted twice while copied */
		c->total_steps -= inc.n;
		copy_steps(c, at->stack[*at->sp], &inc, at->t, 0);
		c->total_steps += inc.n;
		free_block(c, &inc);
	}
out:
	free(text);
	free(real);
	free(path);
}

static const struct action {
	const char *name;
	void (*parse)(struct line *l, const struct tok *a, struct at *at);
} actions[] = {
	{ "press", act_press },     { "hold", act_hold_release }, { "release", act_hold_release },
	{ "stick", act_stick },     { "trigger", act_trigger },   { "dpad", act_dpad },
	{ "shot", act_point },      { "mark", act_point },        { "repeat", act_repeat },
	{ "include", act_include },
};

/* The part of a line after its time, in the innermost open block
 * stack[*sp]. */
static void parse_action(struct line *l, struct block **stack, int *sp, int64_t t, uint32_t src)
{
	const struct tok *a = &l->tok[1];
	struct at at = { .stack = stack, .sp = sp, .t = t, .src = src };
	for (size_t i = 0; i < sizeof actions / sizeof *actions; i++) {
		if (tok_is(a, actions[i].name)) {
			actions[i].parse(l, a, &at);
			return;
		}
	}
	char q[64];
	lerr(l, a, "unknown action '%s' (actions: press hold release stick trigger dpad "
	           "shot mark repeat include)", tq(a, q, sizeof q));
}

/* Closes the innermost repeat block: checks that each step fits its length,
 * then copies it count times into the enclosing block. */
static void close_block(struct ctx *c, struct block **stack, int *sp)
{
	struct block *b = stack[*sp];
	struct block *parent = stack[--*sp];
	struct tbuf tb = { 0 };
	uint32_t last_bad = UINT32_MAX;
	bool fits = b->count > 0;
	for (size_t i = 0; b->count > 0 && i < b->n; i++) {
		const struct step *s = &b->steps[i];
		int64_t end = s->until > s->t ? s->until : s->t;
		if (end > b->every) {
			fits = false;
			if (s->src != last_bad)
				error_src(c, s->src, "this ends at %s into the repeat block, past its "
				                     "length 'every %s'", ts(&tb, end), ts(&tb, b->every));
			last_bad = s->src;
		}
	}
	if (fits) {
		if ((uint64_t)b->n * (uint64_t)b->count + c->total_steps - b->n > ROUTE_MAX_EVENTS) {
			error_src(c, b->src, "the route expands to more than %d actions", ROUTE_MAX_EVENTS);
			c->too_many = true;
		} else {
			/* the block's own steps go with it: not counted twice while copied */
			c->total_steps -= b->n;
			for (int64_t k = 0; k < b->count; k++)
				if (!copy_steps(c, parent, b, b->start + k * b->every, k + 1))
					break;
			c->total_steps += b->n;
		}
	}
	free_block(c, b);
	free(b);
}

static void header_line(struct line *l, bool top_file, bool in_block)
{
	struct ctx *c = l->c;
	const struct tok *k = &l->tok[0];
	char kw[16];
	tq(k, kw, sizeof kw);
	if (!top_file) {
		lerr(l, k, "'%s' belongs in the route's own file, not in an included one", kw);
		return;
	}
	if (in_block) {
		lerr(l, k, "'%s' cannot be inside a repeat block", kw);
		return;
	}
	char q[64];
	if (tok_is(k, "route")) {
		if (c->name_line) {
			lerr(l, k, "'route' is given twice (first at line %d)", c->name_line);
			return;
		}
		c->name_line = l->lineno;
		if (!expect_count(l, 1, 1, "a name (route kokiri-moving)"))
			return;
		if (!valid_name(&l->tok[1])) {
			lerr(l, &l->tok[1], "route name '%s' may hold only letters, digits, '.', '_' "
			                    "and '-' (not first), at most %d of them",
			     tq(&l->tok[1], q, sizeof q), ROUTE_MAX_NAME);
			return;
		}
		if (!no_more(l, 2))
			return;
		c->name = add_string(c, l->tok[1].s, l->tok[1].len);
		c->name_line = l->lineno;
	} else if (tok_is(k, "duration")) {
		int64_t d;
		if (c->duration_seen) {
			lerr(l, k, "'duration' is given twice (first at line %d)", c->duration_seen);
			return;
		}
		c->duration_seen = l->lineno;
		if (!expect_count(l, 1, 1, "a time (duration 125s)"))
			return;
		if (!get_duration(l, &l->tok[1], &d) || !no_more(l, 2))
			return;
		c->duration_ms = d;
		c->duration_line = l->lineno;
		c->duration_src = add_src(c, l->file, l->lineno, l->tok[1].col);
	} else {
		int64_t a, b;
		if (!expect_count(l, 1, 2, "a start and an end (window 30s 110s)"))
			return;
		if (c->window_line) {
			lerr(l, k, "'window' is given twice (first at line %d)", c->window_line);
			return;
		}
		bool oka = get_time(l, &l->tok[1], &a);
		bool okb = get_time(l, &l->tok[2], &b);
		if (!oka || !okb || !no_more(l, 3))
			return;
		if (a >= b) {
			struct tbuf tb = { 0 };
			lerr(l, &l->tok[1], "the window's start %s is not before its end %s", ts(&tb, a),
			     ts(&tb, b));
			return;
		}
		c->window_start = a;
		c->window_end = b;
		c->window_line = l->lineno;
		c->window_src_start = add_src(c, l->file, l->lineno, l->tok[1].col);
		c->window_src_end = add_src(c, l->file, l->lineno, l->tok[2].col);
	}
}

static void parse_text(struct ctx *c, uint32_t file, const char *text, size_t len,
                       struct block *top)
{
	struct block *stack[ROUTE_MAX_REPEAT_DEPTH + 1];
	int sp = 0;
	stack[0] = top;
	top->last_t = 0;
	bool top_file = c->depth == 0;
	struct tbuf tb = { 0 };

	const char *p = text, *end = text + len;
	int lineno = 0;
	while (p < end && !c->oom && !c->too_many) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		struct line l = { .c = c, .file = file, .lineno = lineno };
		const char *nul = memchr(p, '\0', (size_t)(eol - p));
		if (nul) {
			error_at(c, file, lineno, (int)(nul - p) + 1, "the line holds a NUL byte");
			p = eol + 1;
			continue;
		}
		for (const char *q = p; q < eol;) {
			if (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v') {
				q++;
				continue;
			}
			if (*q == '#')
				break;
			const char *s = q;
			while (q < eol && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#' &&
			       *q != '\f' && *q != '\v')
				q++;
			if (l.n == MAX_TOKENS) {
				l.overflow = true;
				break;
			}
			l.tok[l.n++] = (struct tok){ s, (size_t)(q - s), (int)(s - p) + 1 };
		}
		p = eol + 1;
		if (l.n == 0)
			continue;

		const struct tok *t0 = &l.tok[0];
		if (tok_is(t0, "}")) {
			if (stack[sp]->unopened > 0) {
				stack[sp]->unopened--;
			} else if (sp == 0) {
				lerr(&l, t0, "'}' without an open repeat block");
			} else {
				no_more(&l, 1);
				close_block(c, stack, &sp);
			}
			continue;
		}
		if (tok_is(t0, "route") || tok_is(t0, "duration") || tok_is(t0, "window")) {
			header_line(&l, top_file, sp > 0);
			continue;
		}
		if (t0->s[0] < '0' || t0->s[0] > '9') {
			char q[64];
			lerr(&l, t0, "expected a time or 'route', 'duration', 'window', not '%s'",
			     tq(t0, q, sizeof q));
			continue;
		}
		int64_t t;
		if (!get_time(&l, t0, &t))
			continue;
		if (l.n < 2) {
			lerr(&l, t0, "a time needs an action after it (press, hold, release, stick, "
			             "trigger, dpad, shot, mark, repeat, include)");
			continue;
		}
		struct block *b = stack[sp];
		if (t < b->last_t) {
			/* said once; the action is still read for its own errors */
			lerr(&l, t0, "time %s goes back before the line above's %s%s", ts(&tb, t),
			     ts(&tb, b->last_t), sp > 0 ? " in this repeat block" : "");
		} else {
			b->last_t = t;
		}
		uint32_t src = add_src(c, file, lineno, t0->col);
		parse_action(&l, stack, &sp, t, src);
		if (c->too_many && c->n_errors == 0)
			error_at(c, file, lineno, t0->col, "the route expands to more than %d actions",
			         ROUTE_MAX_EVENTS);
	}
	while (sp > 0) {
		struct block *b = stack[sp--];
		if (!c->too_many && !c->oom)
			error_src(c, b->src, "this repeat block is not closed with '}'");
		free_block(c, b);
		free(b);
	}
}

/* ---- checking and building the route ---- */

struct route {
	char *name;
	int64_t duration_ms, window_start_ms, window_end_ms;
	struct route_event *events;
	size_t n_events;
	struct route_point *shots, *marks;
	size_t n_shots, n_marks;
	size_t n_pad_events, n_instants;
	char **files;
	size_t n_files;
	char **strings;
	size_t n_strings;
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct cstate {
	bool on;          /* button down / axis set by an action */
	int64_t until;    /* timed action's end, or -1 */
	uint32_t src;     /* the action that set it */
	int64_t set_t;    /* when it was last set */
	int64_t end_t;    /* when it last ended, or -1 */
	int32_t v[2];
};

struct pending {
	int code_seen[PAD_BUTTON_COUNT + PAD_AXIS_COUNT]; /* order of first touch, or -1 */
	int32_t value[PAD_BUTTON_COUNT + PAD_AXIS_COUNT];
	uint32_t src[PAD_BUTTON_COUNT + PAD_AXIS_COUNT];
	int n;
};

static void touch(struct pending *p, int slot, int32_t v, uint32_t src)
{
	if (p->code_seen[slot] < 0)
		p->code_seen[slot] = p->n++;
	p->value[slot] = v;
	p->src[slot] = src;
}

static int cmp_point(const void *a, const void *b)
{
	const struct route_point *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	if (r)
		return r;
	return (x->t_ms > y->t_ms) - (x->t_ms < y->t_ms);
}

static void check_unique(struct ctx *c, struct route_point *pts, size_t n, const uint32_t *srcs,
                         const char *what)
{
	if (n < 2)
		return;
	struct route_point *sorted = malloc(n * sizeof *sorted);
	if (!sorted) {
		c->oom = true;
		return;
	}
	/* carry the index in t_ms's place is not possible; sort copies with
	 * their position encoded in a parallel pass */
	memcpy(sorted, pts, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_point);
	struct tbuf tb = { 0 };
	for (size_t i = 1; i < n; i++) {
		if (strcmp(sorted[i].name, sorted[i - 1].name) != 0)
			continue;
		/* find the later one's source among the originals */
		for (size_t k = 0; k < n; k++) {
			if (pts[k].name == sorted[i].name && pts[k].t_ms == sorted[i].t_ms) {
				error_src(c, srcs[k], "%s '%s' is taken twice, at %s and at %s", what,
				          sorted[i].name, ts(&tb, sorted[i - 1].t_ms), ts(&tb, sorted[i].t_ms));
				break;
			}
		}
	}
	free(sorted);
}

/* Building the route from the sorted steps: every control's state, the
 * pad's values so far, and the points' lines for check_unique(). */
struct building {
	struct ctx *c;
	struct route *r;
	uint8_t *said;             /* an error is said once per action, not once per repetition */
	uint32_t *shot_src, *mark_src;
	struct cstate st[C_COUNT];
	int32_t cur[PAD_BUTTON_COUNT + PAD_AXIS_COUNT];
};

static bool once(struct building *b, uint32_t src)
{
	if (b->said[src])
		return false;
	b->said[src] = 1;
	return true;
}

/* The route's arrays, sized for the steps.  false: out of memory. */
static bool build_alloc(struct building *b, const struct block *top)
{
	struct route *r = b->r;
	size_t n_points = 0, n_ev = 0;
	for (size_t i = 0; i < top->n; i++) {
		const struct step *s = &top->steps[i];
		n_points += s->op == OP_POINT;
		n_ev += (s->control == C_STICK_L || s->control == C_STICK_R || s->control == C_DPAD) ? 2 : 1;
	}
	b->said = calloc(b->c->n_srcs + 1, 1);
	r->events = calloc(n_ev + 1, sizeof *r->events);
	b->mark_src = calloc(n_points + 1, sizeof *b->mark_src);
	r->shots = calloc(n_points + 1, sizeof *r->shots);
	r->marks = calloc(n_points + 1, sizeof *r->marks);
	b->shot_src = calloc(n_points + 1, sizeof *b->shot_src);
	for (int i = 0; i < C_COUNT; i++)
		b->st[i] = (struct cstate){ .until = -1, .set_t = -1, .end_t = -1 };
	return b->said && r->events && b->mark_src && r->shots && r->marks && b->shot_src;
}

/* A button's step: down (not while down, not the instant it went up) or
 * up (a release only while down and not inside a press). */
static void step_button(struct building *b, const struct step *s, int64_t t, struct pending *pend)
{
	struct ctx *c = b->c;
	struct tbuf tb = { 0 };
	struct cstate *cs = &b->st[s->control];
	const char *bn = pad_buttons[s->control].name;
	if (s->op == OP_SET) {
		if (cs->on) {
			if (once(b, s->src))
				error_src(c, s->src, "button '%s' is already down at %s "
				          "(since %s, line %d)", bn, ts(&tb, t),
				          ts(&tb, cs->set_t), c->srcs[cs->src].line);
		} else if (cs->end_t == t) {
			if (once(b, s->src))
				error_src(c, s->src, "button '%s' goes down at %s, the "
				          "instant it goes up (line %d): leave at least 1 ms",
				          bn, ts(&tb, t), c->srcs[cs->src].line);
		}
		cs->on = true;
		cs->until = s->until;
		cs->src = s->src;
		cs->set_t = t;
		touch(pend, s->control, 1, s->src);
		return;
	}
	if (s->how == H_RELEASE) {
		if (!cs->on) {
			if (once(b, s->src))
				error_src(c, s->src, "button '%s' is released at %s "
				          "but is not down", bn, ts(&tb, t));
		} else if (cs->until > t) {
			if (once(b, s->src))
				error_src(c, s->src, "button '%s' is released at %s "
				          "inside its press at line %d, which lasts "
				          "until %s", bn, ts(&tb, t),
				          c->srcs[cs->src].line, ts(&tb, cs->until));
		}
	} else if (!cs->on || cs->src != s->src) {
		/* the end of a press whose button was taken over:
		 * reported at the taking over */
		return;
	}
	cs->on = false;
	cs->until = -1;
	cs->end_t = t;
	cs->src = s->src;
	touch(pend, s->control, 0, s->src);
}

/* An axis control's step (stick, trigger, d-pad): set (not while a timed
 * action holds it, not twice in one instant) or back to 0. */
static void step_axis(struct building *b, const struct step *s, int64_t t, struct pending *pend)
{
	struct ctx *c = b->c;
	struct tbuf tb = { 0 };
	struct cstate *cs = &b->st[s->control];
	if (s->op == OP_SET) {
		if (cs->on && cs->until > t) {
			if (once(b, s->src))
				error_src(c, s->src, "%s is set at %s while the action at "
				          "line %d holds it until %s", control_name(s->control),
				          ts(&tb, t), c->srcs[cs->src].line, ts(&tb, cs->until));
		} else if (cs->set_t == t) {
			if (once(b, s->src))
				error_src(c, s->src, "%s is given two values at %s (lines %d "
				          "and %d)", control_name(s->control), ts(&tb, t),
				          c->srcs[cs->src].line, c->srcs[s->src].line);
		}
		cs->on = true;
		cs->until = s->until;
		cs->src = s->src;
		cs->set_t = t;
		cs->v[0] = s->v[0];
		cs->v[1] = s->v[1];
	} else {
		if (cs->src != s->src || !cs->on)
			return; /* taken over: reported there */
		cs->on = false;
		cs->until = -1;
		cs->v[0] = cs->v[1] = 0;
		cs->end_t = t;
	}
	switch (s->control) {
	case C_STICK_L:
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_LX, cs->v[0], s->src);
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_LY, cs->v[1], s->src);
		break;
	case C_STICK_R:
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_RX, cs->v[0], s->src);
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_RY, cs->v[1], s->src);
		break;
	case C_TRIG_L:
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_LT, cs->v[0], s->src);
		break;
	case C_TRIG_R:
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_RT, cs->v[0], s->src);
		break;
	case C_DPAD:
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_HATX, cs->v[0], s->src);
		touch(pend, PAD_BUTTON_COUNT + PAD_AXIS_HATY, cs->v[1], s->src);
		break;
	}
}

/* An instant's pad events: its changes, in the order the file touched
 * them. */
static void emit_changes(struct building *b, int64_t t, const struct pending *pend)
{
	struct ctx *c = b->c;
	struct route *r = b->r;
	int order[PAD_BUTTON_COUNT + PAD_AXIS_COUNT];
	for (int k = 0; k < PAD_BUTTON_COUNT + PAD_AXIS_COUNT; k++)
		if (pend->code_seen[k] >= 0)
			order[pend->code_seen[k]] = k;
	bool any = false;
	for (int o = 0; o < pend->n; o++) {
		int k = order[o];
		if (pend->value[k] == b->cur[k])
			continue;
		b->cur[k] = pend->value[k];
		struct route_event *e = &r->events[r->n_events++];
		const struct src *sr = &c->srcs[pend->src[k]];
		*e = (struct route_event){
			.t_ms = t,
			.type = k < PAD_BUTTON_COUNT ? ROUTE_EVENT_KEY : ROUTE_EVENT_ABS,
			.code = k < PAD_BUTTON_COUNT ? pad_buttons[k].code
			                             : pad_axes[k - PAD_BUTTON_COUNT].code,
			.value = pend->value[k],
			.file = c->files[sr->file],
			.line = sr->line,
		};
		r->n_pad_events++;
		any = true;
	}
	r->n_instants += any;
}

/* An instant's points (shots, marks), after its pad events. */
static void emit_points(struct building *b, const struct step *steps, size_t n, int64_t t)
{
	struct ctx *c = b->c;
	struct route *r = b->r;
	for (size_t k = 0; k < n; k++) {
		const struct step *s = &steps[k];
		if (s->op != OP_POINT || s->name >= c->n_strings)
			continue;
		const struct src *sr = &c->srcs[s->src];
		bool shot = s->control == C_SHOT;
		r->events[r->n_events++] = (struct route_event){
			.t_ms = t,
			.type = shot ? ROUTE_EVENT_SHOT : ROUTE_EVENT_MARK,
			.name = c->strings[s->name],
			.file = c->files[sr->file],
			.line = sr->line,
		};
		if (shot) {
			b->shot_src[r->n_shots] = s->src;
			r->shots[r->n_shots++] = (struct route_point){ c->strings[s->name], t };
		} else {
			b->mark_src[r->n_marks] = s->src;
			r->marks[r->n_marks++] = (struct route_point){ c->strings[s->name], t };
		}
	}
}

/* Checks the expanded, absolute steps and builds the route's events, one
 * instant at a time. */
static void build(struct ctx *c, struct block *top, struct route *r)
{
	if (top->n > 1)
		qsort(top->steps, top->n, sizeof *top->steps, cmp_step);
	struct building b = { .c = c, .r = r };
	if (!build_alloc(&b, top)) {
		c->oom = true;
		goto out;
	}
	size_t i = 0;
	while (i < top->n) {
		struct tbuf tb = { 0 };
		int64_t t = top->steps[i].t;
		struct pending pend = { .n = 0 };
		for (int k = 0; k < PAD_BUTTON_COUNT + PAD_AXIS_COUNT; k++)
			pend.code_seen[k] = -1;
		size_t first = i;
		for (; i < top->n && top->steps[i].t == t; i++) {
			const struct step *s = &top->steps[i];
			if (t > c->duration_ms && c->duration_line && once(&b, s->src)) {
				error_src(c, s->src, "%s at %s, past the route's duration of %s",
				          s->how == H_AUTO_END ? "this ends" : "this is", ts(&tb, t),
				          ts(&tb, c->duration_ms));
			}
			if (s->op == OP_POINT)
				continue;
			if (s->control < C_STICK_L)
				step_button(&b, s, t, &pend);
			else
				step_axis(&b, s, t, &pend);
		}
		emit_changes(&b, t, &pend);
		emit_points(&b, top->steps + first, i - first, t);
	}
	check_unique(c, r->shots, r->n_shots, b.shot_src, "shot");
	check_unique(c, r->marks, r->n_marks, b.mark_src, "mark");
out:
	free(b.shot_src);
	free(b.mark_src);
	free(b.said);
}

static int cmp_error(const void *a, const void *b)
{
	const struct error_item *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->e.line != y->e.line)
		return x->e.line < y->e.line ? -1 : 1;
	if (x->e.column != y->e.column)
		return x->e.column < y->e.column ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

void route_free(struct route *route)
{
	if (!route)
		return;
	for (size_t i = 0; i < route->n_files; i++)
		free(route->files[i]);
	free(route->files);
	for (size_t i = 0; i < route->n_strings; i++)
		free(route->strings[i]);
	free(route->strings);
	free(route->events);
	free(route->shots);
	free(route->marks);
	free(route);
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; i < c->n_files; i++)
		free(c->files[i]);
	free(c->files);
	for (size_t i = 0; i < c->n_strings; i++)
		free(c->strings[i]);
	free(c->strings);
	free(c->srcs);
	free(c->errors);
}

int route_parse(const char *name, const char *text, size_t len,
                const struct route_parse_options *opt,
                struct route **out, struct util_diag *err)
{
	struct ctx c = { .opt = opt, .name = UINT32_MAX };
	struct route *r = calloc(1, sizeof *r);
	uint32_t file = add_file(&c, name ? name : "<route>");
	int rc = 0;
	if (!r || file == UINT32_MAX) {
		free(r);
		ctx_free(&c);
		return -ENOMEM;
	}
	/* the top file's own path, so a file including it is a cycle */
	char *real = (opt && opt->read_file) ? fold_path(c.files[0]) : realpath(c.files[0], NULL);
	c.chain[0] = real ? real : c.files[0];
	c.chain_file[0] = file;

	struct block top = { .every = -1 };
	parse_text(&c, file, text, len, &top);
	struct tbuf tb = { 0 };
	if (c.too_many && c.n_errors == 0)
		error_at(&c, file, 1, 1, "the route expands to more than %d actions", ROUTE_MAX_EVENTS);
	if (!c.name_line)
		error_at(&c, file, 1, 1, "the route has no 'route NAME' line");
	if (!c.duration_seen)
		error_at(&c, file, 1, 1, "the route has no 'duration TIME' line");
	if (!c.window_line) {
		c.window_start = 0;
		c.window_end = c.duration_ms;
	} else if (c.duration_line) {
		if (c.window_start >= c.duration_ms)
			error_src(&c, c.window_src_start, "the window's start %s is not inside the "
			          "duration %s", ts(&tb, c.window_start), ts(&tb, c.duration_ms));
		else if (c.window_end > c.duration_ms)
			error_src(&c, c.window_src_end, "the window's end %s is past the duration %s",
			          ts(&tb, c.window_end), ts(&tb, c.duration_ms));
	}
	if (!c.oom && !c.too_many)
		build(&c, &top, r);
	free_block(&c, &top);
	free(real);

	if (c.oom)
		rc = -ENOMEM;
	else if (c.n_errors > 0)
		rc = -EINVAL;
	if (c.n_errors > 0) {
		if (c.n_errors > 1)
			qsort(c.errors, c.n_errors, sizeof *c.errors, cmp_error);
		if (err)
			*err = c.errors[0].e;
		if (opt && opt->on_error) {
			for (size_t i = 0; i < c.n_errors; i++)
				opt->on_error(opt->error_ctx, &c.errors[i].e);
			if (c.dropped_errors) {
				struct util_diag more = { .line = 0 };
				snprintf(more.file, sizeof more.file, "%s", c.files[0]);
				snprintf(more.message, sizeof more.message, "%s: %zu more errors not shown",
				         c.files[0], c.dropped_errors);
				opt->on_error(opt->error_ctx, &more);
			}
		}
	} else if (rc < 0 && err) {
		memset(err, 0, sizeof *err);
		snprintf(err->file, sizeof err->file, "%s", c.files[0]);
		snprintf(err->message, sizeof err->message, "cannot parse route '%s': %s", c.files[0],
		         strerror(-rc));
	}
	if (rc < 0) {
		route_free(r);
		ctx_free(&c);
		return rc;
	}
	r->name = c.strings[c.name];
	r->duration_ms = c.duration_ms;
	r->window_start_ms = c.window_start;
	r->window_end_ms = c.window_end;
	r->files = c.files;
	r->n_files = c.n_files;
	r->strings = c.strings;
	r->n_strings = c.n_strings;
	c.files = NULL;
	c.n_files = 0;
	c.strings = NULL;
	c.n_strings = 0;
	ctx_free(&c);
	*out = r;
	return 0;
}

int route_load_with(const char *path, const struct route_parse_options *opt,
                    struct route **out, struct util_diag *err)
{
	char *text = NULL;
	size_t len = 0;
	int r = (opt && opt->read_file) ? opt->read_file(opt->read_ctx, path, &text, &len)
	                                : read_from_disk(NULL, path, &text, &len);
	if (r < 0) {
		struct util_diag e = { .line = 0 };
		snprintf(e.file, sizeof e.file, "%s", path);
		snprintf(e.message, sizeof e.message, "cannot open route '%s': %s", path, read_error(r));
		if (err)
			*err = e;
		if (opt && opt->on_error)
			opt->on_error(opt->error_ctx, &e);
		return r;
	}
	r = route_parse(path, text, len, opt, out, err);
	free(text);
	return r;
}

int route_load(const char *path, struct route **out, struct util_diag *err)
{
	return route_load_with(path, NULL, out, err);
}

const char *route_name(const struct route *route)
{
	return route->name;
}

int64_t route_duration_ms(const struct route *route)
{
	return route->duration_ms;
}

void route_window_ms(const struct route *route, int64_t *start_ms, int64_t *end_ms)
{
	if (start_ms)
		*start_ms = route->window_start_ms;
	if (end_ms)
		*end_ms = route->window_end_ms;
}

const struct route_event *route_events(const struct route *route, size_t *n)
{
	*n = route->n_events;
	return route->events;
}

const struct route_point *route_shots(const struct route *route, size_t *n)
{
	*n = route->n_shots;
	return route->shots;
}

const struct route_point *route_marks(const struct route *route, size_t *n)
{
	*n = route->n_marks;
	return route->marks;
}

size_t route_pad_event_count(const struct route *route)
{
	return route->n_pad_events;
}

size_t route_instant_count(const struct route *route)
{
	return route->n_instants;
}
