/* results-db export and import: campaigns with everything they own, as one
 * JSON document (docs/database.md gives the format).
 *
 * Export streams run by run, so a campaign of long runs never has to fit
 * in memory as a JSON tree; frames go one to a line.  Import reads the
 * whole document, checks every field as it goes and writes everything in
 * one transaction: a malformed document adds nothing.  Syntax errors are
 * reported as name:line:column; content errors by the field's path
 * (name: campaigns[0].runs[3].arm: ...), since a parsed JSON value no
 * longer knows its line.
 */
#include "db-private.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "rxdeck-results"

/* ---- export ---- */

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jint_or_null(int64_t v)
{
	return v ? json_integer(v) : json_null();
}

/* Appends v (which may be NULL: a json_pack() of text that is not UTF-8)
 * and counts failures in *bad. */
static void add(json_t *arr, json_t *v, int *bad)
{
	if (!v || json_array_append_new(arr, v) < 0)
		(*bad)++;
}

/* Writes obj without its closing brace, so fields can be streamed after. */
static int dump_open(FILE *out, json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	if (!text)
		return -ENOMEM;
	size_t len = strlen(text);
	/* json_dumps of a non-empty object ends with '}'. */
	fwrite(text, 1, len - 1, out);
	free(text);
	return 0;
}

static int dump_value(FILE *out, json_t *v)
{
	return json_dumpf(v, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
	                             JSON_ENCODE_ANY) == 0
	               ? 0
	               : -EIO;
}

static void put_real(FILE *out, double d)
{
	/* %.17g round-trips a double exactly; stored values are finite. */
	fprintf(out, "%.17g", d);
}

/* A frame's column: null when its source did not have it. */
static void put_column(FILE *out, const struct db_frame *f, unsigned absent_bit, double d)
{
	if (f->absent & absent_bit)
		fputs("null", out);
	else
		put_real(out, d);
}

static int export_frames(struct db *db, FILE *out, int64_t run_id)
{
	struct db_frame *f;
	size_t n;
	int err = db_frames_read(db, run_id, &f, &n);
	if (err)
		return err;
	fputs(",\"frames\":[", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\n[%" PRId64 ",%" PRId64 ",\"%s\",", i ? "," : "", f[i].frame,
		        f[i].present_ns, f[i].kind == DB_FRAME_SHOWN ? "shown" : "real");
		put_column(out, &f[i], DB_FRAME_NO_FRAME_MS, f[i].frame_ms);
		fputc(',', out);
		if (f[i].absent & DB_FRAME_NO_DRAWS)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu32, f[i].draws);
		fputc(',', out);
		put_column(out, &f[i], DB_FRAME_NO_RB_WAIT_MS, f[i].rb_wait_ms);
		fputc(',', out);
		put_column(out, &f[i], DB_FRAME_NO_MEMSYNC_MS, f[i].memsync_ms);
		if (f[i].source != DB_FRAME_RXVK)
			fprintf(out, ",\"%s\"", db_frame_source_name((enum db_frame_source)f[i].source));
		fputc(']', out);
	}
	fputc(']', out);
	free(f);
	return 0;
}

static int export_samples(struct db *db, FILE *out, int64_t run_id)
{
	struct db_sample *s;
	size_t n;
	int err = db_samples_read(db, run_id, NULL, &s, &n);
	if (err)
		return err;
	fputs(",\"samples\":[", out);
	for (size_t i = 0; i < n; i++) {
		json_t *name = json_string(s[i].name);
		fprintf(out, "%s\n[%" PRId64 ",", i ? "," : "", s[i].t_ns);
		if (name)
			dump_value(out, name);
		json_decref(name);
		fputc(',', out);
		if (s[i].absent)
			fputs("null", out);
		else
			put_real(out, s[i].value);
		fputc(']', out);
	}
	fputc(']', out);
	free(s);
	return 0;
}

static int export_metrics(struct db *db, FILE *out, int64_t run_id)
{
	struct db_metric *m;
	size_t n;
	int err = db_metrics_read(db, run_id, &m, &n);
	if (err)
		return err;
	json_t *metrics = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set_new(metrics, m[i].name, json_real(m[i].value));
	free(m);
	fputs(",\"metrics\":", out);
	dump_value(out, metrics);
	json_decref(metrics);
	return 0;
}

static int export_log_lines(struct db *db, FILE *out, int64_t run_id)
{
	struct db_log_line *l;
	size_t n;
	int err = db_log_lines_read(db, run_id, NULL, &l, &n);
	if (err)
		return err;
	fputs(",\"log_lines\":[", out);
	for (size_t i = 0; i < n; i++) {
		json_t *caps = json_array();
		for (size_t k = 0; k < l[i].n_captures; k++)
			json_array_append_new(caps, jstr(l[i].captures[k]));
		json_t *lo = json_pack("{s:o, s:s, s:s, s:o}", "t_ns", jint_or_null(l[i].t_ns),
		                       "pattern", l[i].pattern, "text", l[i].text, "captures", caps);
		if (!lo) {
			free(l);
			return db_fail(db, -EINVAL, "a log line of run %lld is not UTF-8 text",
			               (long long)run_id);
		}
		fputs(i ? ",\n" : "\n", out);
		dump_value(out, lo);
		json_decref(lo);
	}
	fputc(']', out);
	free(l);
	return 0;
}

static int export_shots(struct db *db, FILE *out, int64_t run_id)
{
	struct db_shot *sh;
	size_t n;
	int err = db_shots_read(db, run_id, &sh, &n);
	if (err)
		return err;
	json_t *shots = json_array();
	int unencodable = 0;
	for (size_t i = 0; i < n; i++)
		add(shots, json_pack("{s:s, s:o, s:o, s:o}", "name", sh[i].name,
		                                       "path", jstr(sh[i].path),
		                                       "luma", isfinite(sh[i].luma) ? json_real(sh[i].luma)
		                                                                     : json_null(),
		                                       "checksum", jstr(sh[i].checksum)),
		    &unencodable);
	free(sh);
	if (unencodable) {
		json_decref(shots);
		return db_fail(db, -EINVAL, "a shot of run %lld is not UTF-8 text", (long long)run_id);
	}
	fputs(",\"shots\":", out);
	dump_value(out, shots);
	json_decref(shots);
	return 0;
}

/* A run's object: its row, then its frames, samples, metrics, log lines
 * and shots, each written as it is read. */
