/* forge: campaign summaries to a Forgejo/Gitea issue or pull request,
 * through the results-db outbox.
 *
 * It owns the outbox's life cycle on the sending side (results-db owns the
 * table): a summary is stored first, then claimed and sent; what failed is
 * marked with the reason and the time of its next try.  Network errors,
 * time-outs, 5xx and 429 are tried again (a few times in the same call,
 * then later with a growing delay); 401, 403, 404 and other refusals stop
 * with a message naming what to fix and wait for `rxdeck post --retry`.
 *
 * Never twice: every summary ends with a hidden marker carrying a random
 * key; before a POST is tried again (an earlier try may have reached the
 * forge with its answer lost), the issue's comments are searched for the
 * key, and a match is taken as sent.  An update (PATCH) is idempotent.
 *
 * The token is read here, kept only in memory, wiped after use, and never
 * written anywhere: messages name the token's source, never its value.
 */
#include "forge-private.h"
#include "report/report-across.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

#define MARKER_START "<!-- rxdeck-summary "
#define TOKEN_ENV "RXDECK_FORGE_TOKEN"
#define NEVER INT64_MAX /* next try of a refused post: only --retry */
#define OUTBOX_DELAY_MS (5 * 60 * 1000) /* first later try; doubled each time */
#define OUTBOX_DELAY_MAX_MS (6 * 3600 * 1000)
#define RETRY_AFTER_MAX_S 60       /* wait longer than this in the outbox, not in the call */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct ctx {
	struct db *db;
	struct forge_options o;
	FILE *log;
	const char *command;
	char *token;        /* loaded once per call */
	int token_err;
	char token_msg[512];
	bool token_tried;
	struct forge_outcome out;
	int worst;          /* the return value so far */
};

static void say(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct ctx *x, const char *fmt, ...)
{
	va_list ap;
	fprintf(x->log, "%s: ", x->command);
	va_start(ap, fmt);
	vfprintf(x->log, fmt, ap);
	va_end(ap);
	fputc('\n', x->log);
	fflush(x->log);
}

/* ---- targets and tokens --------------------------------------------------- */

static bool name_ok(const char *s, size_t len)
{
	if (len == 0 || len > 100)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return !(len == 1 && s[0] == '.') && !(len == 2 && s[0] == '.' && s[1] == '.');
}

static int check_url(const char *url, char *msg, size_t size)
{
	if (!url || !url[0]) {
		snprintf(msg, size, "no forge URL given (--forge https://forge.example.org)");
		return -EINVAL;
	}
	if (strncmp(url, "https://", 8) == 0) {
		if (!url[8] || url[8] == '/') {
			snprintf(msg, size, "forge URL '%s' names no host", url);
			return -EINVAL;
		}
	} else if (strncmp(url, "http://", 7) == 0) {
		if (!forge_url_is_loopback_http(url)) {
			snprintf(msg, size, "forge URL '%s' is not https: plain http is allowed only for "
			         "127.0.0.1, ::1 and localhost (a local stand-in), since the token would "
			         "travel in the clear", url);
			return -EINVAL;
		}
	} else {
		snprintf(msg, size, "forge URL '%s' must start with https://", url);
		return -EINVAL;
	}
	const char *host = strstr(url, "://") + 3;
	size_t hl = strcspn(host, "/?#");
	if (memchr(host, '@', hl)) {
		snprintf(msg, size, "forge URL must not hold a user name or password; the token comes "
		         "from %s or the token file", TOKEN_ENV);
		return -EINVAL;
	}
	if (strpbrk(url, " \t\r\n?#")) {
		snprintf(msg, size, "forge URL '%s' has white space, a query or a fragment", url);
		return -EINVAL;
	}
	return 0;
}

