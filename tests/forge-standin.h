/* A forge stand-in for the forge tests: a small HTTP/1.1 server on
 * 127.0.0.1 (an ephemeral port) in a thread of the test.
 *
 * It keeps issue comments like Forgejo's API does (POST .../issues/N/comments
 * creates one and answers 201 with its id, PATCH .../issues/comments/ID
 * edits one, GET .../issues/N/comments lists them), records every request
 * (method, path, Authorization, Content-Type, body), and answers POST and
 * PATCH requests from a script first: a status with an optional Retry-After,
 * a hang (never answers), or "act, then answer 500" (the comment is made
 * but the answer is lost), or "act, then answer with a body that is not
 * JSON".  GET requests always act.  POST
 * .../issues/comments/ID/assets?name=N (an attachment upload) answers 201
 * with the asset and its browser_download_url, .../attachments/UUID on the
 * stand-in, for a comment it has; asset_status makes it answer that status
 * instead (404: a forge without comment assets).  GET .../comments/ID/assets
 * lists a comment's assets, DELETE .../comments/ID/assets/AID removes one.
 */
#ifndef RXDECK_FORGE_STANDIN_H
#define RXDECK_FORGE_STANDIN_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

enum standin_act {
	STANDIN_ACT = 0,        /* behave like the forge */
	STANDIN_STATUS,         /* answer `status` with an error body */
	STANDIN_HANG,           /* read the request, never answer */
	STANDIN_ACT_THEN_500,   /* do it, but answer 500 */
	STANDIN_ACT_THEN_GARBAGE, /* do it, answer its status with a body that is not JSON */
};

struct standin_step {
	enum standin_act act;
	int status;
	int retry_after_s;      /* > 0: send Retry-After */
};

struct standin_request {
	char method[16];
	char path[512];
	char auth[512];
	char content_type[128];
	char *body;
	size_t body_len;    /* bytes of body (an upload's may hold NULs) */
};

struct standin_comment {
	long long id;
	long long issue;
	char *body;
};

#define STANDIN_MAX 64

struct standin {
	int fd;
	int port;
	int stop[2];
	pthread_t thread;
	pthread_mutex_t mu;
	struct standin_step script[STANDIN_MAX];
	size_t n_script, next_step;
	struct standin_request req[STANDIN_MAX];
	size_t n_req;
	struct standin_comment comments[STANDIN_MAX];
	size_t n_comments;
	long long next_id;
	int asset_status;       /* 0: act; else answer every asset upload with it */
	size_t n_assets;        /* asset uploads answered 201 */
	struct standin_asset {
		long long id, comment;
		char name[128];
		bool deleted;
	} assets[STANDIN_MAX];
};

static inline void standin_script(struct standin *s, enum standin_act act, int status,
                                  int retry_after_s)
{
	pthread_mutex_lock(&s->mu);
	s->script[s->n_script++] = (struct standin_step){ act, status, retry_after_s };
	pthread_mutex_unlock(&s->mu);
}

/* Adds a comment as if someone had posted it. */
static inline long long standin_add_comment(struct standin *s, long long issue, const char *body)
{
	pthread_mutex_lock(&s->mu);
	long long id = s->next_id++;
	s->comments[s->n_comments++] = (struct standin_comment){ id, issue, strdup(body) };
	pthread_mutex_unlock(&s->mu);
	return id;
}

static inline void standin_send(int c, int status, const char *body, int retry_after_s)
{
	char head[512];
	const char *reason = status == 200 ? "OK" : status == 201 ? "Created"
	                   : status == 401 ? "Unauthorized" : status == 403 ? "Forbidden"
	                   : status == 404 ? "Not Found" : status == 429 ? "Too Many Requests"
	                   : status == 500 ? "Internal Server Error" : "Status";
	int n = snprintf(head, sizeof head,
	                 "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	                 "Content-Length: %zu\r\nConnection: close\r\n", status, reason, strlen(body));
	if (retry_after_s > 0)
		n += snprintf(head + n, sizeof head - (size_t)n, "Retry-After: %d\r\n", retry_after_s);
	n += snprintf(head + n, sizeof head - (size_t)n, "\r\n");
	(void)!write(c, head, (size_t)n);
	(void)!write(c, body, strlen(body));
}

static inline char *standin_comment_json(const struct standin_comment *c)
{
	json_t *j = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)c->id, "body", c->body,
	                      "html_url", "http://127.0.0.1/owner/name/issues/1");
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

