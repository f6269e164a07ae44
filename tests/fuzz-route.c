/* fuzz-route: the route parser over arbitrary text.  The input may hold
 * several files: lines "--- NAME" start the text of an included file NAME
 * (the first part is the route itself, "fuzz.route"), so includes, their
 * cycles and their errors are fuzzed without touching the disk. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "route/route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct part {
	char name[64];
	const char *text;
	size_t len;
};

struct parts {
	struct part p[8];
	int n;
};

static int read_part(void *ctx, const char *path, char **text, size_t *len)
{
	const struct parts *ps = ctx;
	for (int i = 1; i < ps->n; i++) {
		if (strcmp(ps->p[i].name, path) == 0) {
			*text = malloc(ps->p[i].len + 1);
			if (!*text)
				return -ENOMEM;
			memcpy(*text, ps->p[i].text, ps->p[i].len);
			(*text)[ps->p[i].len] = 0;
			*len = ps->p[i].len;
			return 0;
		}
	}
	return -ENOENT;
}

static void count_error(void *ctx, const struct util_diag *e)
{
	/* every error must name a place or be about the whole file */
	if (e->line < 0 || e->column < 0 || (e->line > 0 && e->column == 0) || !e->message[0])
		abort();
	(*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct parts ps = { .n = 1 };
	strcpy(ps.p[0].name, "fuzz.route");
	ps.p[0].text = text;
	size_t start = 0;
	for (size_t i = 0; i + 4 <= size; i++) {
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "--- ", 4) == 0 && ps.n < 8) {
			ps.p[ps.n - 1].len = i - start;
			const char *nl = memchr(text + i, '\n', size - i);
			size_t end = nl ? (size_t)(nl - text) : size;
			size_t nlen = end - i - 4;
			struct part *p = &ps.p[ps.n++];
			if (nlen >= sizeof p->name)
				nlen = sizeof p->name - 1;
			memcpy(p->name, text + i + 4, nlen);
			p->name[nlen] = 0;
			start = nl ? end + 1 : size;
			p->text = text + start;
			i = start ? start - 1 : 0;
		}
	}
	ps.p[ps.n - 1].len = size - start;

	int errors = 0;
	struct route_parse_options opt = {
		.on_error = count_error, .error_ctx = &errors,
		.read_file = read_part, .read_ctx = &ps,
	};
	struct route *r = NULL;
	struct util_diag first;
	int rc = route_parse("fuzz.route", ps.p[0].text, ps.p[0].len, &opt, &r, &first);
	if (rc == 0) {
		/* a good route: sorted events in range, points inside the duration */
		if (errors != 0 || !r)
			abort();
		size_t n;
		const struct route_event *ev = route_events(r, &n);
		for (size_t i = 0; i < n; i++) {
			if (ev[i].t_ms < 0 || ev[i].t_ms > route_duration_ms(r) ||
			    (i > 0 && ev[i].t_ms < ev[i - 1].t_ms))
				abort();
		}
		int64_t a, b;
		route_window_ms(r, &a, &b);
		if (a < 0 || a >= b || b > route_duration_ms(r))
			abort();
		route_free(r);
	} else if (rc == -EINVAL && errors == 0) {
		abort();
	}
	return 0;
}