int forge_target_check(const struct forge_target *t, char *errmsg, size_t errmsg_size)
{
	char dummy[8];
	if (!errmsg || !errmsg_size) {
		errmsg = dummy;
		errmsg_size = sizeof dummy;
	}
	int err = check_url(t->url, errmsg, errmsg_size);
	if (err)
		return err;
	const char *slash = t->repo ? strchr(t->repo, '/') : NULL;
	if (!slash || !name_ok(t->repo, (size_t)(slash - t->repo)) ||
	    !name_ok(slash + 1, strlen(slash + 1))) {
		snprintf(errmsg, errmsg_size, "bad repository '%s': expected OWNER/NAME of letters, "
		         "digits, '.', '_' and '-'", t->repo ? t->repo : "");
		return -EINVAL;
	}
	if (t->issue_index <= 0) {
		snprintf(errmsg, errmsg_size, "bad pull request or issue number %lld: expected a "
		         "number above 0", (long long)t->issue_index);
		return -EINVAL;
	}
	return 0;
}

static int token_path(char **out)
{
	const char *x = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n;
	if (x && x[0] == '/')
		n = asprintf(out, "%s/rxdeck/forge-token", x);
	else if (home && home[0])
		n = asprintf(out, "%s/.config/rxdeck/forge-token", home);
	else
		return -ENOENT;
	return n < 0 ? -ENOMEM : 0;
}

/* A token fit for a header: printable, no white space. */
static bool token_ok(const char *t)
{
	if (!t[0])
		return false;
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

void forge_token_free(char *token)
{
	if (!token)
		return;
	explicit_bzero(token, strlen(token));
	free(token);
}

int forge_token_load(char **out, char *errmsg, size_t errmsg_size)
{
	char dummy[8];
	if (!errmsg || !errmsg_size) {
		errmsg = dummy;
		errmsg_size = sizeof dummy;
	}
	const char *env = getenv(TOKEN_ENV);
	if (env && env[0]) {
		if (!token_ok(env)) {
			snprintf(errmsg, errmsg_size, "%s holds white space or control characters; "
			         "set it to the token alone", TOKEN_ENV);
			return -EINVAL;
		}
		char *t = strdup(env);
		if (!t)
			return -ENOMEM;
		*out = t;
		return 0;
	}
	char *path;
	int err = token_path(&path);
	if (err == -ENOENT) {
		snprintf(errmsg, errmsg_size, "no forge token: set %s, or write the token to "
		         "~/.config/rxdeck/forge-token (chmod 600)", TOKEN_ENV);
		return -ENOENT;
	}
	if (err)
		return err;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			snprintf(errmsg, errmsg_size, "no forge token: set %s, or write the token to "
			         "'%s' (chmod 600)", TOKEN_ENV, path);
		else
			snprintf(errmsg, errmsg_size, "cannot open token file '%s': %s", path,
			         strerror(-err));
		free(path);
		return err;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		snprintf(errmsg, errmsg_size, "cannot read token file '%s': %s", path, strerror(-err));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		snprintf(errmsg, errmsg_size, "token file '%s' is not a regular file", path);
		goto fail;
	}
	if (st.st_mode & 077) {
		err = -EPERM;
		snprintf(errmsg, errmsg_size, "token file '%s' is open to group or others (mode %03o); "
		         "refused: run chmod 600 '%s'", path, (unsigned)(st.st_mode & 0777), path);
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		err = -EPERM;
		snprintf(errmsg, errmsg_size, "token file '%s' belongs to another user; refused", path);
		goto fail;
	}
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	if (n < 0) {
		err = -errno;
		snprintf(errmsg, errmsg_size, "cannot read token file '%s': %s", path, strerror(-err));
		goto fail;
	}
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
	                 buf[n - 1] == '\t'))
		buf[--n] = 0;
	if (!token_ok(buf)) {
		err = -EINVAL;
		snprintf(errmsg, errmsg_size, "token file '%s' is empty or holds more than one word",
		         path);
		explicit_bzero(buf, sizeof buf);
		goto fail;
	}
	char *t = strdup(buf);
	explicit_bzero(buf, sizeof buf);
	if (!t) {
		err = -ENOMEM;
		goto fail;
	}
	close(fd);
	free(path);
	*out = t;
	return 0;
fail:
	close(fd);
	free(path);
	return err;
}

/* ---- the marker ------------------------------------------------------------ */

/* Appends name percent-encoded outside [A-Za-z0-9._-]: never closes the
 * comment, never holds white space. */