/* Acts like the forge on one request; returns the answer's status and body. */
static inline int standin_act(struct standin *s, const struct standin_request *r, char **body)
{
	long long issue, id;
	char tail[64];
	if (sscanf(r->path, "/api/v1/repos/owner/name/issues/%lld/%63s", &issue, tail) == 2 &&
	    strcmp(tail, "comments") == 0) {
		if (strcmp(r->method, "GET") == 0) {
			json_t *arr = json_array();
			for (size_t i = 0; i < s->n_comments; i++)
				if (s->comments[i].issue == issue)
					json_array_append_new(arr, json_pack("{s:I, s:s}", "id",
					                                     (json_int_t)s->comments[i].id,
					                                     "body", s->comments[i].body));
			*body = json_dumps(arr, JSON_COMPACT);
			json_decref(arr);
			return 200;
		}
		if (strcmp(r->method, "POST") == 0) {
			json_t *j = json_loads(r->body, 0, NULL);
			const char *b = json_string_value(json_object_get(j, "body"));
			if (!b) {
				json_decref(j);
				*body = strdup("{\"message\":\"body missing\"}");
				return 422;
			}
			struct standin_comment *c = &s->comments[s->n_comments++];
			*c = (struct standin_comment){ s->next_id++, issue, strdup(b) };
			json_decref(j);
			*body = standin_comment_json(c);
			return 201;
		}
	}
	long long aid;
	if (sscanf(r->path, "/api/v1/repos/owner/name/issues/comments/%lld/assets/%lld", &id, &aid) == 2 &&
	    strcmp(r->method, "DELETE") == 0) {
		for (size_t i = 0; i < s->n_assets; i++)
			if (s->assets[i].id == aid && s->assets[i].comment == id && !s->assets[i].deleted) {
				s->assets[i].deleted = true;
				*body = strdup("");
				return 204;
			}
	}
	if (sscanf(r->path, "/api/v1/repos/owner/name/issues/comments/%lld/%63[^?]", &id, tail) == 2 &&
	    strcmp(tail, "assets") == 0 && strcmp(r->method, "GET") == 0) {
		json_t *arr = json_array();
		for (size_t i = 0; i < s->n_assets; i++)
			if (s->assets[i].comment == id && !s->assets[i].deleted)
				json_array_append_new(arr, json_pack("{s:I, s:s}", "id",
				                                     (json_int_t)s->assets[i].id, "name",
				                                     s->assets[i].name));
		*body = json_dumps(arr, JSON_COMPACT);
		json_decref(arr);
		return 200;
	}
	if (sscanf(r->path, "/api/v1/repos/owner/name/issues/comments/%lld/%63[^?]", &id, tail) == 2 &&
	    strcmp(tail, "assets") == 0 && strcmp(r->method, "POST") == 0) {
		if (s->asset_status) {
			*body = strdup("{\"message\":\"no assets here\"}");
			return s->asset_status;
		}
		const char *q = strstr(r->path, "?name=");
		for (size_t i = 0; i < s->n_comments; i++) {
			if (s->comments[i].id != id)
				continue;
			char url[128];
			aid = 5001 + (long long)s->n_assets;
			s->assets[s->n_assets++] = (struct standin_asset){ .id = aid, .comment = id };
			snprintf(s->assets[s->n_assets - 1].name, sizeof s->assets[0].name, "%s",
			         q ? q + 6 : "");
			snprintf(url, sizeof url, "http://127.0.0.1/attachments/uuid-%lld", aid);
			json_t *j = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)aid, "name",
			                      q ? q + 6 : "", "uuid", url + 29, "browser_download_url", url);
			*body = json_dumps(j, JSON_COMPACT);
			json_decref(j);
			return 201;
		}
	}
	if (sscanf(r->path, "/api/v1/repos/owner/name/issues/comments/%lld", &id) == 1 &&
	    strcmp(r->method, "PATCH") == 0) {
		for (size_t i = 0; i < s->n_comments; i++) {
			if (s->comments[i].id != id)
				continue;
			json_t *j = json_loads(r->body, 0, NULL);
			const char *b = json_string_value(json_object_get(j, "body"));
			if (b) {
				free(s->comments[i].body);
				s->comments[i].body = strdup(b);
			}
			json_decref(j);
			*body = standin_comment_json(&s->comments[i]);
			return 200;
		}
	}
	*body = strdup("{\"message\":\"not found\"}");
	return 404;
}

