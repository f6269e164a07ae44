/* collect-frames: frame-log parsing.  It owns reading the renderer's frame
 * log (DESIGN.md 3.4), MangoHud CSV logs and PresentMon CSVs (1.x and 2.x
 * column names) into struct collect_frames:
 * finding the header (MangoHud may put a version line and a system-info
 * block before it), reading columns by name, skipping broken rows with a
 * warning, and MangoHud's quirks: frametime in µs (older versions) or ms,
 * `elapsed` in ns, rows that are periodic samples rather than frames, and a
 * start-up row with an absurd frame time; and rows whose timestamps go back
 * or jump impossibly far ahead, skipped one by one.  What the frames mean over a
 * window is stats' business (stats-run.c). */
#include "collect-private.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Header lines are looked for among the first lines only. */
#define HEADER_SEARCH_LINES 16
/* Broken rows warned about one by one; the rest are counted. */
#define BROKEN_WARN_MAX 10
/* MangoHud start-up rows considered for "absurd frame time". */
#define STARTUP_ROWS_MAX 10
#define ABSURD_FRAME_MS 10000.0
#define ABSURD_FACTOR 100.0
/* A step between two rows' timestamps longer than this is impossible: no
 * frame takes an hour. */
#define COLLECT_MAX_STEP_S 3600.0

enum role {
	R_IGNORE = 0,
	R_FRAME,
	R_PRESENT_NS,
	R_KIND,
	R_FRAME_MS,
	R_DRAWS,
	R_RB_WAIT_MS,
	R_MEMSYNC_MS,
	R_FPS,
	R_FRAMETIME,
	R_ELAPSED,
	R_PM_TIME_S,     /* PresentMon: the present's time, s since recording started */
	R_PM_TIME_MS,    /* the same in ms (--time_ms) */
	R_PM_DATETIME,   /* the same as local date and time (--date_time) */
	R_PM_BETWEEN,    /* MsBetweenPresents */
	R_PM_APP_FRAME,  /* 2.x's CPU frame time when there is no MsBetweenPresents */
	R_PM_FRAME_TYPE, /* Application, or a generated frame's generator */
	R_PM_DROPPED,    /* 1.x: 1 when the present was never displayed */
	R_PM_DISPLAYED,  /* 2.x: how long it was displayed, NA when never */
	R_COUNT,
};

static const char *const rxvk_columns[R_COUNT] = {
	[R_FRAME] = "frame",
	[R_PRESENT_NS] = "present_ns",
	[R_KIND] = "kind",
	[R_FRAME_MS] = "frame_ms",
	[R_DRAWS] = "draws",
	[R_RB_WAIT_MS] = "rb_wait_ms",
	[R_MEMSYNC_MS] = "memsync_ms",
};

static const char *const mangohud_columns[R_COUNT] = {
	[R_FPS] = "fps",
	[R_FRAMETIME] = "frametime",
	[R_ELAPSED] = "elapsed",
};

/* PresentMon's column names across versions (compared without case: 1.x
 * writes msBetweenPresents, its README MsBetweenPresents).  Sources:
 * PresentMon's README-ConsoleApplication.md "CSV columns" (1.x: README.md
 * of v1.9.2) and PresentMon/CsvOutput.cpp; tests/data/presentmon/README.md
 * lists them. */
static const struct {
	enum role role;
	const char *name;
} presentmon_columns[] = {
	{ R_PM_TIME_S, "TimeInSeconds" },         /* 1.x, and 2.x's default since 2.4 */
	{ R_PM_TIME_S, "CPUStartTime" },          /* 2.0-2.3 (--v2_metrics later) */
	{ R_PM_TIME_S, "CPUStartTimeInSeconds" },
	{ R_PM_TIME_MS, "TimeInMs" },
	{ R_PM_TIME_MS, "CPUStartTimeInMs" },
	/* --date_time (2.0 and later): the time columns above become these,
	 * "Y-M-D H:MM:SS.nnnnnnnnn" in local time (CsvOutput.cpp's
	 * "%u-%u-%u %u:%02u:%02u.%09llu" of TimestampToLocalSystemTime()) */
	{ R_PM_DATETIME, "TimeInDateTime" },      /* 2.4 and later, default metrics */
	{ R_PM_DATETIME, "CPUStartDateTime" },    /* 2.0-2.3 (--v2_metrics later), and 2.4's CPU start */
	{ R_PM_BETWEEN, "MsBetweenPresents" },
	{ R_PM_APP_FRAME, "MsBetweenAppStart" },
	{ R_PM_APP_FRAME, "FrameTime" },
	{ R_PM_FRAME_TYPE, "FrameType" },
	{ R_PM_DROPPED, "Dropped" },
	{ R_PM_DISPLAYED, "DisplayedTime" },
	{ R_PM_DISPLAYED, "MsDisplayedTime" },
};
#define N_PRESENTMON_COLUMNS (sizeof presentmon_columns / sizeof presentmon_columns[0])

/* The name a role is shown with in messages. */
static const char *role_name(enum collect_source source, enum role r)
{
	if (source == COLLECT_SOURCE_PRESENTMON) {
		for (size_t i = 0; i < N_PRESENTMON_COLUMNS; i++)
			if (presentmon_columns[i].role == r)
				return presentmon_columns[i].name;
		return "?";
	}
	const char *n = source == COLLECT_SOURCE_MANGOHUD ? mangohud_columns[r] : rxvk_columns[r];
	return n ? n : "?";
}

struct line {
	const char *s, *end; /* without the newline and a trailing '\r' */
	size_t no;           /* 1-based */
};