static void put_encoded(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-')
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

/* The campaign part of the marker: "campaign=NAME created=MS". */
static char *campaign_key(const struct db_campaign *c)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fputs("campaign=", f);
	put_encoded(f, c->name);
	fprintf(f, " created=%lld", (long long)c->created_unix_ms);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

bool forge_marker_parse(const char *body, struct forge_marker *m)
{
	*m = (struct forge_marker){ 0 }; /* empty on every false return */
	const char *p = NULL, *q = body;
	while ((q = strstr(q, MARKER_START))) /* the last one is ours */
		p = q++;
	if (!p)
		return false;
	p += strlen(MARKER_START);
	const char *end = strstr(p, " -->");
	if (!end)
		return false;
	const char *k = strstr(p, " post=");
	const char *mode = strstr(p, " mode=");
	if (!k || k > end || !mode || mode > end || k <= p)
		return false;
	size_t cl = (size_t)(k - p);
	size_t kl = strcspn(k + 1, " ");
	if (cl >= sizeof m->campaign || kl >= sizeof m->key)
		return false;
	memcpy(m->campaign, p, cl);
	m->campaign[cl] = 0;
	memcpy(m->key, k + 1, kl);
	m->key[kl] = 0;
	m->update = strncmp(mode + 6, "update", 6) == 0;
	return true;
}

/* ---- sending ---------------------------------------------------------------- */

enum kind { SENT, AGAIN, REFUSED };

struct attempt {
	enum kind kind;
	int err;              /* the errno for the caller's return */
	long retry_after_s;
	char msg[768];
	int64_t comment_id;
};

static char *api_url(const struct db_post *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *api_url(const struct db_post *p, const char *fmt, ...)
{
	size_t bl = strlen(p->forge_url);
	while (bl && p->forge_url[bl - 1] == '/')
		bl--;
	char tail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tail, sizeof tail, fmt, ap);
	va_end(ap);
	char *s;
	if (asprintf(&s, "%.*s/api/v1/repos/%s%s", (int)bl, p->forge_url, p->repo, tail) < 0)
		return NULL;
	return s;
}

/* What an answer means; fills a->kind, err and msg. */
static void classify(const struct db_post *p, const char *what, int rc,
                     const struct forge_response *r, struct attempt *a)
{
	a->retry_after_s = -1;
	if (rc < 0) {
		a->kind = AGAIN;
		a->err = -EAGAIN;
		snprintf(a->msg, sizeof a->msg, "%s: no answer from '%s': %s", what, p->forge_url,
		         r->error[0] ? r->error : strerror(-rc));
		return;
	}
	long s = r->status;
	if (s >= 200 && s < 300) {
		a->kind = SENT;
		return;
	}
	if (s == 429 || s >= 500) {
		a->kind = AGAIN;
		a->err = -EAGAIN;
		a->retry_after_s = r->retry_after_s;
		snprintf(a->msg, sizeof a->msg, "%s: the forge answered %ld (%s)", what, s,
		         s == 429 ? "too many requests" : "a server error");
		return;
	}
	a->kind = REFUSED;
	/* the forge's own reason, when it gave one in JSON */
	char why[200] = "";
	json_t *j = r->body ? json_loads(r->body, 0, NULL) : NULL;
	const char *m = j ? json_string_value(json_object_get(j, "message")) : NULL;
	if (m)
		snprintf(why, sizeof why, ": \"%.150s\"", m);
	json_decref(j);
	switch (s) {
	case 401:
		a->err = -EACCES;
		snprintf(a->msg, sizeof a->msg, "%s: the forge did not accept the token (401)%s; check "
		         "%s or the token file, and that the token may write issues", what, why,
		         TOKEN_ENV);
		break;
	case 403:
		a->err = -EACCES;
		snprintf(a->msg, sizeof a->msg, "%s: the token may not comment on '%s' (403)%s; give "
		         "its user write access to the repository's issues, or use a token with the "
		         "write:issue scope", what, p->repo, why);
		break;
	case 404:
		a->err = -ENOENT;
		snprintf(a->msg, sizeof a->msg, "%s: the forge at '%s' has no repository '%s' or no "
		         "issue #%lld (404)%s; check --forge, --repo and --pr", what, p->forge_url,
		         p->repo, (long long)p->issue_index, why);
		break;
	default:
		a->err = -EACCES;
		snprintf(a->msg, sizeof a->msg, "%s: the forge refused it (%ld)%s", what, s, why);
	}
}

int forge_comments_find(const char *json, const char *needle, int64_t *id_out)
{
	json_t *arr = json ? json_loads(json, 0, NULL) : NULL;
	if (!json_is_array(arr)) {
		json_decref(arr);
		return -EINVAL;
	}
	int64_t best = 0;
	size_t i;
	json_t *c;
	json_array_foreach(arr, i, c) {
		const char *b = json_string_value(json_object_get(c, "body"));
		json_t *jid = json_object_get(c, "id");
		int64_t id = json_is_integer(jid) ? (int64_t)json_integer_value(jid) : 0;
		if (b && id > best && strstr(b, needle))
			best = id;
	}
	json_decref(arr);
	*id_out = best;
	return 0;
}

/* The "id" of a JSON object answer; 0 when the answer is not JSON or has
 * no positive integer id. */
static int64_t json_id(const char *body)
{
	json_t *j = body ? json_loads(body, 0, NULL) : NULL;
	json_t *jid = j ? json_object_get(j, "id") : NULL;
	int64_t id = json_is_integer(jid) ? (int64_t)json_integer_value(jid) : 0;
	json_decref(j);
	return id > 0 ? id : 0;
}

/* Searches the issue's comments for needle; the newest match's id, or 0.
 * A failed search is an attempt's failure. */
static void find_comment(struct ctx *x, const struct db_post *p, const char *needle,
                         struct attempt *a, int64_t *id_out)
{
	*id_out = 0;
	char *url = api_url(p, "/issues/%lld/comments", (long long)p->issue_index);
	if (!url) {
		a->kind = AGAIN;
		a->err = -ENOMEM;
		snprintf(a->msg, sizeof a->msg, "out of memory");
		return;
	}
	struct forge_response r;
	int rc = forge_http("GET", url, x->token, NULL, x->o.timeout_s, &r);
	free(url);
	classify(p, "cannot read the issue's comments", rc, &r, a);
	if (a->kind == SENT && forge_comments_find(r.body, needle, id_out) != 0) {
		a->kind = AGAIN;
		a->err = -EAGAIN;
		snprintf(a->msg, sizeof a->msg, "cannot read the issue's comments: the forge's "
		         "answer is not a list of comments");
	}
	forge_response_finish(&r);
}

static void request_body(struct ctx *x, const struct db_post *p, const char *method,
                         const char *url, const char *what, const char *body, struct attempt *a)
{
	json_t *j = json_pack("{s:s}", "body", body);
	char *payload = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!payload) {
		a->kind = AGAIN;
		a->err = -ENOMEM;
		snprintf(a->msg, sizeof a->msg, "out of memory");
		return;
	}
	struct forge_response r;
	int rc = forge_http(method, url, x->token, payload, x->o.timeout_s, &r);
	free(payload);
	classify(p, what, rc, &r, a);
	if (a->kind == SENT)
		a->comment_id = json_id(r.body);
	if (a->kind == SENT && !a->comment_id && strcmp(method, "POST") == 0) {
		/* the comment was likely made, but which one is not known: the
		 * next try asks the forge for it by the post's key first */
		a->kind = AGAIN;
		a->err = -EAGAIN;
		snprintf(a->msg, sizeof a->msg, "%s: the forge answered %ld, but not with a comment "
		         "(no JSON object with an id)", what, r.status);
	}
	forge_response_finish(&r);
}