static int export_run(struct db *db, FILE *out, const struct db_run *r)
{
	char letter[2] = { r->arm_letter, 0 };
	json_t *o = json_pack("{s:s, s:i, s:i, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
	                      "arm", letter, "round", r->round, "position", r->position,
	                      "is_warmup", r->is_warmup, "status", db_run_status_name(r->status),
	                      "start_unix_ms", jint_or_null(r->start_unix_ms),
	                      "end_unix_ms", jint_or_null(r->end_unix_ms),
	                      "exit_status", r->exit_status < 0 ? json_null() : json_integer(r->exit_status),
	                      "void_reason", jstr(r->void_reason), "run_dir", jstr(r->run_dir),
	                      "config", jstr(r->config));
	if (!o)
		return db_fail(db, -EINVAL, "run %lld has text that is not UTF-8", (long long)r->id);
	int err = dump_open(out, o);
	json_decref(o);
	if (!err)
		err = export_frames(db, out, r->id);
	if (!err)
		err = export_samples(db, out, r->id);
	if (!err)
		err = export_metrics(db, out, r->id);
	if (!err)
		err = export_log_lines(db, out, r->id);
	if (!err)
		err = export_shots(db, out, r->id);
	if (err)
		return err;
	fputc('}', out);
	return 0;
}

static json_t *post_json(const struct db_post *p)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:i, s:I, s:o, s:o, s:I, s:o}",
	                 "forge_url", p->forge_url, "repo", p->repo,
	                 "issue_index", (json_int_t)p->issue_index, "body", p->body,
	                 "state", db_post_state_name(p->state), "attempts", p->attempts,
	                 "next_attempt_unix_ms", (json_int_t)p->next_attempt_unix_ms,
	                 "remote_comment_id", jint_or_null(p->remote_comment_id),
	                 "last_error", jstr(p->last_error),
	                 "created_unix_ms", (json_int_t)p->created_unix_ms,
	                 "sent_unix_ms", jint_or_null(p->sent_unix_ms));
}

static int export_posts(struct db *db, FILE *out, const struct db_post *p, size_t n,
                        bool campaignless)
{
	fputc('[', out);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (campaignless && p[i].campaign_id)
			continue;
		json_t *o = post_json(&p[i]);
		if (!o)
			return db_fail(db, -EINVAL, "post %lld has text that is not UTF-8",
			               (long long)p[i].id);
		fputs(first ? "\n" : ",\n", out);
		first = false;
		dump_value(out, o);
		json_decref(o);
	}
	fputc(']', out);
	return 0;
}

/* A night cut short (a runner's job timed out, the Deck went away): still
 * open, or runs planned or running.  Its export merges, and says so. */
static bool is_partial(const struct db_campaign *c, const struct db_run *r, size_t nr)
{
	bool partial = c->status == DB_CAMPAIGN_OPEN;
	for (size_t i = 0; i < nr; i++)
		partial = partial || r[i].status == DB_RUN_PLANNED || r[i].status == DB_RUN_RUNNING;
	return partial;
}

static int export_campaign(struct db *db, FILE *out, const struct db_campaign *c)
{
	struct db_build *b = NULL;
	struct db_arm *a = NULL;
	struct db_route_mark *m = NULL;
	struct db_run *r = NULL;
	struct db_post *p = NULL;
	struct db_host_facts *h = NULL;
	size_t nb, na, nm, nr, np, nh;
	int err = db_build_list(db, c->id, &b, &nb);
	if (!err)
		err = db_arm_list(db, c->id, &a, &na);
	if (!err)
		err = db_route_marks_read(db, c->id, &m, &nm);
	if (!err)
		err = db_run_list(db, c->id, &r, &nr);
	if (!err)
		err = db_post_list(db, c->id, &p, &np);
	if (!err)
		err = db_host_facts_list(db, c->id, &h, &nh);
	if (err)
		goto out;

	json_t *builds = json_array(), *arms = json_array(), *marks = json_array();
	int unencodable = 0;
	for (size_t i = 0; i < nb; i++)
		add(builds, json_pack("{s:s, s:o, s:o, s:o}", "label", b[i].label,
		                                        "commit", jstr(b[i].commit),
		                                        "path", jstr(b[i].path),
		                                        "sha256", jstr(b[i].sha256)), &unencodable);
	for (size_t i = 0; i < na; i++) {
		const char *build = NULL;
		for (size_t k = 0; k < nb; k++)
			if (b[k].id == a[i].build_id)
				build = b[k].label;
		char letter[2] = { a[i].letter, 0 };
		add(arms, json_pack("{s:s, s:o, s:o, s:o}", "letter", letter, "label", jstr(a[i].label),
		                    "env", jstr(a[i].env), "build", jstr(build)), &unencodable);
	}
	for (size_t i = 0; i < nm; i++)
		add(marks, json_pack("{s:f, s:s, s:s}", "t_s", m[i].t_s, "name", m[i].name, "kind",
		                     m[i].kind), &unencodable);
	json_t *hosts = json_array();
	for (size_t i = 0; i < nh; i++)
		add(hosts, json_pack("{s:I, s:s, s:o, s:o}", "at_unix_ms", (json_int_t)h[i].at_unix_ms,
		                     "event", h[i].event, "facts", json_loads(h[i].facts, 0, NULL),
		                     "changes", jstr(h[i].changes)), &unencodable);
	json_t *o = json_pack(
		"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:f, s:o,"
		" s:i, s:b, s:s, s:I, s:o, s:o, s:o, s:o}",
		"name", c->name, "plan_text", jstr(c->plan_text), "host", jstr(c->host),
		"device_model", jstr(c->device_model), "os", jstr(c->os), "kernel", jstr(c->kernel),
		"cpu", jstr(c->cpu), "memory_B", jint_or_null(c->memory_B), "gpu", jstr(c->gpu),
		"driver", jstr(c->driver), "mesa", jstr(c->mesa), "notes", jstr(c->notes),
		"route_name", jstr(c->route_name), "route_text", jstr(c->route_text),
		"window_start_s", c->window_start_s, "window_end_s", c->window_end_s,
		"order", jstr(c->order), "rounds", c->rounds, "warmup", c->warmup,
		"status", db_campaign_status_name(c->status),
		"created_unix_ms", (json_int_t)c->created_unix_ms,
		"finished_unix_ms", jint_or_null(c->finished_unix_ms),
		"builds", builds, "arms", arms, "route_marks", marks);
	char stop[16] = "";
	if (o && (err = db_campaign_stop_reason(db, c->id, stop, sizeof stop)) < 0) {
		json_decref(o);
		json_decref(hosts);
		goto out;
	}
	if (o) {
		json_object_set_new(o, "stop_reason", stop[0] ? json_string(stop) : json_null());
		json_object_set_new(o, "partial", json_boolean(is_partial(c, r, nr)));
		json_object_set_new(o, "host_facts", hosts);
	} else {
		json_decref(hosts);
	}
	if (!o || unencodable) {
		json_decref(o);
		err = db_fail(db, -EINVAL, "campaign '%s' has text that is not UTF-8", c->name);
		goto out;
	}
	err = dump_open(out, o);
	json_decref(o);
	if (err)
		goto out;
	fputs(",\"runs\":[", out);
	for (size_t i = 0; i < nr && !err; i++) {
		fputs(i ? ",\n" : "\n", out);
		err = export_run(db, out, &r[i]);
	}
	fputs("],\n\"posts\":", out);
	if (!err)
		err = export_posts(db, out, p, np, false);
	fputc('}', out);
out:
	free(b);
	free(a);
	free(m);
	free(r);
	free(p);
	free(h);
	return err;
}

