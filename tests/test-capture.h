/* test-capture: a test's stdout and stderr caught into buffers while code
 * under test runs, for the tests of commands and their messages.  Header
 * only: each test program gets its own copy of these few functions. */
#ifndef RXDECK_TEST_CAPTURE_H
#define RXDECK_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct test_capture {
	FILE *out_file, *err_file;
	int saved_out, saved_err;
	char *out, *err; /* what was written, NUL-terminated (malloc'd) */
};

/* Sends fds 1 and 2 into temporary files until test_capture_end(). */
static inline void test_capture_begin(struct test_capture *c)
{
	fflush(stdout);
	fflush(stderr);
	c->out_file = tmpfile();
	c->err_file = tmpfile();
	c->saved_out = dup(1);
	c->saved_err = dup(2);
	dup2(fileno(c->out_file), 1);
	dup2(fileno(c->err_file), 2);
	c->out = c->err = NULL;
}

static inline char *test_capture_slurp(FILE *f)
{
	long n = ftell(f);
	char *s = malloc(n > 0 ? (size_t)n + 1 : 1);
	rewind(f);
	size_t got = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
	s[got] = '\0';
	fclose(f);
	return s;
}

/* Puts fds 1 and 2 back and fills c->out and c->err. */
static inline void test_capture_end(struct test_capture *c)
{
	fflush(stdout);
	fflush(stderr);
	dup2(c->saved_out, 1);
	dup2(c->saved_err, 2);
	close(c->saved_out);
	close(c->saved_err);
	fseek(c->out_file, 0, SEEK_END);
	fseek(c->err_file, 0, SEEK_END);
	c->out = test_capture_slurp(c->out_file);
	c->err = test_capture_slurp(c->err_file);
}

/* Frees what test_capture_end() filled in. */
static inline void test_capture_free(struct test_capture *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

#endif