static inline void standin_header(const char *head, const char *name, char *out, size_t size)
{
	out[0] = 0;
	size_t nl = strlen(name);
	for (const char *p = head; p && *p; p = strstr(p, "\r\n"), p = p ? p + 2 : NULL) {
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1;
			while (*v == ' ')
				v++;
			size_t len = strcspn(v, "\r\n");
			snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), v);
			return;
		}
	}
}

static inline void standin_serve(struct standin *s, int c)
{
	char *buf = malloc(1 << 20);
	size_t len = 0;
	char *end = NULL;
	while (!end && len < (1 << 20) - 1) {
		ssize_t n = read(c, buf + len, (1 << 20) - 1 - len);
		if (n <= 0)
			goto out;
		len += (size_t)n;
		buf[len] = 0;
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end)
		goto out;
	*end = 0;
	struct standin_request r = { 0 };
	sscanf(buf, "%15s %511s", r.method, r.path);
	standin_header(buf, "Authorization", r.auth, sizeof r.auth);
	standin_header(buf, "Content-Type", r.content_type, sizeof r.content_type);
	char cl[32];
	standin_header(buf, "Content-Length", cl, sizeof cl);
	size_t want = (size_t)atol(cl);
	size_t have = len - (size_t)(end + 4 - buf);
	while (have < want) {
		ssize_t n = read(c, buf + len, (1 << 20) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		have += (size_t)n;
	}
	buf[len] = 0;
	r.body = malloc(have + 1);
	if (r.body) {
		memcpy(r.body, end + 4, have);
		r.body[have] = 0;
		r.body_len = have;
	}

	pthread_mutex_lock(&s->mu);
	if (s->n_req < STANDIN_MAX)
		s->req[s->n_req++] = r;
	struct standin_step step = { STANDIN_ACT, 0, 0 };
	if (strcmp(r.method, "GET") != 0 && s->next_step < s->n_script)
		step = s->script[s->next_step++];
	char *body = NULL;
	int status;
	switch (step.act) {
	case STANDIN_STATUS:
		status = step.status;
		body = strdup("{\"message\":\"scripted answer\"}");
		break;
	case STANDIN_HANG:
		pthread_mutex_unlock(&s->mu);
		{
			/* until the client gives up or the test ends */
			struct pollfd p[2] = { { c, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
			while (poll(p, 2, -1) > 0) {
				if (p[1].revents)
					break;
				char tmp[256];
				if (read(c, tmp, sizeof tmp) <= 0)
					break;
			}
		}
		goto out;
	case STANDIN_ACT_THEN_500:
		status = standin_act(s, &r, &body);
		free(body);
		status = 500;
		body = strdup("{\"message\":\"lost\"}");
		break;
	case STANDIN_ACT_THEN_GARBAGE:
		status = standin_act(s, &r, &body);
		free(body);
		body = strdup("<html>Created</html>");
		break;
	default:
		status = standin_act(s, &r, &body);
	}
	pthread_mutex_unlock(&s->mu);
	standin_send(c, status, body, step.retry_after_s);
	free(body);
out:
	free(buf);
	close(c);
}

static inline void *standin_main(void *arg)
{
	struct standin *s = arg;
	for (;;) {
		struct pollfd p[2] = { { s->fd, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (p[0].revents) {
			int c = accept(s->fd, NULL, NULL);
			if (c >= 0)
				standin_serve(s, c);
		}
	}
	return NULL;
}

/* Starts the stand-in; 0 or -errno. */
static inline int standin_start(struct standin *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	s->next_id = 1001;
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	if (bind(s->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->fd, 16) != 0 ||
	    getsockname(s->fd, (struct sockaddr *)&a, &al) != 0 || pipe(s->stop) != 0) {
		int e = -errno;
		close(s->fd);
		return e;
	}
	s->port = ntohs(a.sin_port);
	if (pthread_create(&s->thread, NULL, standin_main, s) != 0) {
		close(s->fd);
		return -EAGAIN;
	}
	return 0;
}

static inline void standin_stop(struct standin *s)
{
	(void)!write(s->stop[1], "x", 1);
	pthread_join(s->thread, NULL);
	close(s->fd);
	close(s->stop[0]);
	close(s->stop[1]);
	for (size_t i = 0; i < s->n_req; i++)
		free(s->req[i].body);
	for (size_t i = 0; i < s->n_comments; i++)
		free(s->comments[i].body);
	pthread_mutex_destroy(&s->mu);
}

#endif