int db_export(struct db *db, int64_t campaign_id, FILE *out)
{
	/* One read transaction: the export is one consistent snapshot even
	 * while a campaign keeps writing. */
	bool own_tx = !db->in_tx;
	int err;
	if (own_tx && (err = db_exec(db, "BEGIN")) < 0)
		return err;
	struct db_campaign *c;
	size_t n;
	if (campaign_id) {
		err = db_campaign_get(db, campaign_id, &c);
		n = 1;
	} else {
		err = db_campaign_list(db, &c, &n);
	}
	if (err) {
		if (own_tx)
			sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
		return err;
	}
	fprintf(out, "{\"format\":\"" FORMAT_NAME "\",\"schema_version\":%d,\"campaigns\":[",
	        DB_SCHEMA_VERSION);
	/* Oldest first, so an import recreates them in their order. */
	for (size_t i = 0; i < n && !err; i++) {
		fputs(i ? ",\n" : "\n", out);
		err = export_campaign(db, out, &c[n - 1 - i]);
	}
	fputs("]", out);
	if (!err && !campaign_id) {
		struct db_post *p;
		size_t np;
		err = db_post_list(db, 0, &p, &np);
		if (!err) {
			fputs(",\n\"posts\":", out);
			err = export_posts(db, out, p, np, true);
			free(p);
		}
	}
	fputs("}\n", out);
	if (own_tx)
		sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
	free(c);
	if (err)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return db_fail(db, -EIO, "cannot write the export: %s", strerror(errno));
	return 0;
}

/* ---- import ---- */

struct importer {
	struct db *db;
	struct db_import_report *report; /* may be NULL */
	const char *name;
	char path[256];   /* where in the document: "campaigns[0].runs[3]" */
};

static int bad(struct importer *im, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct importer *im, const char *field, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return db_fail(im->db, -EINVAL, "%s: %s%s%s: %s", im->name, im->path,
	               field && im->path[0] ? "." : "", field ? field : "", what);
}

/* A string field: required, or NULL when absent or null. */
static int get_str(struct importer *im, json_t *o, const char *key, bool required,
                   const char **out)
{
	json_t *v = json_object_get(o, key);
	if ((!v || json_is_null(v)) && !required) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return bad(im, key, v ? "expected a string" : "missing");
	*out = json_string_value(v);
	return 0;
}

static int get_int(struct importer *im, json_t *o, const char *key, bool required, int64_t lo,
                   int64_t hi, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	if ((!v || json_is_null(v)) && !required) {
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v))
		return bad(im, key, v ? "expected an integer" : "missing");
	json_int_t i = json_integer_value(v);
	if (i < lo || i > hi)
		return bad(im, key, "%lld is out of range", (long long)i);
	*out = i;
	return 0;
}

static int get_real(struct importer *im, json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		return bad(im, key, v ? "expected a number" : "missing");
	*out = json_number_value(v);
	return 0;
}

static int get_bool(struct importer *im, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_boolean(v))
		return bad(im, key, v ? "expected true or false" : "missing");
	*out = json_is_true(v);
	return 0;
}

static int get_array(struct importer *im, json_t *o, const char *key, json_t **out)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		*out = NULL;  /* an older export without it */
		return 0;
	}
	if (!json_is_array(v))
		return bad(im, key, "expected an array");
	*out = v;
	return 0;
}

