/* forge: posting a campaign's summary to a Forgejo or Gitea pull request or
 * issue, through the results-db outbox.
 *
 * A summary is stored in the outbox (db_post_*) first and only then sent,
 * so an unreachable forge never loses one; what could not be sent is
 * retried with backoff (`rxdeck post --retry`, and at the end of the next
 * campaign).  Sending is one HTTP request with libcurl:
 *   POST  /api/v1/repos/{owner}/{repo}/issues/{index}/comments   a new comment
 *   PATCH /api/v1/repos/{owner}/{repo}/issues/comments/{id}      an update in place
 *   GET   /api/v1/repos/{owner}/{repo}/issues/{index}/comments   finding a comment
 *   POST  /api/v1/repos/{owner}/{repo}/issues/comments/{id}/assets  a plot attached
 *         (multipart/form-data, field "attachment"; with forge_options.attach_plots,
 *         after GET .../assets and DELETE .../assets/{aid} of the earlier plots)
 * with `Authorization: token ...` and a JSON body {"body": ...}.
 *
 * Each summary carries a hidden marker naming its campaign and the outbox
 * entry; before a POST is tried again the issue's comments are searched for
 * it, so a summary whose first answer was lost is never posted twice.
 *
 * The token comes from RXDECK_FORGE_TOKEN, else from
 * $XDG_CONFIG_HOME/rxdeck/forge-token (default ~/.config/rxdeck/forge-token),
 * a file no one but its owner may read.  It is never printed, logged, stored
 * or put in a message.  TLS certificates are always verified; plain http://
 * is allowed only for 127.0.0.1, ::1 and localhost (a local stand-in).
 * docs/forge.md is the user's description.
 */
#ifndef RXDECK_FORGE_H
#define RXDECK_FORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results-db/db.h"

/* Where a summary goes. */
struct forge_target {
	const char *url;        /* "https://forge.example.org" (a path prefix is kept) */
	const char *repo;       /* "owner/name" */
	int64_t issue_index;    /* pull request or issue number, > 0 */
	bool update;            /* edit the campaign's earlier comment in place
	                         * (a new one when there is none) */
	const char *run_file;   /* link or path to the run file for the summary; may be NULL */
	char baseline;          /* the report's baseline arm; 0: the first arm */
	/* the fleet's summary: these campaigns compared across devices
	 * (report_across_summary_print()) instead of the one campaign's;
	 * the post belongs to the campaign forge_post_campaign() is given */
	const int64_t *across;
	size_t n_across;
};

/* How to send.  Zero means default for every field. */
struct forge_options {
	int timeout_s;          /* per request, connection included; 0: 30 */
	int tries;              /* attempts per post in this call for network errors,
	                         * 5xx and 429; 0: 3 */
	int retry_base_ms;      /* wait before the second attempt, doubled each time
	                         * (a 429's Retry-After wins when longer); 0: 2000 */
	int64_t now_unix_ms;    /* the clock for due times; 0: now (tests set it) */
	FILE *log;              /* progress and error lines; NULL: stderr */
	const char *command;    /* prefix of those lines, "rxdeck post"; NULL: "rxdeck" */
	bool attach_plots;      /* after a campaign's comment is sent, upload its SVG plots
	                         * (POST .../issues/comments/{id}/assets, field
	                         * "attachment") and show them in the comment (PATCH);
	                         * a refusal leaves the text comment as sent */
};

/* What a call did with the outbox. */
struct forge_outcome {
	size_t sent;            /* posts sent (created or updated) in this call */
	size_t queued;          /* posts left in the outbox for a later try */
	size_t refused;         /* of those, posts the forge refused (401, 403, 404,
	                         * 4xx, or no token): they wait for `rxdeck post
	                         * --retry` after the cause is fixed */
	int64_t last_post_id;   /* the outbox entry forge_post_campaign() made */
	int64_t comment_id;     /* its comment on the forge once sent; 0 otherwise */
};

/*
 * Checks a target before anything is stored: the URL is https://, or
 * http:// to 127.0.0.1, ::1 or localhost; the repository is OWNER/NAME;
 * the issue number is > 0.  Returns 0, or -EINVAL with a message in
 * errmsg ("forge URL 'http://x' is not https: ...").
 */
int forge_target_check(const struct forge_target *t, char *errmsg, size_t errmsg_size);

/*
 * Builds the campaign's summary (report_summary_print()), stores it in the
 * outbox, then sends every post that is due, this one first; `rxdeck run
 * --post` calls it at the campaign's end, `rxdeck post` for one campaign.
 * Returns 0 when everything due was sent; -EAGAIN when some posts stay
 * queued for a retry (network error, timeout, 5xx, 429); -EACCES when the
 * forge refused one (401, 403, no token: the message says what to fix);
 * -ENOENT when the forge has no such repository, issue or comment (404);
 * -EINVAL for a bad target (nothing stored); a db error otherwise.  The
 * summary stays in the outbox on every error after it was stored.  *out may
 * be NULL.
 */
int forge_post_campaign(struct db *db, int64_t campaign_id, const struct forge_target *t,
                        const struct forge_options *opt, struct forge_outcome *out);

/*
 * Sends the outbox's posts: those due now (all == false; the end of a
 * campaign), or every one not yet sent (all == true; `rxdeck post
 * --retry`).  Returns as forge_post_campaign().
 */
int forge_outbox_flush(struct db *db, bool all, const struct forge_options *opt,
                       struct forge_outcome *out);

/*
 * The token, from RXDECK_FORGE_TOKEN or the token file (trailing white
 * space dropped).  Returns 0 and *out (malloc'd; wipe and free with
 * forge_token_free()); -ENOENT when neither is set; -EPERM when the file is
 * readable or writable by group or others; -EINVAL when it is empty.  The
 * message (never the token) goes to errmsg.
 */
int forge_token_load(char **out, char *errmsg, size_t errmsg_size);
void forge_token_free(char *token);

#endif
