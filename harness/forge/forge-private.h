/* forge-private: the HTTP exchange under forge.c.  Not for other modules. */
#ifndef RXDECK_FORGE_PRIVATE_H
#define RXDECK_FORGE_PRIVATE_H

#include "forge.h"

/* One answer from the forge. */
struct forge_response {
	long status;            /* HTTP status; 0 when no answer came */
	char *body;             /* the answer's body, NUL-terminated (at most 4 MiB kept) */
	size_t body_len;
	long retry_after_s;     /* Retry-After in seconds; -1 when absent */
	char error[256];        /* why no answer came (never holds the token) */
};

/*
 * One request: method ("GET", "POST", "PATCH") to url with
 * `Authorization: token <token>` and, when json is not NULL, that JSON
 * body.  TLS peers and host names are verified; redirects are not
 * followed; only http and https are spoken.  Returns 0 when an answer came
 * (any status; see out->status), -ETIMEDOUT when none came within
 * timeout_s, -EIO (or -ECONNREFUSED, -EHOSTUNREACH) for other network
 * errors, with out->error saying what; -ENOMEM.  Release with
 * forge_response_finish().
 */
int forge_http(const char *method, const char *url, const char *token, const char *json,
               int timeout_s, struct forge_response *out);
void forge_response_finish(struct forge_response *r);

/* One file of a multipart/form-data body. */
struct forge_part {
	const char *field;      /* the form field: "attachment" */
	const char *filename;   /* "2026-11-13-night-1-fps.svg" */
	const char *type;       /* its media type: "image/svg+xml" */
	const void *data;
	size_t len;             /* bytes of data */
};

/*
 * POST to url with `Authorization: token <token>` and a multipart/form-data
 * body holding the one file part (Forgejo's asset uploads).  Transport
 * rules and returns as forge_http().
 */
int forge_http_upload(const char *url, const char *token, const struct forge_part *part,
                      int timeout_s, struct forge_response *out);

/* The "browser_download_url" of Forgejo's answer to an asset upload (an
 * http(s) URL without spaces, parentheses or angle brackets), malloc'd;
 * NULL when there is none. */
char *forge_asset_url(const char *json);

/*
 * The summary body with the uploaded plots shown: before the summary's
 * hidden marker (at the end when there is none), a "Plots" line and one
 * Markdown image per plot, ![title](url).  *out malloc'd; -ENOMEM.
 */
int forge_body_with_plots(const char *body, const char *const *titles, const char *const *urls,
                          size_t n, char **out);

/* True for http://127.0.0.1, http://[::1] and http://localhost (any port). */
bool forge_url_is_loopback_http(const char *url);

/* The hidden line that ends every summary:
 * <!-- rxdeck-summary campaign=NAME created=MS post=KEY mode=new|update --> */
struct forge_marker {
	char campaign[512];  /* "campaign=NAME created=MS" */
	char key[40];        /* "post=HEX" */
	bool update;         /* mode=update */
};

/* Reads the last marker of a summary's body.  Returns false when there is
 * none or it is malformed (the post is then sent as a new comment and never
 * looked for on the forge); *m is then empty (both strings ""). */
bool forge_marker_parse(const char *body, struct forge_marker *m);

/* Searches a forge's answer to GET .../issues/N/comments (a JSON array of
 * objects with "id" and "body") for the newest comment whose body holds
 * needle: *id_out is its id, or 0 when none does.  Returns 0, or -EINVAL
 * when the answer is not a JSON array (*id_out untouched). */
int forge_comments_find(const char *json, const char *needle, int64_t *id_out);

#endif