/* Appends "key[i]" or ".key" to the path; returns the old length. */
static size_t push(struct importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t push(struct importer *im, const char *fmt, ...)
{
	size_t len = strlen(im->path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(im->path + len, sizeof im->path - len, fmt, ap);
	va_end(ap);
	return len;
}

static void pop(struct importer *im, size_t len)
{
	im->path[len] = '\0';
}

/* A frame's number column, or null (absent_bit set). */
static bool frame_number(json_t *v, struct db_frame *f, unsigned absent_bit, double *out)
{
	if (json_is_null(v)) {
		f->absent |= (uint8_t)absent_bit;
		*out = 0;
		return true;
	}
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

/* The optional eighth element: the frames' source, "rxvk" when left out. */
static bool frame_source(json_t *v, uint8_t *out)
{
	if (!v) {
		*out = DB_FRAME_RXVK;
		return true;
	}
	const char *s = json_string_value(v);
	for (int k = DB_FRAME_RXVK; s && k <= DB_FRAME_PRESENTMON; k++)
		if (strcmp(s, db_frame_source_name((enum db_frame_source)k)) == 0) {
			*out = (uint8_t)k;
			return true;
		}
	return false;
}

/* Frames: [frame, present_ns, "real"|"shown", frame_ms, draws, rb_wait_ms,
 * memsync_ms(, source)]; a column the source did not have is null. */
static int import_frames(struct importer *im, json_t *arr, struct db_frame **out, size_t *n)
{
	size_t count = arr ? json_array_size(arr) : 0;
	struct db_frame *f = calloc(count + 1, sizeof *f);
	if (!f)
		return db_fail(im->db, -ENOMEM, "out of memory reading %zu frames", count);
	for (size_t i = 0; i < count; i++) {
		json_t *row = json_array_get(arr, i);
		const char *kind = json_string_value(json_array_get(row, 2));
		json_t *draws = json_array_get(row, 4);
		size_t cols = json_array_size(row);
		f[i] = (struct db_frame){ .kind = DB_FRAME_REAL };
		if (!json_is_array(row) || (cols != 7 && cols != 8) ||
		    !json_is_integer(json_array_get(row, 0)) ||
		    !json_is_integer(json_array_get(row, 1)) || !kind ||
		    (strcmp(kind, "real") != 0 && strcmp(kind, "shown") != 0) ||
		    !frame_number(json_array_get(row, 3), &f[i], DB_FRAME_NO_FRAME_MS, &f[i].frame_ms) ||
		    !(json_is_null(draws) || (json_is_integer(draws) && json_integer_value(draws) >= 0 &&
		                              json_integer_value(draws) <= UINT32_MAX)) ||
		    !frame_number(json_array_get(row, 5), &f[i], DB_FRAME_NO_RB_WAIT_MS, &f[i].rb_wait_ms) ||
		    !frame_number(json_array_get(row, 6), &f[i], DB_FRAME_NO_MEMSYNC_MS, &f[i].memsync_ms) ||
		    !frame_source(json_array_get(row, 7), &f[i].source)) {
			free(f);
			return bad(im, NULL, "frames[%zu]: expected [frame, present_ns, \"real\" or "
			           "\"shown\", frame_ms, draws, rb_wait_ms, memsync_ms] (null for a column "
			           "the source had not, then optionally the source: \"mangohud\" or "
			           "\"presentmon\")", i);
		}
		f[i].frame = json_integer_value(json_array_get(row, 0));
		f[i].present_ns = json_integer_value(json_array_get(row, 1));
		f[i].kind = strcmp(kind, "shown") == 0 ? DB_FRAME_SHOWN : DB_FRAME_REAL;
		if (json_is_null(draws))
			f[i].absent |= DB_FRAME_NO_DRAWS;
		else
			f[i].draws = (uint32_t)json_integer_value(draws);
	}
	*out = f;
	*n = count;
	return 0;
}

struct arm_ref {
	char letter;
	int64_t id;
};

/* The run's own row and state; *run_id the new row's. */
static int import_run_row(struct importer *im, json_t *o, int64_t campaign_id,
                          const struct arm_ref *arms, size_t n_arms, int64_t *run_id)
{
	struct db *db = im->db;
	const char *arm, *status;
	int64_t round = 0, position = 0, start = 0, end = 0, exit_status = -1;
	bool warmup = false;
	struct db_run r = { 0 };
	int err = get_str(im, o, "arm", true, &arm);
	if (!err)
		err = get_int(im, o, "round", true, 0, INT32_MAX, &round);
	if (!err)
		err = get_int(im, o, "position", true, 1, INT32_MAX, &position);
	if (!err)
		err = get_bool(im, o, "is_warmup", &warmup);
	if (!err)
		err = get_str(im, o, "status", true, &status);
	if (!err && db_run_status_parse(status, &r.status) < 0)
		err = bad(im, "status", "'%s' is not planned, running, done or void", status);
	if (!err)
		err = get_int(im, o, "start_unix_ms", false, 0, INT64_MAX, &start);
	if (!err)
		err = get_int(im, o, "end_unix_ms", false, 0, INT64_MAX, &end);
	if (!err) {
		json_t *v = json_object_get(o, "exit_status");
		if (!v || json_is_null(v))
			exit_status = -1;
		else
			err = get_int(im, o, "exit_status", true, 0, 255, &exit_status);
	}
	if (!err)
		err = get_str(im, o, "void_reason", false, &r.void_reason);
	if (!err)
		err = get_str(im, o, "run_dir", false, &r.run_dir);
	if (!err)
		err = get_str(im, o, "config", false, &r.config);
	if (err)
		return err;
	if (r.status == DB_RUN_VOID && (!r.void_reason || !r.void_reason[0]))
		return bad(im, "void_reason", "a void run needs a reason");
	for (size_t i = 0; i < n_arms; i++)
		if (strlen(arm) == 1 && arms[i].letter == arm[0])
			r.arm_id = arms[i].id;
	if (!r.arm_id)
		return bad(im, "arm", "no arm '%s' in this campaign", arm);
	r.round = (int)round;
	r.position = (int)position;
	r.is_warmup = warmup;
	r.start_unix_ms = start;
	r.end_unix_ms = end;
	r.exit_status = (int)exit_status;
	err = db_run_plan_tx(db, campaign_id, &r, 1);
	if (err)
		return bad(im, NULL, "%s", db->errmsg);
	*run_id = sqlite3_last_insert_rowid(db->sql);
	err = db_run_set_state_tx(db, *run_id, &r);
	if (err)
		return bad(im, NULL, "%s", db->errmsg);
	return 0;
}

/* A run's results as read: the arrays res points into, owned here. */
struct run_parts {
	struct db_run_results res;
	struct db_frame *f;
	struct db_sample *s;
	struct db_metric *m;
	struct db_log_line *l;
	struct db_shot *sh;
	const char **caps;
};

/* Samples: [t_ns, "name", value or null]. */
static int import_samples(struct importer *im, json_t *samples, struct run_parts *p)
{
	for (size_t i = 0; i < p->res.n_samples; i++) {
		json_t *row = json_array_get(samples, i);
		json_t *v = json_array_get(row, 2);
		if (!json_is_array(row) || json_array_size(row) != 3 ||
		    !json_is_integer(json_array_get(row, 0)) || !json_is_string(json_array_get(row, 1)) ||
		    !(json_is_number(v) || json_is_null(v)))
			return bad(im, NULL, "samples[%zu]: expected [t_ns, \"name\", value or null]", i);
		p->s[i] = (struct db_sample){ .t_ns = json_integer_value(json_array_get(row, 0)),
		                              .name = json_string_value(json_array_get(row, 1)),
		                              .absent = json_is_null(v),
		                              .value = json_is_null(v) ? 0 : json_number_value(v) };
	}
	return 0;
}

/* Metrics: { name: value }. */
static int import_metrics(struct importer *im, json_t *metrics, struct run_parts *p)
{
	const char *key;
	json_t *v;
	size_t i = 0;
	json_object_foreach(metrics, key, v) {
		if (!json_is_number(v))
			return bad(im, NULL, "metrics.%s: expected a number", key);
		p->m[i++] = (struct db_metric){ .name = key, .value = json_number_value(v) };
	}
	return 0;
}

/* Log lines: { t_ns, pattern, text, captures }, the captures in one array. */
static int import_log_lines(struct importer *im, json_t *lines, struct run_parts *p)
{
	int err = 0;
	const char **cap = p->caps;
	for (size_t i = 0; !err && i < p->res.n_log_lines; i++) {
		struct db_log_line *l = &p->l[i];
		json_t *lo = json_array_get(lines, i);
		size_t len = push(im, ".log_lines[%zu]", i);
		json_t *ca = json_object_get(lo, "captures");
		int64_t t_ns = 0;
		if (!json_is_object(lo))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_int(im, lo, "t_ns", false, INT64_MIN, INT64_MAX, &t_ns);
		if (!err)
			err = get_str(im, lo, "pattern", true, &l->pattern);
		if (!err)
			err = get_str(im, lo, "text", true, &l->text);
		if (!err && !json_is_array(ca))
			err = bad(im, "captures", "expected an array of strings");
		l->t_ns = t_ns;
		l->captures = cap;
		l->n_captures = err ? 0 : json_array_size(ca);
		for (size_t k = 0; !err && k < l->n_captures; k++) {
			json_t *c = json_array_get(ca, k);
			if (!json_is_string(c) && !json_is_null(c))
				err = bad(im, "captures", "item %zu is not a string or null", k);
			*cap++ = json_string_value(c);
		}
		pop(im, len);
	}
	return err;
}

/* Shots: { name, path, checksum, luma }. */
static int import_shots(struct importer *im, json_t *shots, struct run_parts *p)
{
	int err = 0;
	for (size_t i = 0; !err && i < p->res.n_shots; i++) {
		struct db_shot *sh = &p->sh[i];
		json_t *so = json_array_get(shots, i);
		size_t len = push(im, ".shots[%zu]", i);
		json_t *luma = json_object_get(so, "luma");
		if (!json_is_object(so))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_str(im, so, "name", true, &sh->name);
		if (!err)
			err = get_str(im, so, "path", false, &sh->path);
		if (!err)
			err = get_str(im, so, "checksum", false, &sh->checksum);
		if (!err && luma && !json_is_null(luma) && !json_is_number(luma))
			err = bad(im, "luma", "expected a number or null");
		sh->luma = json_is_number(luma) ? json_number_value(luma) : NAN;
		pop(im, len);
	}
	return err;
}

/* One run: its row, then its results, read whole before they are stored. */
static int import_run(struct importer *im, json_t *o, int64_t campaign_id,
                      const struct arm_ref *arms, size_t n_arms)
{
	struct db *db = im->db;
	if (!json_is_object(o))
		return bad(im, NULL, "expected an object");
	int64_t run_id = 0;
	int err = import_run_row(im, o, campaign_id, arms, n_arms, &run_id);
	if (err)
		return err;

	json_t *frames = NULL, *samples = NULL, *lines = NULL, *shots = NULL;
	if ((err = get_array(im, o, "frames", &frames)) || (err = get_array(im, o, "samples", &samples)) ||
	    (err = get_array(im, o, "log_lines", &lines)) || (err = get_array(im, o, "shots", &shots)))
		return err;
	json_t *metrics = json_object_get(o, "metrics");
	if (metrics && !json_is_object(metrics))
		return bad(im, "metrics", "expected an object of name: value");

	struct run_parts p = { 0 };
	struct db_run_results *res = &p.res;
	err = import_frames(im, frames, &p.f, &res->n_frames);
	res->frames = p.f;
	res->n_samples = samples ? json_array_size(samples) : 0;
	res->n_metrics = metrics ? json_object_size(metrics) : 0;
	res->n_log_lines = lines ? json_array_size(lines) : 0;
	res->n_shots = shots ? json_array_size(shots) : 0;
	size_t n_caps = 0;
	for (size_t i = 0; i < res->n_log_lines; i++)
		n_caps += json_array_size(json_object_get(json_array_get(lines, i), "captures"));
	if (!err) {
		p.s = calloc(res->n_samples + 1, sizeof *p.s);
		p.m = calloc(res->n_metrics + 1, sizeof *p.m);
		p.l = calloc(res->n_log_lines + 1, sizeof *p.l);
		p.sh = calloc(res->n_shots + 1, sizeof *p.sh);
		p.caps = calloc(n_caps + 1, sizeof *p.caps);
		if (!p.s || !p.m || !p.l || !p.sh || !p.caps)
			err = db_fail(db, -ENOMEM, "out of memory importing a run");
	}
	if (!err)
		err = import_samples(im, samples, &p);
	if (!err)
		err = import_metrics(im, metrics, &p);
	if (!err)
		err = import_log_lines(im, lines, &p);
	if (!err)
		err = import_shots(im, shots, &p);
	res->samples = p.s;
	res->metrics = p.m;
	res->log_lines = p.l;
	res->shots = p.sh;
	if (!err) {
		err = db_run_store_parts(db, run_id, res);
		if (err)
			err = bad(im, NULL, "%s", db->errmsg);
	}
	free(p.f);
	free(p.s);
	free(p.m);
	free(p.l);
	free(p.sh);
	free(p.caps);
	return err;
}

static int import_post(struct importer *im, json_t *o, int64_t campaign_id)
{
	if (!json_is_object(o))
		return bad(im, NULL, "expected an object");
	struct db_post p = { .campaign_id = campaign_id };
	const char *state;
	int64_t attempts;
	int err = get_str(im, o, "forge_url", true, &p.forge_url);
	if (!err)
		err = get_str(im, o, "repo", true, &p.repo);
	if (!err)
		err = get_int(im, o, "issue_index", true, 1, INT64_MAX, &p.issue_index);
	if (!err)
		err = get_str(im, o, "body", true, &p.body);
	if (!err)
		err = get_str(im, o, "state", true, &state);
	if (!err && db_post_state_parse(state, &p.state) < 0)
		err = bad(im, "state", "'%s' is not queued, sent or failed", state);
	if (!err)
		err = get_int(im, o, "attempts", true, 0, INT32_MAX, &attempts);
	if (!err)
		err = get_int(im, o, "next_attempt_unix_ms", true, INT64_MIN, INT64_MAX,
		              &p.next_attempt_unix_ms);
	if (!err)
		err = get_int(im, o, "remote_comment_id", false, 0, INT64_MAX, &p.remote_comment_id);
	if (!err)
		err = get_str(im, o, "last_error", false, &p.last_error);
	if (!err)
		err = get_int(im, o, "created_unix_ms", true, 1, INT64_MAX, &p.created_unix_ms);
	if (!err)
		err = get_int(im, o, "sent_unix_ms", false, 0, INT64_MAX, &p.sent_unix_ms);
	if (err)
		return err;
	p.attempts = (int)attempts;
	if (!campaign_id) {
		/* a post of no campaign imported again is the same post */
		sqlite3_stmt *st;
		if ((err = db_prepare(im->db, "SELECT 1 FROM post WHERE campaign_id IS NULL AND "
		                              "forge_url = ? AND repo = ? AND issue_index = ? AND "
		                              "body = ? AND created_unix_ms = ?", &st)) < 0)
			return err;
		db_bind_text(st, 1, p.forge_url);
		db_bind_text(st, 2, p.repo);
		sqlite3_bind_int64(st, 3, p.issue_index);
		db_bind_text(st, 4, p.body);
		sqlite3_bind_int64(st, 5, p.created_unix_ms);
		int rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW)
			return 0;
		if (rc != SQLITE_DONE)
			return db_fail_sql(im->db, rc, "cannot read the posts");
	}
	int64_t id;
	err = db_post_insert_tx(im->db, &p, &id);
	return err ? bad(im, NULL, "%s", im->db->errmsg) : 0;
}

static int import_posts(struct importer *im, json_t *posts, int64_t campaign_id)
{
	for (size_t i = 0; posts && i < json_array_size(posts); i++) {
		size_t len = push(im, "%sposts[%zu]", im->path[0] ? "." : "", i);
		int err = import_post(im, json_array_get(posts, i), campaign_id);
		pop(im, len);
		if (err)
			return err;
	}
	return 0;
}

/* The campaign's own row; *campaign_id the new row's. */
static int import_campaign_row(struct importer *im, json_t *o, const char *as_name,
                               int64_t *campaign_id)
{
	struct db *db = im->db;
	struct db_campaign c = { 0 };
	const char *status, *stop = NULL;
	int64_t rounds, created, finished;
	const char **strs[] = { &c.plan_text, &c.host, &c.device_model, &c.os, &c.kernel, &c.cpu,
	                        &c.gpu, &c.driver, &c.mesa, &c.notes, &c.route_name, &c.route_text,
	                        &c.order };
	const char *keys[] = { "plan_text", "host", "device_model", "os", "kernel", "cpu", "gpu",
	                       "driver", "mesa", "notes", "route_name", "route_text", "order" };
	int err = get_str(im, o, "name", true, &c.name);
	/* the name becomes a folder's (runs/<name>) when the campaign is resumed
	 * or its runs re-read: never a path */
	if (!err && !db_campaign_name_is_folder(c.name))
		err = bad(im, "name", "bad campaign name '%s': it names a folder (no '/', no leading "
		          "'.', no control character, at most 200 bytes)", c.name);
	for (size_t i = 0; !err && i < sizeof keys / sizeof keys[0]; i++)
		err = get_str(im, o, keys[i], false, strs[i]);
	if (!err)
		err = get_int(im, o, "memory_B", false, 0, INT64_MAX, &c.memory_B);
	if (!err)
		err = get_real(im, o, "window_start_s", &c.window_start_s);
	if (!err)
		err = get_real(im, o, "window_end_s", &c.window_end_s);
	if (!err)
		err = get_int(im, o, "rounds", true, 0, INT32_MAX, &rounds);
	if (!err)
		err = get_bool(im, o, "warmup", &c.warmup);
	if (!err)
		err = get_str(im, o, "status", true, &status);
	if (!err && db_campaign_status_parse(status, &c.status) < 0)
		err = bad(im, "status", "'%s' is not open, done or stopped", status);
	if (!err)
		err = get_int(im, o, "created_unix_ms", true, 1, INT64_MAX, &created);
	if (!err)
		err = get_int(im, o, "finished_unix_ms", false, 0, INT64_MAX, &finished);
	if (!err)
		err = get_str(im, o, "stop_reason", false, &stop);
	if (err)
		return err;
	if (as_name)
		c.name = as_name;
	c.rounds = (int)rounds;
	c.created_unix_ms = created;
	c.finished_unix_ms = finished;
	err = db_campaign_create_tx(db, &c, campaign_id);
	if (err == -EEXIST)
		return db_fail(db, err, "%s: %s: campaign '%s' is already in '%s'", im->name, im->path,
		               c.name, db->path);
	if (err)
		return bad(im, NULL, "%s", db->errmsg);
	if (stop && (err = db_campaign_set_stop_reason_tx(db, *campaign_id, stop)) < 0)
		err = bad(im, "stop_reason", "%s", db->errmsg);
	return err;
}

/* The builds; labels[i] and ids[i] for the arms that name them. */
static int import_builds(struct importer *im, json_t *builds, size_t nb, int64_t campaign_id,
                         const char **labels, int64_t *ids)
{
	int err = 0;
	for (size_t i = 0; !err && i < nb; i++) {
		json_t *bo = json_array_get(builds, i);
		size_t len = push(im, ".builds[%zu]", i);
		struct db_build b = { .campaign_id = campaign_id };
		if (!json_is_object(bo))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_str(im, bo, "label", true, &b.label);
		if (!err)
			err = get_str(im, bo, "commit", false, &b.commit);
		if (!err)
			err = get_str(im, bo, "path", false, &b.path);
		if (!err)
			err = get_str(im, bo, "sha256", false, &b.sha256);
		if (!err && (err = db_build_add_tx(im->db, &b, &ids[i])) < 0)
			err = bad(im, NULL, "%s", im->db->errmsg);
		labels[i] = b.label;
		pop(im, len);
	}
	return err;
}

/* The arms, each with its build by label; refs[i] for the runs. */
static int import_arms(struct importer *im, json_t *arms, size_t na, int64_t campaign_id,
                       const char **build_labels, const int64_t *build_ids, size_t nb,
                       struct arm_ref *refs)
{
	int err = 0;
	for (size_t i = 0; !err && i < na; i++) {
		json_t *ao = json_array_get(arms, i);
		size_t len = push(im, ".arms[%zu]", i);
		struct db_arm a = { .campaign_id = campaign_id };
		const char *letter = NULL, *build = NULL;
		if (!json_is_object(ao))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_str(im, ao, "letter", true, &letter);
		if (!err && strlen(letter) != 1)
			err = bad(im, "letter", "'%s' is not one letter", letter);
		if (!err)
			err = get_str(im, ao, "label", false, &a.label);
		if (!err)
			err = get_str(im, ao, "env", false, &a.env);
		if (!err)
			err = get_str(im, ao, "build", false, &build);
		if (!err && build) {
			for (size_t k = 0; k < nb; k++)
				if (strcmp(build_labels[k], build) == 0)
					a.build_id = build_ids[k];
			if (!a.build_id)
				err = bad(im, "build", "no build '%s' in this campaign", build);
		}
		if (!err) {
			a.letter = letter[0];
			refs[i].letter = a.letter;
			if ((err = db_arm_add_tx(im->db, &a, &refs[i].id)) < 0)
				err = bad(im, NULL, "%s", im->db->errmsg);
		}
		pop(im, len);
	}
	return err;
}

/* The route marks, stored together. */
static int import_marks(struct importer *im, json_t *marks, size_t nm, int64_t campaign_id,
                        struct db_route_mark *m)
{
	int err = 0;
	for (size_t i = 0; !err && i < nm; i++) {
		json_t *mo = json_array_get(marks, i);
		size_t len = push(im, ".route_marks[%zu]", i);
		if (!json_is_object(mo))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_real(im, mo, "t_s", &m[i].t_s);
		if (!err)
			err = get_str(im, mo, "name", true, &m[i].name);
		if (!err)
			err = get_str(im, mo, "kind", false, &m[i].kind);
		pop(im, len);
	}
	if (!err && nm && (err = db_route_marks_store_tx(im->db, campaign_id, m, nm)) < 0)
		err = bad(im, "route_marks", "%s", im->db->errmsg);
	return err;
}

/* The host's facts at the campaign's start and changed resumes (schema 3;
 * an older export has none). */
static int import_host_facts(struct importer *im, json_t *hosts, int64_t campaign_id)
{
	int err = 0;
	for (size_t i = 0; !err && hosts && i < json_array_size(hosts); i++) {
		json_t *ho = json_array_get(hosts, i);
		size_t len = push(im, ".host_facts[%zu]", i);
		struct db_host_facts h = { 0 };
		char *facts = NULL;
		if (!json_is_object(ho))
			err = bad(im, NULL, "expected an object");
		if (!err)
			err = get_int(im, ho, "at_unix_ms", true, 0, INT64_MAX, &h.at_unix_ms);
		if (!err)
			err = get_str(im, ho, "event", true, &h.event);
		if (!err)
			err = get_str(im, ho, "changes", false, &h.changes);
		if (!err && !json_is_object(json_object_get(ho, "facts")))
			err = bad(im, "facts", "expected an object");
		if (!err && !(facts = json_dumps(json_object_get(ho, "facts"),
		                                 JSON_COMPACT | JSON_PRESERVE_ORDER)))
			err = db_fail(im->db, -ENOMEM, "out of memory");
		h.facts = facts;
		if (!err && (err = db_host_facts_add(im->db, campaign_id, &h)) < 0)
			err = bad(im, NULL, "%s", im->db->errmsg);
		free(facts);
		pop(im, len);
	}
	return err;
}

/* The campaign already here that is this one (the same host and creation
 * time, under its name or its host-qualified name): *id and its stored
 * name in name_out; *id 0 when there is none. */
static int find_same(struct importer *im, const char *name, const char *host, int64_t created,
                     int64_t *id, char *name_out, size_t size)
{
	sqlite3_stmt *st;
	int err = db_prepare(im->db, "SELECT id, name FROM campaign WHERE created_unix_ms = ? AND "
	                             "host IS ? AND (name = ? OR name = ? || '@' || ?) "
	                             "ORDER BY id LIMIT 1", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, created);
	db_bind_text(st, 2, host);
	db_bind_text(st, 3, name);
	db_bind_text(st, 4, name);
	db_bind_text(st, 5, host ? host : "unknown-host");
	int rc = sqlite3_step(st);
	*id = 0;
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		snprintf(name_out, size, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail_sql(im->db, rc, "cannot read the campaigns");
}

static int export_campaign(struct db *db, FILE *out, const struct db_campaign *c);

/* The stored campaign id as its export reads back: a JSON object. */
static int stored_json(struct db *db, int64_t id, json_t **out)
{
	struct db_campaign *c;
	int err = db_campaign_get(db, id, &c);
	if (err)
		return err;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		free(c);
		return db_fail(db, -ENOMEM, "out of memory");
	}
	err = export_campaign(db, mem, c);
	free(c);
	if (fclose(mem) != 0 && !err)
		err = db_fail(db, -ENOMEM, "out of memory");
	json_t *doc = err ? NULL : json_loadb(text, len, 0, NULL);
	free(text);
	if (!err && !doc)
		err = db_fail(db, -EIO, "cannot read back campaign %lld", (long long)id);
	if (!err)
		*out = doc;
	return err;
}

/* Whether a campaign object (an export's) is partial, and its runs: all,
 * and finished (done or void). */
static bool count_runs(json_t *o, size_t *finished, size_t *all)
{
	json_t *runs = json_object_get(o, "runs");
	*all = json_array_size(runs);
	*finished = 0;
	for (size_t i = 0; i < *all; i++) {
		const char *st = json_string_value(json_object_get(json_array_get(runs, i), "status"));
		*finished += st && (strcmp(st, "done") == 0 || strcmp(st, "void") == 0);
	}
	const char *status = json_string_value(json_object_get(o, "status"));
	return *finished < *all || (status && strcmp(status, "open") == 0);
}

/* Absent, null, [] and {} all say "nothing" (an older or hand-made export
 * leaves out what the database keeps as null or none). */
static bool nothing(json_t *v)
{
	return !v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
	       (json_is_object(v) && json_object_size(v) == 0);
}

/* Equal as data: numbers by value (1 and 1.0 alike), "nothing" alike. */
static bool same_json(json_t *a, json_t *b)
{
	if (nothing(a) || nothing(b))
		return nothing(a) && nothing(b);
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!same_json(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *v;
		json_object_foreach(a, k, v) if (!same_json(v, json_object_get(b, k))) return false;
		json_object_foreach(b, k, v) if (!same_json(json_object_get(a, k), v)) return false;
		return true;
	}
	return json_equal(a, b);
}

/* Whether the campaign already here (stored, its export) holds the same
 * results as the one coming in; the stored name and the posts are not
 * compared. */
static bool same_results(json_t *stored, json_t *incoming)
{
	json_t *a = json_deep_copy(stored), *b = json_deep_copy(incoming);
	bool same = a && b;
	if (same) {
		json_object_del(a, "name");
		json_object_del(b, "name");
		/* an older export has no "partial": it follows from the runs */
		json_object_del(a, "partial");
		json_object_del(b, "partial");
		/* posts are what was said about the results, not results: the
		 * fleet's summary is posted under the campaign it merged */
		json_object_del(a, "posts");
		json_object_del(b, "posts");
		same = same_json(a, b);
	}
	json_decref(a);
	json_decref(b);
	return same;
}

/* Appends the campaign's line to the import's report. */
static int report_item(struct importer *im, const char *name, const char *as,
                       enum db_import_action action, json_t *o)
{
	if (!im->report)
		return 0;
	struct db_import_report *r = im->report;
	struct db_import_item *items = realloc(r->items, (r->n + 1) * sizeof *items);
	if (!items)
		return db_fail(im->db, -ENOMEM, "out of memory");
	r->items = items;
	struct db_import_item *it = &items[r->n++];
	*it = (struct db_import_item){ .action = action };
	snprintf(it->name, sizeof it->name, "%s", name);
	snprintf(it->stored_as, sizeof it->stored_as, "%s", as);
	it->partial = count_runs(o, &it->runs_finished, &it->runs);
	return 0;
}

/*
 * Where a campaign of the document goes (docs/database.md, "Merging"):
 *   - the same campaign is here (host and creation time, under its name or
 *     NAME@HOST) with the same results: nothing is added (*skip);
 *   - it is here, partial, and the document's has more finished runs:
 *     the stored one is replaced under its stored name;
 *   - it is here with other results otherwise: -EEXIST;
 *   - another campaign has the name: it is stored as NAME@HOST;
 *   - else under its name.
 */
static int place_campaign(struct importer *im, json_t *o, char *as, size_t size,
                          enum db_import_action *action, bool *skip)
{
	struct db *db = im->db;
	const char *name = json_string_value(json_object_get(o, "name"));
	const char *host = json_string_value(json_object_get(o, "host"));
	json_t *created = json_object_get(o, "created_unix_ms");
	*skip = false;
	*action = DB_IMPORT_ADDED;
	if (!name || !json_is_integer(created))
		return 0;  /* import_campaign_row says what is wrong */
	snprintf(as, size, "%s", name);
	int64_t id;
	char stored_name[256];
	int err = find_same(im, name, host, json_integer_value(created), &id, stored_name,
	                    sizeof stored_name);
	if (err)
		return err;
	if (id) {
		json_t *stored = NULL;
		if ((err = stored_json(db, id, &stored)) < 0)
			return err;
		size_t fin_in, all_in, fin_here, all_here;
		count_runs(o, &fin_in, &all_in);
		bool partial_here = count_runs(stored, &fin_here, &all_here);
		bool same = same_results(stored, o);
		json_decref(stored);
		snprintf(as, size, "%s", stored_name);
		if (same) {
			*skip = true;
			*action = DB_IMPORT_SAME;
			return 0;
		}
		if (partial_here && fin_in > fin_here) {
			*action = DB_IMPORT_UPDATED;
			sqlite3_stmt *st;
			if ((err = db_prepare(db, "DELETE FROM campaign WHERE id = ?", &st)) < 0)
				return err;
			sqlite3_bind_int64(st, 1, id);
			return db_step_write(db, st, "cannot replace the partial campaign");
		}
		return db_fail(db, -EEXIST, "%s: %s: campaign '%s' of host '%s' is already in '%s' as "
		               "'%s' with other results (%zu of %zu runs finished there, %zu of %zu "
		               "here); nothing was imported", im->name, im->path, name,
		               host ? host : "unknown-host", db->path, stored_name, fin_here, all_here,
		               fin_in, all_in);
	}
	struct db_campaign *c;
	if (db_campaign_find(db, name, &c) == 0) {
		free(c);
		snprintf(as, size, "%s@%s", name, host ? host : "unknown-host");
		*action = DB_IMPORT_QUALIFIED;
	}
	return 0;
}

/* One campaign: its row, builds, arms, route marks, host facts, runs and
 * posts. */
static int import_campaign(struct importer *im, json_t *o)
{
	struct db *db = im->db;
	if (!json_is_object(o))
		return bad(im, NULL, "expected an object");
	char as[300];
	enum db_import_action action;
	bool skip;
	int err = place_campaign(im, o, as, sizeof as, &action, &skip);
	if (!err && (action != DB_IMPORT_ADDED || skip))
		err = report_item(im, json_string_value(json_object_get(o, "name")), as, action, o);
	if (err || skip)
		return err;
	int64_t campaign_id = 0;
	err = import_campaign_row(im, o, action == DB_IMPORT_ADDED ? NULL : as, &campaign_id);
	if (err)
		return err;
	if (action == DB_IMPORT_ADDED &&
	    (err = report_item(im, json_string_value(json_object_get(o, "name")), as, action, o)) < 0)
		return err;

	json_t *builds = NULL, *arms = NULL, *marks = NULL, *runs = NULL, *posts = NULL, *hosts = NULL;
	if ((err = get_array(im, o, "builds", &builds)) || (err = get_array(im, o, "arms", &arms)) ||
	    (err = get_array(im, o, "route_marks", &marks)) || (err = get_array(im, o, "runs", &runs)) ||
	    (err = get_array(im, o, "posts", &posts)) || (err = get_array(im, o, "host_facts", &hosts)))
		return err;

	size_t nb = builds ? json_array_size(builds) : 0;
	size_t na = arms ? json_array_size(arms) : 0;
	size_t nm = marks ? json_array_size(marks) : 0;
	const char **build_labels = calloc(nb + 1, sizeof *build_labels);
	int64_t *build_ids = calloc(nb + 1, sizeof *build_ids);
	struct arm_ref *arm_refs = calloc(na + 1, sizeof *arm_refs);
	struct db_route_mark *m = calloc(nm + 1, sizeof *m);
	if (!build_labels || !build_ids || !arm_refs || !m)
		err = db_fail(db, -ENOMEM, "out of memory importing campaign '%s'",
		              json_string_value(json_object_get(o, "name")));
	if (!err)
		err = import_builds(im, builds, nb, campaign_id, build_labels, build_ids);
	if (!err)
		err = import_arms(im, arms, na, campaign_id, build_labels, build_ids, nb, arm_refs);
	if (!err)
		err = import_marks(im, marks, nm, campaign_id, m);
	if (!err)
		err = import_host_facts(im, hosts, campaign_id);
	for (size_t i = 0; !err && runs && i < json_array_size(runs); i++) {
		size_t len = push(im, ".runs[%zu]", i);
		err = import_run(im, json_array_get(runs, i), campaign_id, arm_refs, na);
		pop(im, len);
	}
	if (!err)
		err = import_posts(im, posts, campaign_id);
	free(build_labels);
	free(build_ids);
	free(arm_refs);
	free(m);
	return err;
}

int db_import(struct db *db, FILE *in, const char *in_name, size_t *n_campaigns_out)
{
	struct db_import_report r = { 0 };
	int err = db_import_ex(db, in, in_name, &r);
	if (!err && n_campaigns_out) {
		*n_campaigns_out = 0;
		for (size_t i = 0; i < r.n; i++)
			*n_campaigns_out += r.items[i].action != DB_IMPORT_SAME;
	}
	free(r.items);
	return err;
}

int db_import_ex(struct db *db, FILE *in, const char *in_name, struct db_import_report *report)
{
	struct db_import_report rep = { 0 };
	struct importer im = { .db = db, .report = &rep, .name = in_name ? in_name : "(input)" };
	json_error_t jerr;
	json_t *doc = json_loadf(in, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return db_fail(db, -EINVAL, "%s:%d:%d: %s", im.name, jerr.line, jerr.column,
		               jerr.text);
	int err = 0;
	int64_t version = 0;
	const char *format = NULL;
	json_t *campaigns = NULL, *posts = NULL;
	if (!json_is_object(doc))
		err = bad(&im, NULL, "expected an rxdeck export, a JSON object");
	if (!err)
		err = get_str(&im, doc, "format", true, &format);
	if (!err && strcmp(format, FORMAT_NAME) != 0)
		err = bad(&im, "format", "'%s' is not '" FORMAT_NAME "'", format);
	if (!err)
		err = get_int(&im, doc, "schema_version", true, 1, INT32_MAX, &version);
	if (!err && version > DB_SCHEMA_VERSION)
		err = db_fail(db, -ENOTSUP, "%s: written by a newer rxdeck (schema version %lld, "
		              "this one knows %d)", im.name, (long long)version, DB_SCHEMA_VERSION);
	if (!err)
		err = get_array(&im, doc, "campaigns", &campaigns);
	if (!err && !campaigns)
		err = bad(&im, "campaigns", "missing");
	if (!err)
		err = get_array(&im, doc, "posts", &posts);
	if (!err)
		err = db_write_begin(db);
	if (err) {
		json_decref(doc);
		return err;
	}
	size_t n = json_array_size(campaigns);
	for (size_t i = 0; !err && i < n; i++) {
		size_t len = push(&im, "campaigns[%zu]", i);
		err = import_campaign(&im, json_array_get(campaigns, i));
		pop(&im, len);
	}
	if (!err)
		err = import_posts(&im, posts, 0);
	err = db_write_end(db, err);
	json_decref(doc);
	if (!err)
		*report = rep;
	else
		free(rep.items);
	return err;
}
