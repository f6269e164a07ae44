/* fuzz-plan: the plan parser and the env profile parser over arbitrary
 * text.  A plan that parses must be consistent (arms, order, builds) and
 * its canonical form must parse back and write the same bytes; a plan that
 * does not parse must have reported an error with a place. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_error(void *ctx, const struct util_diag *e)
{
	if (e->line < 0 || e->column < 0 || (e->line > 0 && e->column == 0) ||
	    (e->line == 0 && e->column != 0) || !e->message[0])
		abort();
	(*(int *)ctx)++;
}

static char *write_plan(const struct plan *p, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	*rc = plan_write(p, f);
	fclose(f);
	return buf;
}

static void check_plan(const struct plan *p)
{
	if (p->n_arms < 1 || p->n_builds < 1)
		abort();
	const char *o = plan_order(p);
	if (!*o)
		abort();
	for (; *o; o++)
		if (!plan_arm_find(p, *o))
			abort();
	for (size_t i = 0; i < p->n_arms; i++)
		if (!plan_arm_build(p, &p->arms[i]) || !strchr(plan_order(p), p->arms[i].letter))
			abort();
	if (p->rounds && p->until)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	int errors = 0;
	struct plan_parse_options opt = { .on_error = count_error, .error_ctx = &errors };
	struct plan *p = NULL;
	struct util_diag first;
	int rc = plan_parse("fuzz.ini", text, size, &opt, &p, &first);
	if (rc == 0) {
		if (errors != 0 || !p)
			abort();
		check_plan(p);
		int wrc;
		char *once = write_plan(p, &wrc);
		if (wrc == 0) {
			struct plan *q = NULL;
			if (plan_parse("again.ini", once, strlen(once), NULL, &q, NULL) != 0)
				abort();
			check_plan(q);
			char *twice = write_plan(q, &wrc);
			if (wrc != 0 || strcmp(once, twice) != 0)
				abort();
			free(twice);
			plan_free(q);
		} else if (wrc != -EINVAL) {
			abort();
		}
		free(once);
		plan_free(p);
	} else if (rc == -EINVAL && (errors == 0 || first.message[0] == 0)) {
		abort();
	}

	errors = 0;
	struct plan_strv env = { 0 };
	rc = plan_env_parse("fuzz.env", text, size, &opt, &env, &first);
	if (rc == 0) {
		for (size_t i = 0; i < env.n; i++) {
			const char *eq = strchr(env.v[i], '=');
			if (!eq || !plan_env_key_valid(env.v[i], (size_t)(eq - env.v[i])))
				abort();
		}
		plan_strv_finish(&env);
	} else if (rc == -EINVAL && errors == 0) {
		abort();
	}
	return 0;
}