static void request(struct ctx *x, const struct db_post *p, const char *method, const char *url,
                    const char *what, struct attempt *a)
{
	request_body(x, p, method, url, what, p->body, a);
}

/* An updated comment's plots from an earlier post (its assets with the
 * names of the plots about to go up) are removed first, so the comment
 * carries one set.  Best effort: what cannot be listed or removed stays. */
static void remove_old_plots(struct ctx *x, const struct db_post *p, int64_t comment_id,
                             const struct report_plot_svg *plots, size_t n)
{
	char *url = api_url(p, "/issues/comments/%lld/assets", (long long)comment_id);
	if (!url)
		return;
	struct forge_response r;
	int rc = forge_http("GET", url, x->token, NULL, x->o.timeout_s, &r);
	free(url);
	json_t *arr = rc == 0 && r.status >= 200 && r.status < 300 && r.body
	                      ? json_loads(r.body, 0, NULL) : NULL;
	forge_response_finish(&r);
	size_t i;
	json_t *a;
	json_array_foreach(arr, i, a) {
		const char *name = json_string_value(json_object_get(a, "name"));
		json_t *jid = json_object_get(a, "id");
		bool ours = false;
		for (size_t k = 0; name && k < n; k++)
			ours |= strcmp(name, plots[k].name) == 0 ||
		        (plots[k].png_name && strcmp(name, plots[k].png_name) == 0);
		if (!ours || !json_is_integer(jid))
			continue;
		long long aid = (long long)json_integer_value(jid);
		url = api_url(p, "/issues/comments/%lld/assets/%lld", (long long)comment_id, aid);
		if (!url)
			break;
		rc = forge_http("DELETE", url, x->token, NULL, x->o.timeout_s, &r);
		free(url);
		if (rc != 0 || r.status < 200 || r.status >= 300)
			say(x, "post %lld: cannot remove the earlier plot '%s' (attachment %lld) from "
			    "comment %lld: %s; it stays", (long long)p->id, name, aid,
			    (long long)comment_id, rc ? (r.error[0] ? r.error : strerror(-rc))
			                              : "the forge refused it");
		forge_response_finish(&r);
	}
	json_decref(arr);
}

