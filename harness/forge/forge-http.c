/* forge-http: one HTTP request to the forge with libcurl.
 *
 * It owns the transport's safety settings: certificates and host names
 * always verified, no redirects (a redirect could carry the Authorization
 * header elsewhere), http and https only, no proxy for loopback addresses,
 * a time limit per request.  It never logs: curl's verbose output would
 * show the token.  What the answers mean is forge.c's business.
 */
#include "forge-private.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BODY_MAX_B (4u << 20)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

bool forge_url_is_loopback_http(const char *url)
{
	bool ok = false;
	CURLU *u = curl_url();
	if (!u)
		return false;
	char *scheme = NULL, *host = NULL;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		ok = strcasecmp(scheme, "http") == 0 &&
		     (strcmp(host, "127.0.0.1") == 0 || strcasecmp(host, "localhost") == 0 ||
		      strcmp(host, "[::1]") == 0);
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct forge_response *r = ctx;
	size_t len = size * n;
	if (r->body_len + len > BODY_MAX_B)
		return len; /* keep the start; an answer this long is not ours */
	char *b = realloc(r->body, r->body_len + len + 1);
	if (!b)
		return 0; /* makes curl fail with a write error */
	memcpy(b + r->body_len, data, len);
	r->body = b;
	r->body_len += len;
	b[r->body_len] = 0;
	return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	struct forge_response *r = ctx;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	if (len > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
		char v[32];
		size_t vl = len - (sizeof name - 1);
		if (vl >= sizeof v)
			vl = sizeof v - 1;
		memcpy(v, data + sizeof name - 1, vl);
		v[vl] = 0;
		char *end;
		long s = strtol(v, &end, 10);
		/* seconds only; an HTTP date is treated as absent */
		if (end != v && s >= 0)
			r->retry_after_s = s;
	}
	return len;
}

void forge_response_finish(struct forge_response *r)
{
	if (!r)
		return;
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
}

/* The request's headers: the token, JSON in and out, no 100-continue.
 * *auth (the token's line) is the caller's to wipe and free, also on
 * failure.  0 or -ENOMEM. */
static int headers(const char *token, bool json, struct curl_slist **out, char **auth,
                   size_t *alen)
{
	*alen = strlen("Authorization: token ") + strlen(token) + 1;
	*auth = malloc(*alen);
	if (!*auth)
		return -ENOMEM;
	snprintf(*auth, *alen, "Authorization: token %s", token);
	const char *lines[] = { *auth, "Accept: application/json", "Expect:",
		                json ? "Content-Type: application/json" : NULL };
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (!lines[i])
			continue;
		struct curl_slist *t = curl_slist_append(*out, lines[i]);
		if (!t)
			return -ENOMEM;
		*out = t;
	}
	return 0;
}

/* What every request does: http(s) only, no redirect, TLS checked, no
 * proxy for the local host, the timeout, the answer into out. */
static void set_options(CURL *c, const char *url, struct curl_slist *h, int timeout_s,
                        char *errbuf, struct forge_response *out)
{
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "rxdeck/" RXDECK_VERSION);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)timeout_s);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
}

/* The body: one file as multipart/form-data, the JSON, or none (GET).
 * *mime is the caller's to free.  0 or -ENOMEM. */
static int set_body(CURL *c, const char *method, const char *json, const struct forge_part *part,
                    curl_mime **mime)
{
	if (part) {
		curl_mimepart *mp;
		if (!(*mime = curl_mime_init(c)) || !(mp = curl_mime_addpart(*mime)) ||
		    curl_mime_name(mp, part->field) != CURLE_OK ||
		    curl_mime_filename(mp, part->filename) != CURLE_OK ||
		    curl_mime_type(mp, part->type) != CURLE_OK ||
		    curl_mime_data(mp, part->data, part->len) != CURLE_OK)
			return -ENOMEM;
		curl_easy_setopt(c, CURLOPT_MIMEPOST, *mime);
	} else if (strcmp(method, "GET") != 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, json ? json : "");
		if (strcmp(method, "POST") != 0)
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
	return 0;
}

/* A failed transfer as a negative errno. */
static int transfer_errno(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT: return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT: return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST: return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY: return -ENOMEM;
	default: return -EIO;
	}
}

/* One request: a JSON body (json), a multipart/form-data body of one file
 * (part), or none. */
static int perform(const char *method, const char *url, const char *token, const char *json,
                   const struct forge_part *part, int timeout_s, struct forge_response *out)
{
	pthread_once(&curl_once, curl_init);
	*out = (struct forge_response){ .retry_after_s = -1 };
	if (curl_init_rc != CURLE_OK) {
		snprintf(out->error, sizeof out->error, "cannot start libcurl: %s",
		         curl_easy_strerror(curl_init_rc));
		return -EIO;
	}
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(out->error, sizeof out->error, "cannot start libcurl: out of memory");
		return -ENOMEM;
	}
	struct curl_slist *h = NULL;
	curl_mime *mime = NULL;
	char *auth = NULL;
	size_t alen = 0;
	char errbuf[CURL_ERROR_SIZE] = "";
	int err = headers(token, json != NULL, &h, &auth, &alen);
	if (err)
		goto out;
	set_options(c, url, h, timeout_s, errbuf, out);
	if ((err = set_body(c, method, json, part, &mime)))
		goto out;
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		snprintf(out->error, sizeof out->error, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
		err = transfer_errno(rc);
		forge_response_finish(out);
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
	if (!out->body) {
		out->body = calloc(1, 1);
		if (!out->body)
			err = -ENOMEM;
	}
out:
	if (auth) {
		explicit_bzero(auth, alen);
		free(auth);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	curl_mime_free(mime);
	return err;
}

int forge_http(const char *method, const char *url, const char *token, const char *json,
               int timeout_s, struct forge_response *out)
{
	return perform(method, url, token, json, NULL, timeout_s, out);
}

int forge_http_upload(const char *url, const char *token, const struct forge_part *part,
                      int timeout_s, struct forge_response *out)
{
	return perform("POST", url, token, NULL, part, timeout_s, out);
}
