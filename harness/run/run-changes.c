/* run-changes: what changed under a campaign between its start and a resume.
 *
 * It owns the comparison a resume makes before it plays anything: the
 * route file's text against the text the campaign stored when it started,
 * and each build's binary (its SHA-256) against the build row's, written as
 * one line per difference for the refusal and for the campaign's notes
 * when the user accepts them (--accept-changes).  It does not decide what
 * to do about a difference (run-campaign.c).
 */
#include "run-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

static void add_line(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_line(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	if (len + 1 >= size)
		return;
	if (len) {
		buf[len++] = '\n';
		buf[len] = 0;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* text's first line into out, cut to fit with "..." */
static void copy_line(const char *text, char *out, size_t size)
{
	size_t len = strcspn(text, "\n");
	if (len >= size) {
		memcpy(out, text, size - 4);
		memcpy(out + size - 4, "...", 4);
	} else {
		memcpy(out, text, len);
		out[len] = 0;
	}
}

int run_route_diff(const char *then, const char *now, char *out, size_t size)
{
	if (strcmp(then, now) == 0)
		return 0;
	int line = 1;
	const char *a = then, *b = now;
	for (;;) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
		if (la != lb || memcmp(a, b, la) != 0 || !a[la] || !b[lb])
			break;
		a += la + 1;
		b += lb + 1;
		line++;
	}
	char was[96], is[96];
	copy_line(a, was, sizeof was);
	copy_line(b, is, sizeof is);
	if (!*a)
		snprintf(out, size, "line %d: added '%s'", line, is);
	else if (!*b)
		snprintf(out, size, "line %d: removed '%s'", line, was);
	else
		snprintf(out, size, "line %d: was '%s', now '%s'", line, was, is);
	return 1;
}

int run_campaign_changes(const char *route_path, const char *route_then,
                         const struct plan *p, const struct db_build *builds, size_t n_builds,
                         char *out, size_t size)
{
	out[0] = 0;
	int n = 0;
	char *now = NULL;
	size_t len;
	struct collect_error ce;
	int rc = collect_read_file("route", route_path, &now, &len, &ce);
	if (rc < 0) {
		add_line(out, size, "route '%s': %s", route_path, ce.msg);
		n++;
	} else if (route_then) {
		char d[256];
		if (run_route_diff(route_then, now, d, sizeof d)) {
			add_line(out, size, "route '%s' changed since the campaign started: %s", route_path, d);
			n++;
		}
	}
	free(now);
	for (size_t i = 0; i < p->n_builds; i++) {
		const struct plan_build *pb = &p->builds[i];
		const struct db_build *b = NULL;
		for (size_t k = 0; k < n_builds && !b; k++)
			if (strcmp(builds[k].label, pb->name) == 0)
				b = &builds[k];
		if (!b || !b->sha256 || !pb->argv.n)
			continue;   /* nothing recorded to compare with */
		char sha[65];
		rc = run_sha256_file(pb->argv.v[0], sha);
		if (rc < 0) {
			add_line(out, size, "build '%s': cannot read '%s': %s", pb->name, pb->argv.v[0],
			         strerror(-rc));
			n++;
		} else if (strcmp(sha, b->sha256) != 0) {
			add_line(out, size, "build '%s': '%s' changed since the campaign started: sha256 "
			         "%.12s..., was %.12s...", pb->name, pb->argv.v[0], sha, b->sha256);
			n++;
		}
	}
	return n;
}
