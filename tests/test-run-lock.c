/* test-run-lock: a campaign folder's lock (run-lock.c): a second taker is
 * refused with the holder's pid, a holder killed with SIGKILL lets it go, a
 * program the holder starts never keeps it, a released lock is taken again,
 * a harness killed while a child it forked still has the lock (between
 * fork and exec) is waited for and then named as ended, and the record's
 * liveness is decided by pid and boot id. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>

#include "run/run-private.h"
#include "test-run-util.h"

extern char **environ;

static int setup(void **state)
{
	struct tdir *t = calloc(1, sizeof *t);
	tdir_make(t);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tdir *t = *state;
	tdir_remove(t);
	free(t);
	return 0;
}

static void test_lock__second_taker_is_refused_naming_the_holder(void **state)
{
	struct tdir *t = *state;
	struct run_lock *a, *b = NULL;
	char msg[1024] = "";
	if (run_lock_take(t->path, "night", &a, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_int_equal(run_lock_take(t->path, "night", &b, msg, sizeof msg), -EBUSY);
	assert_null(b);
	char want[128];
	snprintf(want, sizeof want, "campaign 'night' is held by the harness with pid %d, since ",
	         (int)getpid());
	if (!strstr(msg, want))
		fail_msg("'%s' does not say '%s'", msg, want);
	run_lock_release(a);
	/* released: taken again */
	if (run_lock_take(t->path, "night", &b, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	run_lock_release(b);
	run_lock_release(NULL);
}

static void test_lock__holder_killed_lets_it_go(void **state)
{
	struct tdir *t = *state;
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct run_lock *l;
		char m[256];
		char ok = run_lock_take(t->path, "night", &l, m, sizeof m) == 0 ? 'y' : 'n';
		if (write(ready[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char ok = 0;
	assert_int_equal(read(ready[0], &ok, 1), 1);
	close(ready[0]);
	assert_int_equal(ok, 'y');
	struct run_lock *l = NULL;
	char msg[1024] = "";
	assert_int_equal(run_lock_take(t->path, "night", &l, msg, sizeof msg), -EBUSY);
	char want[64];
	snprintf(want, sizeof want, "pid %d,", (int)pid);
	if (!strstr(msg, want))
		fail_msg("'%s' does not name pid %d", msg, (int)pid);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* its record is still in the file, but it is dead: the lock is free */
	if (run_lock_take(t->path, "night", &l, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	run_lock_release(l);
}

static void test_lock__started_program_does_not_keep_it(void **state)
{
	struct tdir *t = *state;
	struct run_lock *l;
	char msg[1024] = "";
	if (run_lock_take(t->path, "night", &l, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	/* a game the harness starts: it inherits every descriptor not close-on-exec */
	pid_t game;
	char *argv[] = { "sleep", "30", NULL };
	assert_int_equal(posix_spawnp(&game, "sleep", NULL, NULL, argv, environ), 0);
	run_lock_release(l);
	int rc = run_lock_take(t->path, "night", &l, msg, sizeof msg);
	kill(game, SIGKILL);
	waitpid(game, NULL, 0);
	if (rc != 0)
		fail_msg("the started program kept the lock: %s", msg);
	run_lock_release(l);
}

/* A harness that took the lock and forked a child that never execs (it
 * ends when *go is closed), then died by SIGKILL: its pid, the child still
 * holding the flock. */
static pid_t harness_dead_child_holding(const char *dir, int go[2])
{
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct run_lock *l;
		char m[256];
		char ok = run_lock_take(dir, "night", &l, m, sizeof m) == 0 ? 'y' : 'n';
		pid_t child = fork();
		if (child == 0) {
			/* the shared descriptor, as between fork and exec */
			close(go[1]);
			char c;
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
		if (child < 0)
			ok = 'n';
		if (write(ready[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	char ok = 0;
	assert_int_equal(read(ready[0], &ok, 1), 1);
	close(ready[0]);
	assert_int_equal(ok, 'y');
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void test_lock__dead_harness_child_still_holding_is_named_after_the_wait(void **state)
{
	struct tdir *t = *state;
	int go[2];
	pid_t pid = harness_dead_child_holding(t->path, go);
	struct run_lock *l = NULL;
	char msg[1024] = "";
	assert_int_equal(run_lock_take_within(t->path, "night", 0, &l, msg, sizeof msg), -EBUSY);
	assert_null(l);
	char want[160];
	snprintf(want, sizeof want, "campaign 'night' is held by a process left by the harness with "
	         "pid %d, since ", (int)pid);
	if (!strstr(msg, want) || !strstr(msg, "which has ended"))
		fail_msg("'%s' does not say '%s... which has ended'", msg, want);
	close(go[1]);   /* the child ends (it is init's now): the lock is free once it has */
	if (run_lock_take_within(t->path, "night", RUN_LOCK_ORPHAN_WAIT_MS, &l, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	run_lock_release(l);
}

struct taker {
	const char *dir;
	int rc;
	char msg[1024];
};

static void *take_waiting(void *arg)
{
	struct taker *tk = arg;
	struct run_lock *l = NULL;
	tk->rc = run_lock_take(tk->dir, "night", &l, tk->msg, sizeof tk->msg);
	run_lock_release(l);
	return NULL;
}

static void test_lock__dead_harness_child_is_waited_for(void **state)
{
	struct tdir *t = *state;
	int go[2];
	harness_dead_child_holding(t->path, go);
	/* the default take waits for the child (RUN_LOCK_ORPHAN_WAIT_MS), which
	 * ends once its pipe closes: the take gets the lock, with no refusal */
	struct taker tk = { .dir = t->path };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, take_waiting, &tk), 0);
	close(go[1]);
	assert_int_equal(pthread_join(th, NULL), 0);
	if (tk.rc != 0)
		fail_msg("refused instead of waiting for the dead harness's child: %s", tk.msg);
}

static void test_lock__holder_alive_by_pid_and_boot(void **state)
{
	(void)state;
	char boot[64];
	assert_int_equal(run_boot_id(boot), 0);
	char text[256];
	snprintf(text, sizeof text, "pid %d\nboot %s\nhost here\nsince 1700000000000\n", (int)getpid(),
	         boot);
	struct run_lock_holder h;
	assert_int_equal(run_lock_parse(text, &h), 0);
	assert_int_equal(h.pid, getpid());
	assert_string_equal(h.host, "here");
	assert_int_equal(h.since_unix_ms, 1700000000000LL);
	assert_true(run_lock_holder_alive(&h));
	/* the same pid on another boot is a dead holder */
	snprintf(h.boot_id, sizeof h.boot_id, "00000000-0000-0000-0000-000000000000");
	assert_false(run_lock_holder_alive(&h));
	/* a pid that has ended, on this boot */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	snprintf(text, sizeof text, "pid %d\nboot %s\n", (int)pid, boot);
	assert_int_equal(run_lock_parse(text, &h), 0);
	assert_false(run_lock_holder_alive(&h));
	/* records without a pid or a boot id are not records */
	assert_int_equal(run_lock_parse("", &h), -EINVAL);
	assert_int_equal(run_lock_parse("boot x\n", &h), -EINVAL);
	assert_int_equal(run_lock_parse("pid -3\nboot x\n", &h), -EINVAL);
	assert_int_equal(run_lock_parse("pid 12\n", &h), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lock__second_taker_is_refused_naming_the_holder,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock__holder_killed_lets_it_go, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock__started_program_does_not_keep_it, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
			test_lock__dead_harness_child_still_holding_is_named_after_the_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock__dead_harness_child_is_waited_for, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_lock__holder_alive_by_pid_and_boot, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