/* The campaign's plots as attachments of the comment just sent (Forgejo's
 * comment assets, multipart field "attachment"; PNG, drawn from the SVG by
 * librsvg, which every forge shows inline and Forgejo's default
 * [attachment] ALLOWED_TYPES takes), then shown in its body by a PATCH.  Best effort: the comment was sent once already and stays as it
 * is when the forge refuses an upload or cannot be reached; nothing here
 * is tried again or fails the post. */
static void attach_plots(struct ctx *x, const struct db_post *p, int64_t comment_id)
{
	struct report_plot_svg *plots;
	size_t n;
	char msg[512] = "";
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg, .plots_png = true };
	if (report_plots_render(x->db, p->campaign_id, &ro, &plots, &n) != 0) {
		say(x, "post %lld: cannot draw the plots to attach: %s; comment %lld keeps the text "
		    "only", (long long)p->id, msg, (long long)comment_id);
		return;
	}
	remove_old_plots(x, p, comment_id, plots, n);
	char **urls = calloc(n ? n : 1, sizeof *urls);
	const char **titles = calloc(n ? n : 1, sizeof *titles);
	size_t got = 0;
	for (size_t i = 0; urls && titles && i < n; i++) {
		char *url = api_url(p, "/issues/comments/%lld/assets?name=%s", (long long)comment_id,
		                    plots[i].png_name);
		if (!url)
			break;
		struct forge_part part = { "attachment", plots[i].png_name, "image/png", plots[i].png,
			                   plots[i].png_len };
		struct forge_response r;
		int rc = forge_http_upload(url, x->token, &part, x->o.timeout_s, &r);
		free(url);
		char *dl = rc == 0 && r.status >= 200 && r.status < 300 ? forge_asset_url(r.body) : NULL;
		if (!dl) {
			if (rc < 0)
				snprintf(msg, sizeof msg, "no answer from '%s': %s", p->forge_url,
				         r.error[0] ? r.error : strerror(-rc));
			else if (r.status >= 200 && r.status < 300)
				snprintf(msg, sizeof msg, "the forge's answer (%ld) names no download URL",
				         r.status);
			else
				snprintf(msg, sizeof msg, "the forge refused it (%ld)", r.status);
			say(x, "post %lld: cannot attach plot '%s' to comment %lld: %s; the comment keeps "
			    "the text%s", (long long)p->id, plots[i].png_name, (long long)comment_id, msg,
			    got ? " and the plots attached before it" : " without pictures");
			forge_response_finish(&r);
			break;
		}
		forge_response_finish(&r);
		titles[got] = plots[i].title;
		urls[got++] = dl;
	}
	char *body = NULL;
	if (got && forge_body_with_plots(p->body, titles, (const char *const *)urls, got, &body) == 0) {
		char *url = api_url(p, "/issues/comments/%lld", (long long)comment_id);
		struct attempt a = { .kind = SENT };
		if (url)
			request_body(x, p, "PATCH", url, "cannot show the plots in the comment", body, &a);
		if (url && a.kind == SENT)
			say(x, "post %lld: %zu plot%s attached to comment %lld", (long long)p->id, got,
			    got == 1 ? "" : "s", (long long)comment_id);
		else
			say(x, "post %lld: %s; the plots are attached to comment %lld but not shown in it",
			    (long long)p->id, url ? a.msg : "out of memory", (long long)comment_id);
		free(url);
	}
	free(body);
	for (size_t i = 0; urls && i < got; i++)
		free(urls[i]);
	free(urls);
	free(titles);
	report_plots_free(plots, n);
}

