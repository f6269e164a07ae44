/* test-plan-write: the canonical form parses back to the same plan, and
 * writing it again gives the same bytes; values that cannot be written are
 * refused rather than written wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

static char *write_plan(const struct plan *p, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = plan_write(p, f);
	fclose(f);
	return buf;
}

static void same_strv(const struct plan_strv *a, const struct plan_strv *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_string_equal(a->v[i], b->v[i]);
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_plan(const struct plan *a, const struct plan *b)
{
	same_str(a->name, b->name);
	same_str(a->notes, b->notes);
	same_str(a->route, b->route);
	same_str(a->profile, b->profile);
	same_str(a->collect, b->collect);
	assert_string_equal(plan_order(a), plan_order(b));
	assert_int_equal(plan_rounds(a), plan_rounds(b));
	same_str(a->until, b->until);
	assert_int_equal(a->warmup, b->warmup);
	assert_true(a->watchdog_s == b->watchdog_s);
	assert_true(a->start_timeout_s == b->start_timeout_s);
	assert_true(a->start_delay_s == b->start_delay_s);
	assert_true(a->hard_limit_s == b->hard_limit_s);
	assert_true(a->stop_timeout_s == b->stop_timeout_s);
	same_strv(&a->inherit, &b->inherit);
	assert_int_equal(a->pad, b->pad);
	assert_int_equal(a->frames, b->frames);
	assert_memory_equal(&a->void_rules, &b->void_rules, sizeof a->void_rules);
	assert_int_equal(a->max_rounds, b->max_rounds);
	same_strv(&a->verdict.primary, &b->verdict.primary);
	assert_int_equal(a->verdict.n_min_effects, b->verdict.n_min_effects);
	for (size_t i = 0; i < a->verdict.n_min_effects; i++) {
		assert_string_equal(a->verdict.min_effects[i].key, b->verdict.min_effects[i].key);
		assert_true(a->verdict.min_effects[i].pct == b->verdict.min_effects[i].pct);
	}
	assert_int_equal(a->verdict.time_terms, b->verdict.time_terms);
	assert_int_equal(a->has_profile_env, b->has_profile_env);
	same_strv(&a->profile_env, &b->profile_env);
	assert_int_equal(a->has_inherited, b->has_inherited);
	same_strv(&a->inherited_env, &b->inherited_env);
	assert_int_equal(a->n_builds, b->n_builds);
	for (size_t i = 0; i < a->n_builds; i++) {
		assert_string_equal(a->builds[i].name, b->builds[i].name);
		same_strv(&a->builds[i].argv, &b->builds[i].argv);
		same_str(a->builds[i].commit, b->builds[i].commit);
		same_str(a->builds[i].workdir, b->builds[i].workdir);
		same_str(a->builds[i].pad_option, b->builds[i].pad_option);
		same_strv(&a->builds[i].launcher, &b->builds[i].launcher);
	}
	assert_int_equal(a->n_arms, b->n_arms);
	for (size_t i = 0; i < a->n_arms; i++) {
		assert_int_equal(a->arms[i].letter, b->arms[i].letter);
		same_str(a->arms[i].label, b->arms[i].label);
		same_str(a->arms[i].build, b->arms[i].build);
		same_strv(&a->arms[i].env, &b->arms[i].env);
		same_strv(&a->arms[i].args, &b->arms[i].args);
	}
}

static void round_trip(const char *text)
{
	struct plan *p = NULL, *q = NULL;
	struct util_diag e;
	if (plan_parse("a.ini", text, strlen(text), NULL, &p, &e) != 0)
		fail_msg("%s:%d:%d: %s", e.file, e.line, e.column, e.message);
	int rc;
	char *once = write_plan(p, &rc);
	assert_int_equal(rc, 0);
	if (plan_parse("b.ini", once, strlen(once), NULL, &q, &e) != 0)
		fail_msg("written form does not parse: %d:%d: %s\n%s", e.line, e.column, e.message, once);
	same_plan(p, q);
	char *twice = write_plan(q, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(once, twice);
	free(once);
	free(twice);
	plan_free(p);
	plan_free(q);
}

static void test_plan_write__round_trip(void **state)
{
	(void)state;
	round_trip(plan_default_text());
	round_trip("[arm A]\n[arm B]\n");
	round_trip("[campaign]\npad = none\n[build g]\ncommand = vkcube --c 100\nlauncher = mangohud\n"
	           "[arm A]\nbuild = g\n");
	round_trip("[campaign]\nmax_rounds = 9\nuntil = 07:00\n[arm A]\n[arm B]\n");
	round_trip("[campaign]\n"
	           "name = night\n"
	           "notes = one\n"
	           "   two ; not part of it\n"
	           "until = 2031-05-06 07:00\n"
	           "warmup = off\n"
	           "watchdog = 2.5s\n"
	           "hard_limit = 1h\n"
	           "inherit = RX_VK_DEVICE DISPLAY\n"
	           "pad = uinput\n"
	           "frames = mangohud\n"
	           "[void]\n"
	           "shot_luma = 0.1\n"
	           "temp_max_c = 90\n"
	           "min_coverage = off\n"
	           "[verdict]\n"
	           "primary = p99_ms real_fps p50_ms\n"
	           "p50_ms = 1.5 %\n"
	           "time_terms = drop-orthogonal\n"
	           "[profile]\n"
	           "env = RX_VK_LOG_READBACK_WAITS=1\n"
	           "[inherited]\n"
	           "[build game]\n"
	           "command = \"/opt/my game/run\" -x 'a;b' \\#e \"\"\n"
	           "workdir = /opt/my game\n"
	           "launcher = gamescope -w 1280 -h 720 --\n"
	           "pad_option = --pad\n"
	           "[build demo]\n"
	           "binary = forest\n"
	           "pad_option = none\n"
	           "[arm Z]\n"
	           "build = demo\n"
	           "label = the only; arm\n"
	           "env = K=v = w\n"
	           "args = --seconds 5 'two words'\n");
}

static void test_plan_write__refuses_what_would_change(void **state)
{
	(void)state;
	struct plan *p = NULL;
	const char *text = "[arm A]\n";
	assert_int_equal(plan_parse("a.ini", text, strlen(text), NULL, &p, NULL), 0);
	/* an inherited value with an inline comment inside, or trailing space */
	p->has_inherited = true;
	assert_int_equal(plan_strv_setenv(&p->inherited_env, "RX_VK_DEVICE=AMD ;x"), 0);
	int rc;
	char *out = write_plan(p, &rc);
	assert_int_equal(rc, -EINVAL);
	free(out);
	assert_int_equal(plan_strv_setenv(&p->inherited_env, "RX_VK_DEVICE=AMD "), 0);
	out = write_plan(p, &rc);
	assert_int_equal(rc, -EINVAL);
	free(out);
	assert_int_equal(plan_strv_setenv(&p->inherited_env, "RX_VK_DEVICE=AMD;x"), 0);
	out = write_plan(p, &rc);
	assert_int_equal(rc, 0);
	free(out);
	plan_free(p);
}

static void test_plan_strv__join(void **state)
{
	(void)state;
	struct plan_strv l = { 0 };
	char *s = plan_strv_join(&l, " ");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(plan_strv_setenv(&l, "A=1"), 0);
	s = plan_strv_join(&l, " ");
	assert_string_equal(s, "A=1");
	free(s);
	assert_int_equal(plan_strv_setenv(&l, "B=two words"), 0);
	s = plan_strv_join(&l, "\n");
	assert_string_equal(s, "A=1\nB=two words");
	free(s);
	plan_strv_finish(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_write__round_trip),
		cmocka_unit_test(test_plan_write__refuses_what_would_change),
		cmocka_unit_test(test_plan_strv__join),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
