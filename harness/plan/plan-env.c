/* plan-env: the env profile parser (profiles/NAME.env: KEY=VALUE lines,
 * '#' comments), with the same error positions as the plan's, and the rule
 * for a valid env key that both use.  Plans themselves are plan-parse.c's. */
#include "plan.h"
#include "plan-private.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool plan_env_key_valid(const char *key, size_t len)
{
	if (len == 0 || !(isalpha((unsigned char)key[0]) || key[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)key[i]) || key[i] == '_'))
			return false;
	return true;
}

int plan_env_parse(const char *name, const char *text, size_t len,
                   const struct plan_parse_options *opt, struct plan_strv *out,
                   struct util_diag *err)
{
	struct plan_strv list = { 0 };
	struct util_diag first = { 0 };
	int n_errors = 0, line = 0;
	size_t pos = 0;
	char *buf = NULL;
	int rc = 0;
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += nl ? n + 1 : n;
		line++;
		struct util_diag e;
		bool bad = false;
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		size_t end = n;
		while (end > i && isspace((unsigned char)s[end - 1]))
			end--;
		if (i == end || s[i] == '#')
			continue;
		const char *nul = memchr(s, 0, n);
		const char *eq = memchr(s + i, '=', end - i);
		if (nul) {
			plan_diag_set(&e, name, line, (int)(nul - s) + 1, "NUL byte in the profile (is it a text file?)");
			bad = true;
		} else if (!eq) {
			plan_diag_set(&e, name, line, (int)i + 1, "expected KEY=VALUE or a '#' comment");
			bad = true;
		} else if (!plan_env_key_valid(s + i, (size_t)(eq - s - (ptrdiff_t)i))) {
			plan_diag_set(&e, name, line, (int)i + 1,
			               "the name before '=' must be letters, digits and '_', not starting "
			               "with a digit, with no space before '='");
			bad = true;
		} else if (end - i > 4096) {
			plan_diag_set(&e, name, line, (int)i + 1, "line longer than 4096 characters");
			bad = true;
		}
		if (bad) {
			if (n_errors++ == 0)
				first = e;
			if (opt && opt->on_error)
				opt->on_error(opt->error_ctx, &e);
			continue;
		}
		free(buf);
		if (!(buf = strndup(s + i, end - i))) {
			rc = -ENOMEM;
			goto fail;
		}
		if ((rc = plan_strv_setenv(&list, buf)) < 0)
			goto fail;
	}
	free(buf);
	if (n_errors) {
		if (err)
			*err = first;
		plan_strv_finish(&list);
		return -EINVAL;
	}
	plan_strv_finish(out);
	*out = list;
	return 0;
fail:
	free(buf);
	plan_strv_finish(&list);
	return rc;
}

int plan_env_load(const char *path, const struct plan_parse_options *opt, struct plan_strv *out,
                  struct util_diag *err)
{
	char *text;
	size_t len;
	int rc = util_read_file(path, PLAN_MAX_FILE_B, UTIL_READ_REGULAR, &text, &len);
	if (rc < 0) {
		if (err)
			plan_diag_set(err, path, 0, 0, "cannot open env profile '%s': %s", path,
			               rc == -EFBIG ? "larger than 1 MiB, not a profile"
			               : rc == -ENOTSUP ? "not a regular file" : strerror(-rc));
		return rc;
	}
	rc = plan_env_parse(path, text, len, opt, out, err);
	free(text);
	return rc;
}
