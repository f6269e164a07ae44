/* plan-strv: the plan's string lists (struct plan_strv): argv and env
 * lists built a string at a time, KEY=VALUE look-up and replacement, and
 * splitting a value into shell-like words.  What the lists hold is the
 * parsers'. */
#include "plan.h"
#include "plan-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int plan_strv_push(struct plan_strv *l, const char *s)
{
	char *copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	char **v = realloc(l->v, (l->n + 2) * sizeof *v);
	if (!v) {
		free(copy);
		return -ENOMEM;
	}
	v[l->n++] = copy;
	v[l->n] = NULL;
	l->v = v;
	return 0;
}

void plan_strv_finish(struct plan_strv *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const char *plan_strv_getenv(const struct plan_strv *l, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = l->n; i-- > 0;)
		if (strncmp(l->v[i], key, k) == 0 && l->v[i][k] == '=')
			return l->v[i] + k + 1;
	return NULL;
}

char *plan_strv_join(const struct plan_strv *l, const char *sep)
{
	size_t len = 1, sep_len = strlen(sep);
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + sep_len;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t at = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (i) {
			memcpy(s + at, sep, sep_len);
			at += sep_len;
		}
		size_t n = strlen(l->v[i]);
		memcpy(s + at, l->v[i], n);
		at += n;
	}
	s[at] = '\0';
	return s;
}

int plan_strv_setenv(struct plan_strv *l, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || !plan_env_key_valid(kv, (size_t)(eq - kv)))
		return -EINVAL;
	size_t k = (size_t)(eq - kv);
	for (size_t i = 0; i < l->n; i++) {
		if (strncmp(l->v[i], kv, k) == 0 && l->v[i][k] == '=') {
			char *copy = strdup(kv);
			if (!copy)
				return -ENOMEM;
			free(l->v[i]);
			l->v[i] = copy;
			return 0;
		}
	}
	return plan_strv_push(l, kv);
}

int plan_strv_copy(struct plan_strv *dst, const struct plan_strv *src)
{
	struct plan_strv n = { 0 };
	for (size_t i = 0; i < src->n; i++) {
		if (plan_strv_push(&n, src->v[i]) < 0) {
			plan_strv_finish(&n);
			return -ENOMEM;
		}
	}
	plan_strv_finish(dst);
	*dst = n;
	return 0;
}

int plan_split_words(const char *s, struct plan_strv *out, size_t *bad_column)
{
	size_t len = strlen(s);
	char *word = malloc(len + 1);
	if (!word)
		return -ENOMEM;
	struct plan_strv words = { 0 };
	size_t i = 0;
	int rc = 0;
	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len)
			break;
		size_t n = 0;
		while (i < len && s[i] != ' ' && s[i] != '\t') {
			char q = s[i];
			if (q == '\'' || q == '"') {
				size_t open = i++;
				for (;;) {
					if (i >= len) {
						if (bad_column)
							*bad_column = open;
						rc = -EINVAL;
						goto out;
					}
					if (s[i] == q) {
						i++;
						break;
					}
					if (q == '"' && s[i] == '\\' && i + 1 < len &&
					    (s[i + 1] == '"' || s[i + 1] == '\\'))
						i++;
					word[n++] = s[i++];
				}
			} else if (q == '\\') {
				if (i + 1 >= len) {
					if (bad_column)
						*bad_column = i;
					rc = -EINVAL;
					goto out;
				}
				word[n++] = s[i + 1];
				i += 2;
			} else {
				word[n++] = s[i++];
			}
		}
		word[n] = 0;
		if ((rc = plan_strv_push(&words, word)) < 0)
			goto out;
	}
	for (size_t k = 0; k < words.n; k++) {
		if ((rc = plan_strv_push(out, words.v[k])) < 0) {
			/* undo the partial append */
			while (out->n > 0 && k-- > 0) {
				free(out->v[--out->n]);
				out->v[out->n] = NULL;
			}
			goto out;
		}
	}
out:
	plan_strv_finish(&words);
	free(word);
	return rc;
}

bool plan_strv_contains(const struct plan_strv *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}