struct parser {
	const char *name;
	const char *data, *end;
	const char *pos;
	size_t line_no;
	struct collect_frames *f;
	size_t cap;
	/* the header */
	enum role *roles;
	size_t ncols;
	int have[R_COUNT];  /* column index + 1, 0 when absent */
	/* MangoHud: line numbers of the first rows (start-up row messages) */
	size_t first_lines[STARTUP_ROWS_MAX];
	bool elapsed_ok;
	size_t last_line;   /* line of the last row kept */
	enum role time_role; /* the column timestamps come from */
	size_t dropped;      /* PresentMon: presents never displayed */
	/* PresentMon --date_time: the first row's local time, ns (the log's
	 * present_ns 0 when the date-time column is the clock) */
	bool have_wall;
	int64_t wall_origin_ns;
	bool time_kind_known;      /* the time column's first value was seen */
	bool time_is_date;         /* ... and was a date (1.x's -date_time) */
	struct collect_error *err; /* where a fatal row error goes */
	bool fatal;                /* err is filled: the parse fails */
};

static bool next_line(struct parser *p, struct line *l, bool *cut)
{
	if (p->pos >= p->end)
		return false;
	const char *nl = memchr(p->pos, '\n', (size_t)(p->end - p->pos));
	*cut = nl == NULL;
	l->s = p->pos;
	l->end = nl ? nl : p->end;
	l->no = ++p->line_no;
	p->pos = nl ? nl + 1 : p->end;
	if (l->end > l->s && l->end[-1] == '\r')
		l->end--;
	return true;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

static bool field_is(const char *s, const char *e, const char *name)
{
	trim(&s, &e);
	size_t n = strlen(name);
	return (size_t)(e - s) == n && memcmp(s, name, n) == 0;
}

static bool field_is_nocase(const char *s, const char *e, const char *name)
{
	trim(&s, &e);
	size_t n = strlen(name);
	if ((size_t)(e - s) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char a = s[i], b = name[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return true;
}

static enum role presentmon_role(const char *s, const char *e)
{
	for (size_t i = 0; i < N_PRESENTMON_COLUMNS; i++)
		if (field_is_nocase(s, e, presentmon_columns[i].name))
			return presentmon_columns[i].role;
	return R_IGNORE;
}

/* The table's spelling of the header's column that role r was found at
 * (for messages and ->wall_column): "?" when there is none. */
static const char *role_name_at(const struct parser *p, const struct line *l, enum role r)
{
	const char *s = l->s;
	for (int i = 0; i < p->have[r] - 1; i++) {
		const char *c = memchr(s, ',', (size_t)(l->end - s));
		if (!c)
			return "?";
		s = c + 1;
	}
	const char *c = memchr(s, ',', (size_t)(l->end - s));
	const char *e = c ? c : l->end;
	for (size_t i = 0; i < N_PRESENTMON_COLUMNS; i++)
		if (presentmon_columns[i].role == r && field_is_nocase(s, e, presentmon_columns[i].name))
			return presentmon_columns[i].name;
	return "?";
}

/* Does the comma-separated line have a column called name? */
static bool line_has_column(const struct line *l, const char *name)
{
	const char *s = l->s;
	for (;;) {
		const char *c = memchr(s, ',', (size_t)(l->end - s));
		const char *e = c ? c : l->end;
		if (field_is(s, e, name))
			return true;
		if (!c)
			return false;
		s = c + 1;
	}
}

static enum collect_source header_kind(const struct line *l)
{
	if (line_has_column(l, "present_ns") && line_has_column(l, "kind"))
		return COLLECT_SOURCE_RXVK;
	bool pm_time = false, pm_frame = false;
	for (const char *s = l->s;;) {
		const char *c = memchr(s, ',', (size_t)(l->end - s));
		const char *e = c ? c : l->end;
		enum role r = presentmon_role(s, e);
		pm_time |= r == R_PM_TIME_S || r == R_PM_TIME_MS || r == R_PM_DATETIME;
		pm_frame |= r == R_PM_BETWEEN || r == R_PM_APP_FRAME;
		if (!c)
			break;
		s = c + 1;
	}
	if (pm_time && pm_frame)
		return COLLECT_SOURCE_PRESENTMON;
	if (line_has_column(l, "os"))
		return COLLECT_SOURCE_AUTO; /* MangoHud's system-info header */
	if (line_has_column(l, "frametime") || line_has_column(l, "fps"))
		return COLLECT_SOURCE_MANGOHUD;
	return COLLECT_SOURCE_AUTO;
}

static int set_error(struct collect_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_error(struct collect_error *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int read_header(struct parser *p, const struct line *l, struct collect_error *err)
{
	enum collect_source src = p->f->source;
	const char *const *names = src == COLLECT_SOURCE_RXVK ? rxvk_columns : mangohud_columns;
	size_t ncols = 1;
	for (const char *c = l->s; c < l->end; c++)
		ncols += *c == ',';
	p->roles = calloc(ncols, sizeof *p->roles);
	if (!p->roles)
		return -ENOMEM;
	p->ncols = ncols;
	const char *s = l->s;
	for (size_t i = 0; i < ncols; i++) {
		const char *c = memchr(s, ',', (size_t)(l->end - s));
		const char *e = c ? c : l->end;
		enum role found = R_IGNORE;
		if (src == COLLECT_SOURCE_PRESENTMON) {
			found = presentmon_role(s, e);
		} else {
			for (int r = 1; r < R_COUNT && !found; r++)
				if (names[r] && field_is(s, e, names[r]))
					found = (enum role)r;
		}
		if (found && p->have[found] && src == COLLECT_SOURCE_PRESENTMON) {
			/* 2.x writes TimeInSeconds and CPUStartTimeInSeconds: the
			 * first of a role's names wins, as the table orders them */
		} else if (found && p->have[found]) {
			char what[64];
			collect_excerpt(s, e, what, sizeof what);
			util_warnings_add(&p->f->warnings,
			                     "%s:%zu:%zu: column '%s' appears twice, the first one is used",
			                     p->name, l->no, (size_t)(s - l->s) + 1, what);
		} else if (found) {
			p->have[found] = (int)i + 1;
			p->roles[i] = found;
		}
		s = e + 1;
	}
	if (p->f->source == COLLECT_SOURCE_RXVK) {
		static const enum role required[] = { R_PRESENT_NS, R_KIND };
		for (size_t i = 0; i < sizeof required / sizeof *required; i++)
			if (!p->have[required[i]])
				return set_error(err, "%s:%zu:1: frame log header has no '%s' column",
				                 p->name, l->no, rxvk_columns[required[i]]);
		static const enum role optional[] = { R_FRAME_MS, R_DRAWS, R_RB_WAIT_MS, R_MEMSYNC_MS };
		for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
			if (!p->have[optional[i]])
				util_warnings_add(&p->f->warnings,
				                     "%s:%zu:1: no '%s' column; its metric is left empty",
				                     p->name, l->no, rxvk_columns[optional[i]]);
	} else if (src == COLLECT_SOURCE_PRESENTMON) {
		/* a time column and a frame-time column: header_kind() saw both */
		p->time_role = p->have[R_PM_TIME_S] ? R_PM_TIME_S
		               : p->have[R_PM_TIME_MS] ? R_PM_TIME_MS : R_PM_DATETIME;
		if (p->have[R_PM_DATETIME])
			p->f->wall_column = role_name_at(p, l, R_PM_DATETIME);
		/* 1.x names its runtime column Runtime, 2.x PresentRuntime and
		 * its times CPUStart... */
		p->f->format = line_has_column(l, "PresentRuntime") || !p->have[R_PM_DROPPED]
		               ? "PresentMon 2.x CSV" : "PresentMon 1.x CSV";
		if (!p->have[R_PM_BETWEEN])
			util_warnings_add(&p->f->warnings,
			                     "%s:%zu:1: no 'MsBetweenPresents' column: frame times are PresentMon 2.x's CPU frame time ('%s')",
			                     p->name, l->no, "FrameTime");
	} else {
		if (!p->have[R_FRAMETIME] && !p->have[R_FPS])
			return set_error(err, "%s:%zu:1: MangoHud header has neither 'frametime' nor 'fps'",
			                 p->name, l->no);
		if (!p->have[R_FRAMETIME])
			util_warnings_add(&p->f->warnings,
			                     "%s:%zu:1: no 'frametime' column (a very old MangoHud): frame times are 1000 / fps, and fps is MangoHud's running average, not single frames",
			                     p->name, l->no);
	}
	return 0;
}

static void broken(struct parser *p, const struct line *l, const char *at, const char *fmt,
                   const char *a, const char *b)
{
	p->f->broken_lines++;
	if (p->f->broken_lines > BROKEN_WARN_MAX)
		return;
	char what[160];
	snprintf(what, sizeof what, fmt, a, b);
	util_warnings_add(&p->f->warnings, "%s:%zu:%zu: %s, line skipped", p->name, l->no,
	                     (size_t)(at - l->s) + 1, what);
}

/* Room for cap frames in all (the array only grows). */
static int frames_reserve(struct parser *p, size_t cap)
{
	if (cap <= p->cap)
		return 0;
	struct collect_frame *v = realloc(p->f->frames, cap * sizeof *v);
	if (!v)
		return -ENOMEM;
	util_hint_huge(v, cap * sizeof *v);
	p->f->frames = v;
	p->cap = cap;
	return 0;
}

static int push(struct parser *p, const struct collect_frame *fr)
{
	if (p->f->n == p->cap && frames_reserve(p, p->cap ? p->cap * 2 : 1024) < 0)
		return -ENOMEM;
	p->f->frames[p->f->n++] = *fr;
	return 0;
}

/*
 * A row's timestamp against the rows kept before it.  Timestamps never go
 * back, so a row behind the last kept one is wrong, or the last kept one
 * was: when the row is behind the last kept row but not behind the one
 * before that, the last kept row jumped ahead alone (a glitched clock
 * value) and is dropped instead, so one bad value never takes the rest of
 * the log with it.  A step of more than COLLECT_MAX_STEP_S ahead is
 * impossible in a frame log (the watchdog ends a run long before) and the
 * row is skipped.  Every skipped row is reported file:line:column.
 * Returns 1 to keep the row, 0 when it is skipped.
 */
static int check_time(struct parser *p, const struct line *l, const struct collect_frame *fr)
{
	struct collect_frames *f = p->f;
	const char *what = role_name(f->source, p->time_role);
	int col = p->have[p->time_role] - 1;
	const char *at = l->s;
	for (int k = 0; k < col && at < l->end; at++)
		k += *at == ',';
	int64_t last = f->frames[f->n - 1].present_ns;
	char a[48], b[48];
	if (fr->present_ns < last) {
		if (f->n >= 2 && fr->present_ns >= f->frames[f->n - 2].present_ns) {
			snprintf(a, sizeof a, "%.3f", (double)(last - f->frames[f->n - 2].present_ns) / 1e9);
			f->n--;
			f->broken_lines++;
			if (f->broken_lines <= BROKEN_WARN_MAX)
				util_warnings_add(&f->warnings,
				                     "%s:%zu: %s jumps %s s ahead and line %zu comes back: an impossible jump, line skipped",
				                     p->name, p->last_line, what, a, l->no);
			return 1;
		}
		broken(p, l, at, "%s goes back in time%s", what, "");
		return 0;
	}
	if ((double)(fr->present_ns - last) > COLLECT_MAX_STEP_S * 1e9) {
		snprintf(a, sizeof a, "%.3f", (double)(fr->present_ns - last) / 1e9);
		snprintf(b, sizeof b, "%.0f", COLLECT_MAX_STEP_S);
		broken(p, l, at, "an impossible jump of %s s ahead (more than %s s)", a, b);
		return 0;
	}
	return 1;
}

/* ---- local date and time (PresentMon --date_time) -------------------- */

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

/* Reads 1..max digits at *s (before e) into *v; false when there are none
 * or more than max. */
static bool read_digits(const char **s, const char *e, int max, int64_t *v, int *count)
{
	int n = 0;
	int64_t x = 0;
	while (*s < e && **s >= '0' && **s <= '9' && n <= max) {
		x = x * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	if (count)
		*count = n;
	*v = x;
	return n >= 1 && n <= max;
}

/*
 * Parses PresentMon's --date_time value, "Y-M-D H:MM:SS.nnnnnnnnn" as its
 * CsvOutput.cpp writes it ("%u-%u-%u %u:%02u:%02u.%09llu": month, day and
 * hour without leading zeros, which are accepted too; the fraction may
 * have 0 to 9 digits), into ns since 1970-01-01 00:00 of the same calendar:
 * local time read as if it were UTC, with no zone (differences within one
 * log or one campaign are all that is used).  Returns true, or false with
 * why (a sentence without the value) filled.
 */
static bool parse_local_datetime(const char *s, const char *e, int64_t *ns, char *why, size_t size)
{
	int64_t y, mo, d, h, mi, sec, frac = 0;
	int nd = 0;
	const char *form = "expected Y-M-D H:MM:SS.nnnnnnnnn, as PresentMon's --date_time writes it";
	if (!read_digits(&s, e, 4, &y, NULL) || s == e || *s++ != '-' ||
	    !read_digits(&s, e, 2, &mo, NULL) || s == e || *s++ != '-' ||
	    !read_digits(&s, e, 2, &d, NULL) || s == e || *s++ != ' ' ||
	    !read_digits(&s, e, 2, &h, NULL) || s == e || *s++ != ':' ||
	    !read_digits(&s, e, 2, &mi, &nd) || nd != 2 || s == e || *s++ != ':' ||
	    !read_digits(&s, e, 2, &sec, &nd) || nd != 2) {
		snprintf(why, size, "%s", form);
		return false;
	}
	if (s < e && *s == '.' && ++s < e && *s >= '0' && *s <= '9') {
		if (!read_digits(&s, e, 9, &frac, &nd)) {
			snprintf(why, size, "more than 9 digits after the second (%s)", form);
			return false;
		}
		for (int k = nd; k < 9; k++)
			frac *= 10;
	}
	if (s != e) {
		snprintf(why, size, "%s", form);
		return false;
	}
	/* SYSTEMTIME's ranges: years 1601 to 30827; no leap second */
	if (y < 1601)
		snprintf(why, size, "year %" PRId64 " is before 1601", y);
	else if (mo < 1 || mo > 12)
		snprintf(why, size, "month %" PRId64 " is not 1 to 12", mo);
	else if (d < 1 || d > days_in_month(y, (int)mo))
		snprintf(why, size, "day %" PRId64 " is not in month %" PRId64 " of %" PRId64 " (1 to %d)",
		         d, mo, y, days_in_month(y, (int)mo));
	else if (h > 23)
		snprintf(why, size, "hour %" PRId64 " is not 0 to 23", h);
	else if (mi > 59)
		snprintf(why, size, "minute %" PRId64 " is not 0 to 59", mi);
	else if (sec > 59)
		snprintf(why, size, "second %" PRId64 " is not 0 to 59", sec);
	else {
		int64_t days = days_from_civil(y, (int)mo, (int)d);
		*ns = ((days * 24 + h) * 60 + mi) * 60 + sec;
		*ns = *ns * 1000000000 + frac;
		return true;
	}
	return false;
}

/* A data row being read: its frame, and what PresentMon's columns add. */
struct row {
	struct collect_frame fr;
	double app_frame_ms;       /* PresentMon 2.x's CPU frame time; NaN if absent */
	bool dropped;              /* PresentMon: the frame was never shown */
	bool has_wall;             /* PresentMon --date_time: wall_ns is set */
	int64_t wall_ns;           /* its local time, ns (parse_local_datetime()) */
};

/* Says a field is broken: "bad NAME 'excerpt'" at its place.  false. */
static bool bad_field(struct parser *p, const struct line *l, const char *at, const char *name,
                      const char *fs, const char *fe)
{
	char ex[40];
	collect_excerpt(fs, fe, ex, sizeof ex);
	broken(p, l, at, "bad %s '%s'", name, ex);
	return false;
}

/* A date-time field (parse_local_datetime()): the row's wall clock and,
 * when the column is the log's clock, its present_ns from the first row.
 * A date that does not read is no damage to skip: the run is placed in
 * time by it, so the file is refused (p->fatal, err filled).  false: the
 * row is broken (said) or the file refused. */
static bool field_datetime(struct parser *p, const struct line *l, const char *at, const char *fs,
                           const char *fe, struct row *row, bool is_clock)
{
	char why[160], ex[48];
	if (!parse_local_datetime(fs, fe, &row->wall_ns, why, sizeof why)) {
		collect_excerpt(fs, fe, ex, sizeof ex);
		if (p->err)
			snprintf(p->err->msg, sizeof p->err->msg, "%s:%zu:%zu: bad %s '%s': %s", p->name, l->no,
			         (size_t)(at - l->s) + 1, p->f->wall_column, ex, why);
		p->fatal = true;
		return false;
	}
	row->has_wall = true;
	if (is_clock) {
		if (!p->have_wall) {
			p->have_wall = true;
			p->wall_origin_ns = row->wall_ns;
		}
		row->fr.present_ns = row->wall_ns - p->wall_origin_ns;
		if (row->fr.present_ns < 0) {
			broken(p, l, at, "%s goes back in time%s", p->f->wall_column, "");
			return false;
		}
	}
	return true;
}

/* PresentMon's fields: times, frame times, frame type, dropped.  false:
 * the row is broken (said). */
static bool field_presentmon(struct parser *p, const struct line *l, const char *at, enum role r,
                             const char *fs, const char *fe, struct row *row)
{
	const char *name = role_name(p->f->source, r);
	double v;
	switch (r) {
	case R_PM_TIME_S:
	case R_PM_TIME_MS: {
		/* 1.x's -date_time writes the date in TimeInSeconds: the first
		 * row says which the column holds */
		if (!p->time_kind_known) {
			p->time_kind_known = true;
			if (memchr(fs, ':', (size_t)(fe - fs))) {
				p->time_is_date = true;
				p->f->wall_column = name;
			}
		}
		if (p->time_is_date)
			return field_datetime(p, l, at, fs, fe, row, true);
		double scale = r == R_PM_TIME_S ? 1e9 : 1e6;
		if (collect_parse_number(fs, fe, &v) != 0 || v < 0 || v * scale > 9e18)
			return bad_field(p, l, at, name, fs, fe);
		row->fr.present_ns = (int64_t)llround(v * scale);
		return true;
	}
	case R_PM_DATETIME:
		return field_datetime(p, l, at, fs, fe, row, p->time_role == R_PM_DATETIME);
	case R_PM_BETWEEN:
	case R_PM_APP_FRAME:
		if (collect_parse_number(fs, fe, &v) != 0 || v < 0 || v > 1e9)
			return bad_field(p, l, at, name, fs, fe);
		if (r == R_PM_BETWEEN)
			row->fr.frame_ms = (float)v;
		else
			row->app_frame_ms = v;
		return true;
	case R_PM_FRAME_TYPE:
		/* NotSet and Repeated are written as Application */
		if (!field_is(fs, fe, "Application") && fe > fs)
			row->fr.kind = COLLECT_FRAME_SHOWN;
		return true;
	case R_PM_DROPPED:
		row->dropped = field_is(fs, fe, "1");
		return true;
	case R_PM_DISPLAYED:
		row->dropped = field_is(fs, fe, "NA");
		return true;
	default:
		return true;
	}
}

/* The frame's number, its time (present_ns, MangoHud's elapsed) and the
 * renderer's kind.  false: the row is broken (said). */
static bool field_count_or_kind(struct parser *p, const struct line *l, const char *at, enum role r,
                                const char *fs, const char *fe, struct row *row)
{
	const char *name = role_name(p->f->source, r);
	int64_t iv;
	double v;
	char ex[40];
	switch (r) {
	case R_FRAME:
		return collect_parse_i64(fs, fe, &iv) == 0 || bad_field(p, l, at, name, fs, fe);
	case R_PRESENT_NS:
	case R_ELAPSED:
		if (collect_parse_i64(fs, fe, &iv) != 0) {
			/* some writers print large counts as floats */
			if (r == R_ELAPSED && collect_parse_number(fs, fe, &v) == 0 && v >= 0 && v < 9e18)
				iv = (int64_t)v;
			else
				return bad_field(p, l, at, name, fs, fe);
		}
		row->fr.present_ns = iv;
		return true;
	case R_KIND:
		if (field_is(fs, fe, "real")) {
			row->fr.kind = COLLECT_FRAME_REAL;
		} else if (field_is(fs, fe, "shown")) {
			row->fr.kind = COLLECT_FRAME_SHOWN;
		} else {
			collect_excerpt(fs, fe, ex, sizeof ex);
			broken(p, l, at, "kind '%s' is neither 'real' nor 'shown'%s", ex, "");
			return false;
		}
		return true;
	default:
		return true;
	}
}

/* The numeric columns: frame_ms, draws, rb_wait_ms, memsync_ms, fps,
 * MangoHud's frametime.  false: the row is broken (said). */
static bool field_number(struct parser *p, const struct line *l, const char *at, enum role r,
                         const char *fs, const char *fe, struct row *row)
{
	double v;
	char ex[40];
	if (collect_parse_number(fs, fe, &v) != 0 || v < 0)
		return bad_field(p, l, at, role_name(p->f->source, r), fs, fe);
	switch (r) {
	case R_FRAME_MS:
		row->fr.frame_ms = (float)v;
		break;
	case R_DRAWS:
		/* a count: whole, and at most 2^32 - 1 (the database's) */
		if (v > 4294967295.0 || v != floor(v)) {
			collect_excerpt(fs, fe, ex, sizeof ex);
			broken(p, l, at, "draws '%s' is not a whole number up to 4294967295%s", ex, "");
			return false;
		}
		row->fr.draws = (float)v;
		break;
	case R_RB_WAIT_MS:
		row->fr.rb_wait_ms = (float)v;
		break;
	case R_MEMSYNC_MS:
		row->fr.memsync_ms = (float)v;
		break;
	case R_FPS:
		row->fr.fps = (float)v;
		break;
	case R_FRAMETIME:
		/* 1e9 is 1000 s in µs, 11 days in ms: not a frame */
		if (v > 1e9 || v <= 0) {
			collect_excerpt(fs, fe, ex, sizeof ex);
			broken(p, l, at, v > 1e9 ? "frametime '%s' is out of range%s"
			                         : "frametime '%s' is not above 0%s", ex, "");
			return false;
		}
		row->fr.frame_ms = (float)v;
		break;
	default:
		break;
	}
	return true;
}

/* One field of the row, by its column's role.  false: broken (said). */
static bool read_field(struct parser *p, const struct line *l, const char *at, enum role r,
                       const char *fs, const char *fe, struct row *row)
{
	switch (r) {
	case R_PM_TIME_S:
	case R_PM_TIME_MS:
	case R_PM_DATETIME:
	case R_PM_BETWEEN:
	case R_PM_APP_FRAME:
	case R_PM_FRAME_TYPE:
	case R_PM_DROPPED:
	case R_PM_DISPLAYED:
		return field_presentmon(p, l, at, r, fs, fe, row);
	case R_FRAME:
	case R_PRESENT_NS:
	case R_ELAPSED:
	case R_KIND:
		return field_count_or_kind(p, l, at, r, fs, fe, row);
	default:
		return field_number(p, l, at, r, fs, fe, row);
	}
}

/* The row read whole: its frame time where a source has it elsewhere
 * (PresentMon 2.x's CPU frame time, MangoHud's fps), its time checked
 * against the rows before, and kept.  0 (kept or skipped as broken) or
 * -ENOMEM. */
static int finish_row(struct parser *p, const struct line *l, struct row *row)
{
	struct collect_frame *fr = &row->fr;
	bool mango = p->f->source == COLLECT_SOURCE_MANGOHUD;
	if (p->f->source == COLLECT_SOURCE_PRESENTMON) {
		if (!p->have[R_PM_BETWEEN])
			fr->frame_ms = (float)row->app_frame_ms;
		p->dropped += row->dropped;
	}
	if (mango && !p->have[R_FRAMETIME]) {
		if (!(fr->fps > 0)) {
			broken(p, l, l->s, "fps is 0, no frame time%s%s", "", "");
			return 0;
		}
		fr->frame_ms = (float)(1000.0 / fr->fps);
	}
	if (fr->present_ns >= 0 && p->f->n > 0) {
		int rc = check_time(p, l, fr);
		if (rc <= 0)
			return rc;
	}
	if (row->has_wall && !p->f->has_wall_clock) {
		/* the local time of present_ns 0 */
		p->f->has_wall_clock = true;
		p->f->wall_start_ns = row->wall_ns - fr->present_ns;
	}
	if (mango && p->f->n < STARTUP_ROWS_MAX)
		p->first_lines[p->f->n] = l->no;
	p->last_line = l->no;
	return push(p, fr);
}

/* Parses one data row: its fields by their columns' roles, then
 * finish_row().  Returns 0 (row kept or skipped as broken) or -ENOMEM. */
static int parse_row(struct parser *p, const struct line *l)
{
	struct row row = {
		.fr = {
			.present_ns = -1,
			.frame_ms = NAN,
			.rb_wait_ms = NAN,
			.memsync_ms = NAN,
			.draws = NAN,
			.fps = NAN,
			.kind = COLLECT_FRAME_REAL,
		},
		.app_frame_ms = NAN,
	};
	const char *s = l->s;
	const char *extra_at = NULL;
	size_t i = 0;
	for (;; i++) {
		const char *c = memchr(s, ',', (size_t)(l->end - s));
		const char *e = c ? c : l->end;
		enum role r = i < p->ncols ? p->roles[i] : R_IGNORE;
		if (i == p->ncols)
			extra_at = s;
		if (r != R_IGNORE) {
			const char *fs = s, *fe = e;
			trim(&fs, &fe);
			if (!read_field(p, l, s, r, fs, fe, &row))
				return p->fatal ? -EINVAL : 0;
		}
		if (!c)
			break;
		s = c + 1;
	}
	if (i + 1 != p->ncols) {
		char a[24], b[24];
		snprintf(a, sizeof a, "%zu", i + 1);
		snprintf(b, sizeof b, "%zu", p->ncols);
		broken(p, l, extra_at ? extra_at : l->end, "%s columns where the header has %s", a, b);
		return 0;
	}
	return finish_row(p, l, &row);
}

static double median_of(double *tmp, size_t n)
{
	if (n == 0)
		return NAN;
	util_select(tmp, n, (n - 1) / 2);
	double m = tmp[(n - 1) / 2];
	if (n % 2 == 0) {
		double hi = tmp[n / 2];
		for (size_t i = n / 2 + 1; i < n; i++)
			if (tmp[i] < hi)
				hi = tmp[i];
		m = (m + hi) / 2;
	}
	return m;
}

/* MangoHud step 1: the frametime unit.  fps x frametime is ~1000 for ms,
 * ~1e6 for µs; without a usable fps, a median frame time too long for ms
 * is µs.  Frame times in µs are converted to ms. */
static void mangohud_unit(struct parser *p, double *tmp)
{
	struct collect_frames *f = p->f;
	if (!p->have[R_FRAMETIME])
		return;
	size_t m = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->frames[i].fps > 0)
			tmp[m++] = (double)f->frames[i].fps * f->frames[i].frame_ms;
	bool us;
	if (m > 0) {
		double prod = median_of(tmp, m);
		us = prod > 31622.8; /* 10^4.5, between 1e3 and 1e6 */
		util_warnings_add(&f->warnings,
		                     us ? "%s: frametime read as µs (older MangoHud: fps × frametime ≈ %.0f), converted to ms"
		                        : "%s: frametime read as ms (current MangoHud: fps × frametime ≈ %.0f)",
		                     p->name, prod);
	} else {
		for (size_t i = 0; i < f->n; i++)
			tmp[i] = f->frames[i].frame_ms;
		double med = median_of(tmp, f->n);
		us = med > 250.0;
		util_warnings_add(&f->warnings,
		                     us ? "%s: frametime read as µs (no usable fps column; median frametime %.0f is too long for ms), converted to ms"
		                        : "%s: frametime read as ms (no usable fps column; median frametime %.3g)",
		                     p->name, med);
	}
	if (us) {
		f->frametime_was_us = true;
		for (size_t i = 0; i < f->n; i++)
			f->frames[i].frame_ms /= 1000.0f;
	}
}

/* MangoHud step 2: the first rows with an absurd frame time (the time
 * since the game's start, not a frame) are left out, each said; later
 * long frames are kept, counted in one warning. */
static void mangohud_startup_rows(struct parser *p, double *tmp)
{
	struct collect_frames *f = p->f;
	for (size_t i = 0; i < f->n; i++)
		tmp[i] = f->frames[i].frame_ms;
	double med_ms = median_of(tmp, f->n);
	size_t drop = 0;
	while (drop < f->n - 1 && drop < STARTUP_ROWS_MAX) {
		double ft = f->frames[drop].frame_ms;
		if (!(ft > ABSURD_FRAME_MS || ft > ABSURD_FACTOR * med_ms))
			break;
		util_warnings_add(&f->warnings,
		                     "%s:%zu: start-up row with a frame time of %.1f ms (median %.2f ms) left out",
		                     p->name, p->first_lines[drop], ft, med_ms);
		drop++;
	}
	if (drop) {
		memmove(f->frames, f->frames + drop, (f->n - drop) * sizeof *f->frames);
		f->n -= drop;
		f->dropped_rows = drop;
	}
	size_t stalls = 0;
	for (size_t i = 0; i < f->n; i++)
		stalls += f->frames[i].frame_ms > ABSURD_FRAME_MS;
	if (stalls)
		util_warnings_add(&f->warnings,
		                     "%s: %zu frame times over %.0f s after the start are kept (real stalls?)",
		                     p->name, stalls, ABSURD_FRAME_MS / 1000);
}

/* MangoHud step 3: the timestamps.  elapsed (ns since the log's start)
 * where it counts ns, else the running sum of frame times.  Returns
 * whether elapsed is used. */
static bool mangohud_timestamps(struct parser *p)
{
	struct collect_frames *f = p->f;
	bool use_elapsed = p->have[R_ELAPSED] != 0;
	if (use_elapsed && f->n >= 2) {
		double span_ns = (double)(f->frames[f->n - 1].present_ns - f->frames[0].present_ns);
		double sum_ns = 0;
		for (size_t i = 1; i < f->n; i++)
			sum_ns += f->frames[i].frame_ms * 1e6;
		if (span_ns * 2 < sum_ns) {
			util_warnings_add(&f->warnings,
			                     "%s: elapsed does not count ns (it spans %.3g while the frame times add up to %.3g s); the running sum of frame times is used instead",
			                     p->name, span_ns, sum_ns / 1e9);
			use_elapsed = false;
		}
	}
	if (use_elapsed)
		return true;
	if (!p->have[R_ELAPSED])
		util_warnings_add(&f->warnings,
		                     "%s: no 'elapsed' column: rows are taken as consecutive frames, timed by the running sum of frame times",
		                     p->name);
	double t = 0;
	for (size_t i = 0; i < f->n; i++) {
		t += f->frames[i].frame_ms * 1e6;
		if (t > 9e18) { /* past the clock's range: keep what fits */
			util_warnings_add(&f->warnings,
			                     "%s: the frame times add up past %.0f years; the last %zu rows are left out",
			                     p->name, 9e18 / 1e9 / 86400 / 365, f->n - i);
			f->dropped_rows += f->n - i;
			f->n = i;
			break;
		}
		f->frames[i].present_ns = (int64_t)llround(t);
	}
	return false;
}

/* MangoHud step 4: samples or frames.  Rows of a per-frame log are a
 * frame time apart; rows further apart are samples of a log interval. */
static void mangohud_sampling(struct parser *p, double *tmp)
{
	struct collect_frames *f = p->f;
	if (f->n < 3)
		return;
	for (size_t i = 1; i < f->n; i++)
		tmp[i - 1] = (double)(f->frames[i].present_ns - f->frames[i - 1].present_ns) / 1e6;
	double step_ms = median_of(tmp, f->n - 1);
	for (size_t i = 0; i < f->n; i++)
		tmp[i] = f->frames[i].frame_ms;
	double ft_ms = median_of(tmp, f->n);
	if (step_ms > 1.5 * ft_ms) {
		f->sampled = true;
		util_warnings_add(&f->warnings,
		                     "%s: rows are samples every %.1f ms (MangoHud's log interval), not frames (median frame time %.2f ms): percentiles and over_100ms are of sampled frame times, real fps is the mean of the fps column",
		                     p->name, step_ms, ft_ms);
	}
}

/* MangoHud after the rows are read: units, start-up rows, timestamps,
 * sampling, in that order.  See docs/metrics.md "MangoHud logs". */
static int mangohud_finish(struct parser *p)
{
	struct collect_frames *f = p->f;
	if (f->n == 0)
		return 0;
	double *tmp = malloc(f->n * sizeof *tmp);
	if (!tmp)
		return -ENOMEM;
	util_hint_huge(tmp, f->n * sizeof *tmp);
	mangohud_unit(p, tmp);
	mangohud_startup_rows(p, tmp);
	if (mangohud_timestamps(p))
		mangohud_sampling(p, tmp);
	free(tmp);
	return 0;
}

/* Finds the header in the first HEADER_SEARCH_LINES lines (the first line
 * alone for the renderer's log), of the given source or, for AUTO, of any;
 * sets the log's source and leaves *l at the header line.  Returns 0, or
 * a negative errno with err saying what was looked for. */
static int find_header(struct parser *p, struct line *l, size_t len, enum collect_source source,
                       struct collect_error *err)
{
	struct collect_frames *f = p->f;
	bool cut = false;
	while (p->line_no < HEADER_SEARCH_LINES && next_line(p, l, &cut)) {
		enum collect_source k = header_kind(l);
		if (k != COLLECT_SOURCE_AUTO && (source == COLLECT_SOURCE_AUTO || source == k)) {
			f->source = k;
			return 0;
		}
		/* the renderer's header is its first line; anything else before
		 * a header is MangoHud's preamble (version, system info) */
		if (source == COLLECT_SOURCE_RXVK)
			break;
	}
	if (len == 0)
		return set_error(err, "%s:1:1: empty frame log (no header yet)", p->name);
	if (source == COLLECT_SOURCE_RXVK)
		return set_error(err, "%s:1:1: not a renderer frame log: the first line has no 'present_ns' and 'kind' columns",
		                 p->name);
	if (source == COLLECT_SOURCE_MANGOHUD)
		return set_error(err, "%s:1:1: not a MangoHud log: no header with 'frametime' or 'fps' in the first %d lines",
		                 p->name, HEADER_SEARCH_LINES);
	if (source == COLLECT_SOURCE_PRESENTMON)
		return set_error(err, "%s:1:1: not a PresentMon CSV: no header with a time column (TimeInSeconds, CPUStartTime, CPUStartDateTime) and MsBetweenPresents in the first %d lines",
		                 p->name, HEADER_SEARCH_LINES);
	return set_error(err, "%s:1:1: not a frame log: no renderer header (present_ns, kind), MangoHud header (frametime, fps) or PresentMon header (TimeInSeconds, MsBetweenPresents) in the first %d lines",
	                 p->name, HEADER_SEARCH_LINES);
}

/* Room for one frame a line still to come (counted once: growing the
 * array while parsing a million rows copied it about 20 times). */
static int reserve_rows(struct parser *p)
{
	size_t lines = 1;
	const char *c = p->pos;
	while (c < p->end && (c = memchr(c, '\n', (size_t)(p->end - c))) != NULL) {
		lines++;
		c++;
	}
	return frames_reserve(p, lines);
}

/* Reads the rows after the header; a last line with no end is skipped
 * with a warning, as are broken lines past BROKEN_WARN_MAX in one count. */

static int read_rows(struct parser *p)
{
	struct collect_frames *f = p->f;
	struct line l;
	bool cut = false;
	while (next_line(p, &l, &cut)) {
		if (cut) {
			f->broken_lines++;
			util_warnings_add(&f->warnings,
			                     "%s:%zu:%zu: last line has no end (the file is still being written?), skipped",
			                     p->name, l.no, (size_t)(l.end - l.s) + 1);
			break;
		}
		if (l.end == l.s)
			continue;
		int rc = parse_row(p, &l);
		if (rc < 0)
			return rc;
	}
	f->lines = p->line_no;
	if (f->broken_lines > BROKEN_WARN_MAX)
		util_warnings_add(&f->warnings, "%s: %zu broken lines skipped in all", p->name,
		                     f->broken_lines);
	return 0;
}

int collect_frames_parse(const char *name, const char *data, size_t len,
                         enum collect_source source, struct collect_frames **out,
                         struct collect_error *err)
{
	struct collect_frames *f = calloc(1, sizeof *f);
	if (!f)
		return -ENOMEM;
	f->path = strdup(name ? name : "-");
	if (!f->path) {
		free(f);
		return -ENOMEM;
	}
	struct parser p = {
		.name = f->path,
		.data = data,
		.end = data + len,
		.pos = data,
		.f = f,
		.err = err,
	};
	struct line l;
	int rc = find_header(&p, &l, len, source, err);
	if (rc < 0)
		goto fail;
	f->clock = f->source == COLLECT_SOURCE_RXVK ? COLLECT_CLOCK_MONOTONIC : COLLECT_CLOCK_LOG_START;
	f->frame_ms_is_interval = f->source != COLLECT_SOURCE_RXVK;
	if (f->source == COLLECT_SOURCE_RXVK) {
		f->format = "rxdeck frame log";
		p.time_role = R_PRESENT_NS;
	} else if (f->source == COLLECT_SOURCE_MANGOHUD) {
		f->format = "MangoHud CSV";
		p.time_role = R_ELAPSED;
	}
	rc = read_header(&p, &l, err);
	if (rc < 0)
		goto fail;
	rc = reserve_rows(&p);
	if (rc < 0)
		goto fail;
	rc = read_rows(&p);
	if (rc < 0)
		goto fail;
	if (f->source == COLLECT_SOURCE_MANGOHUD) {
		rc = mangohud_finish(&p);
		if (rc < 0)
			goto fail;
	}
	if (p.dropped)
		util_warnings_add(&f->warnings,
		                     "%s: %zu presents were never displayed (dropped); they count as frames, as PresentMon's MsBetweenPresents does",
		                     p.name, p.dropped);
	if (f->n == 0)
		util_warnings_add(&f->warnings, "%s: no frames", p.name);
	util_warnings_seal(&f->warnings);
	free(p.roles);
	*out = f;
	return 0;
fail:
	if (rc == -ENOMEM && err)
		snprintf(err->msg, sizeof err->msg, "%s: out of memory", p.name);
	free(p.roles);
	collect_frames_destroy(f);
	return rc;
}

int collect_frames_load(const char *path, enum collect_source source,
                        struct collect_frames **out, struct collect_error *err)
{
	char *buf;
	size_t len;
	int rc = collect_read_file("frame log", path, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = collect_frames_parse(path, buf, len, source, out, err);
	free(buf);
	return rc;
}

void collect_frames_destroy(struct collect_frames *frames)
{
	if (!frames)
		return;
	util_warnings_finish(&frames->warnings);
	free(frames->frames);
	free(frames->path);
	free(frames);
}