/* One try of one post. */
static void try_post(struct ctx *x, const struct db_post *p, bool maybe_sent, struct attempt *a)
{
	*a = (struct attempt){ .kind = SENT, .retry_after_s = -1 };
	struct forge_marker m;
	bool have_marker = forge_marker_parse(p->body, &m);
	if (have_marker && m.update) {
		int64_t id = 0;
		if (p->campaign_id &&
		    db_post_remote_comment(x->db, p->campaign_id, p->forge_url, p->repo,
		                           p->issue_index, &id) != 0)
			id = 0;
		if (!id) {
			find_comment(x, p, m.campaign, a, &id);
			if (a->kind != SENT)
				return;
		}
		if (id) {
			char *url = api_url(p, "/issues/comments/%lld", (long long)id);
			if (!url) {
				a->kind = AGAIN;
				a->err = -ENOMEM;
				return;
			}
			char what[64];
			snprintf(what, sizeof what, "cannot update comment %lld", (long long)id);
			request(x, p, "PATCH", url, what, a);
			free(url);
			if (a->kind == SENT) {
				if (!a->comment_id)
					a->comment_id = id;
				return;
			}
			if (a->err != -ENOENT)
				return;
			say(x, "post %lld: comment %lld is gone; posting a new one", (long long)p->id,
			    (long long)id);
			*a = (struct attempt){ .kind = SENT, .retry_after_s = -1 };
		}
	}
	if (have_marker && maybe_sent) {
		/* an earlier try may have reached the forge with its answer lost */
		int64_t id;
		find_comment(x, p, m.key, a, &id);
		if (a->kind != SENT)
			return;
		if (id) {
			a->comment_id = id;
			return;
		}
	}
	char *url = api_url(p, "/issues/%lld/comments", (long long)p->issue_index);
	if (!url) {
		a->kind = AGAIN;
		a->err = -ENOMEM;
		return;
	}
	request(x, p, "POST", url, "cannot post the summary", a);
	free(url);
}

static int64_t outbox_delay_ms(int attempts)
{
	int64_t d = OUTBOX_DELAY_MS;
	for (int i = 1; i < attempts && d < OUTBOX_DELAY_MAX_MS; i++)
		d *= 2;
	return d < OUTBOX_DELAY_MAX_MS ? d : OUTBOX_DELAY_MAX_MS;
}

static void worsen(struct ctx *x, int err)
{
	/* a refusal outranks "try again later" */
	if (x->worst == 0 || (x->worst == -EAGAIN && err != -EAGAIN))
		x->worst = err;
}

static int load_token(struct ctx *x)
{
	if (!x->token_tried) {
		x->token_tried = true;
		x->token_err = forge_token_load(&x->token, x->token_msg, sizeof x->token_msg);
	}
	return x->token_err;
}

/* Sends one post, trying again in this call while that may help. */
static int send_one(struct ctx *x, const struct db_post *p)
{
	char where[600];
	snprintf(where, sizeof where, "post %lld to %s/%s#%lld", (long long)p->id, p->forge_url,
	         p->repo, (long long)p->issue_index);
	if (load_token(x) != 0) {
		int err = x->token_err == -ENOMEM ? -ENOMEM : -EACCES;
		say(x, "%s: %s; the summary stays in the outbox (rxdeck post --retry sends it)", where,
		    x->token_msg);
		if (db_post_mark_failed(x->db, p->id, x->token_msg, NEVER) != 0)
			say(x, "%s: cannot update the outbox: %s", where, db_errmsg(x->db));
		x->out.queued++;
		x->out.refused++;
		worsen(x, err);
		return err;
	}
	int attempts = p->attempts;
	/* an attempt that died mid-request may have reached the forge */
	bool maybe_sent = attempts > 0 || (p->last_error && strcmp(p->last_error, DB_POST_SENDING) == 0);
	for (int t = 0;; t++) {
		/* claim it: another sender leaves it alone, and a crash from here
		 * on leaves it due again soon, marked as maybe sent */
		int64_t now = now_ms();
		int64_t claim_until = now + 2 * 1000 * (int64_t)x->o.timeout_s + 60 * 1000;
		int rc = db_post_claim(x->db, p->id, now, claim_until);
		if (rc == -EALREADY) {
			say(x, "%s: %s; left to it", where, db_errmsg(x->db));
			return 0;
		}
		if (rc == -EBUSY) {
			/* still queued: not sent by this call */
			say(x, "%s: %s; left to it (still in the outbox)", where, db_errmsg(x->db));
			x->out.queued++;
			worsen(x, -EAGAIN);
			return -EAGAIN;
		}
		if (rc != 0) {
			say(x, "%s: cannot update the outbox: %s", where, db_errmsg(x->db));
			worsen(x, -EIO);
			x->out.queued++;
			return -EIO;
		}
		attempts++;
		struct attempt a;
		try_post(x, p, maybe_sent, &a);
		maybe_sent = true;
		if (a.kind == SENT) {
			if (db_post_mark_sent(x->db, p->id, a.comment_id, 0) != 0) {
				/* sent but not recorded: the key check keeps the next try
				 * from posting it again */
				say(x, "%s: sent, but cannot record it in the outbox: %s", where,
				    db_errmsg(x->db));
				worsen(x, -EIO);
				return -EIO;
			}
			say(x, "%s: sent as comment %lld", where, (long long)a.comment_id);
			if (x->o.attach_plots && p->campaign_id && a.comment_id)
				attach_plots(x, p, a.comment_id);
			x->out.sent++;
			if (p->id == x->out.last_post_id)
				x->out.comment_id = a.comment_id;
			return 0;
		}
		if (a.kind == REFUSED) {
			db_post_mark_failed(x->db, p->id, a.msg, NEVER);
			say(x, "%s: %s; the summary stays in the outbox (rxdeck post --retry sends it "
			    "once that is fixed)", where, a.msg);
			x->out.queued++;
			x->out.refused++;
			worsen(x, a.err);
			return a.err;
		}
		/* AGAIN */
		long wait_ms = (long)x->o.retry_base_ms << (t < 10 ? t : 10);
		bool later = t + 1 >= x->o.tries;
		if (a.retry_after_s > RETRY_AFTER_MAX_S)
			later = true;
		else if (a.retry_after_s >= 0 && a.retry_after_s * 1000 > wait_ms)
			wait_ms = a.retry_after_s * 1000;
		if (later) {
			int64_t next = now_ms() + outbox_delay_ms(attempts);
			if (a.retry_after_s > 0 && next < now_ms() + a.retry_after_s * 1000)
				next = now_ms() + a.retry_after_s * 1000;
			db_post_mark_failed(x->db, p->id, a.msg, next);
			time_t nt = (time_t)(next / 1000);
			struct tm tm;
			char when[32] = "later";
			if (localtime_r(&nt, &tm))
				strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
			say(x, "%s: %s; kept in the outbox for a try after %s (or rxdeck post --retry)",
			    where, a.msg, when);
			x->out.queued++;
			worsen(x, -EAGAIN);
			return -EAGAIN;
		}
		db_post_mark_failed(x->db, p->id, a.msg, now_ms() + wait_ms);
		say(x, "%s: %s; trying again in %.1f s", where, a.msg, (double)wait_ms / 1000);
		sleep_ms(wait_ms);
	}
}

static void ctx_init(struct ctx *x, struct db *db, const struct forge_options *opt)
{
	*x = (struct ctx){ .db = db };
	if (opt)
		x->o = *opt;
	if (x->o.timeout_s <= 0)
		x->o.timeout_s = 30;
	if (x->o.tries <= 0)
		x->o.tries = 3;
	if (x->o.retry_base_ms <= 0)
		x->o.retry_base_ms = 2000;
	x->log = x->o.log ? x->o.log : stderr;
	x->command = x->o.command ? x->o.command : "rxdeck";
}

static int flush(struct ctx *x, bool all)
{
	struct db_post *posts;
	size_t n;
	int64_t now = all ? INT64_MAX : x->o.now_unix_ms ? x->o.now_unix_ms : now_ms();
	if (db_post_list_due(x->db, now, &posts, &n) != 0) {
		say(x, "cannot read the outbox: %s", db_errmsg(x->db));
		worsen(x, -EIO);
		return x->worst;
	}
	/* this call's own post first */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if ((posts[i].id == x->out.last_post_id) == (pass == 0))
				send_one(x, &posts[i]);
	free(posts);
	return x->worst;
}

static void ctx_finish(struct ctx *x, struct forge_outcome *out)
{
	forge_token_free(x->token);
	x->token = NULL;
	if (out)
		*out = x->out;
}

int forge_outbox_flush(struct db *db, bool all, const struct forge_options *opt,
                       struct forge_outcome *out)
{
	struct ctx x;
	ctx_init(&x, db, opt);
	int rc = flush(&x, all);
	ctx_finish(&x, out);
	return rc;
}

static int random_hex(char *buf, size_t nbytes)
{
	unsigned char r[32];
	if (nbytes > sizeof r)
		return -EINVAL;
	size_t got = 0;
	while (got < nbytes) {
		ssize_t n = getrandom(r + got, nbytes - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < nbytes; i++)
		sprintf(buf + 2 * i, "%02x", r[i]);
	return 0;
}

int forge_post_campaign(struct db *db, int64_t campaign_id, const struct forge_target *t,
                        const struct forge_options *opt, struct forge_outcome *out)
{
	struct ctx x;
	ctx_init(&x, db, opt);
	char msg[1024] = "";
	int err = forge_target_check(t, msg, sizeof msg);
	if (err) {
		say(&x, "%s", msg);
		ctx_finish(&x, out);
		return err;
	}
	struct db_campaign *c = NULL;
	char *body = NULL, *ckey = NULL;
	size_t len = 0;
	if ((err = db_campaign_get(db, campaign_id, &c))) {
		say(&x, "cannot read campaign %lld: %s", (long long)campaign_id, db_errmsg(db));
		goto out;
	}
	FILE *f = open_memstream(&body, &len);
	if (!f || !(ckey = campaign_key(c))) {
		if (f)
			fclose(f);
		err = -ENOMEM;
		goto out;
	}
	struct report_options ro = { .baseline = t->baseline, .errmsg = msg,
		                     .errmsg_size = sizeof msg };
	err = t->n_across ? report_across_summary_print(db, t->across, t->n_across, &ro, f)
	                  : report_summary_print(db, campaign_id, &ro, t->run_file, f);
	char key[33];
	if (!err && (err = random_hex(key, 16)) != 0)
		snprintf(msg, sizeof msg, "cannot make the post's key: %s", strerror(-err));
	if (!err)
		fprintf(f, "\n%s%s post=%s mode=%s -->\n", MARKER_START, ckey, key,
		        t->update ? "update" : "new");
	if (fclose(f) != 0 && !err) {
		err = -ENOMEM;
		snprintf(msg, sizeof msg, "out of memory");
	}
	if (err) {
		say(&x, "cannot write the summary of campaign '%s': %s", c->name, msg);
		goto out;
	}
	struct db_post p = {
		.campaign_id = campaign_id,
		.forge_url = t->url,
		.repo = t->repo,
		.issue_index = t->issue_index,
		.body = body,
	};
	if ((err = db_post_enqueue(db, &p, &x.out.last_post_id))) {
		say(&x, "cannot store the summary in the outbox: %s", db_errmsg(db));
		goto out;
	}
	err = flush(&x, false);
out:
	free(c);
	free(body);
	free(ckey);
	ctx_finish(&x, out);
	return err;
}
