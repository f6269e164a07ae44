/* run-env: where a campaign's things are and what environment its game
 * gets.  It owns the data folder ($XDG_DATA_HOME/rxdeck), the search for
 * routes, profiles and programs (the plan's folder, the current folder,
 * the source tree, the installed data folder; the demo game next to
 * rxdeck), the composition of a game's environment (profile, arm,
 * inherited values over a cleaned copy of the harness's own; the list
 * SDL_GAMECONTROLLER_IGNORE_DEVICES appended to, never replaced), and
 * whether uinput can be used.  It starts nothing. */
#include "run.h"
#include "run-private.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RXDECK_SOURCE_ROOT
#define RXDECK_SOURCE_ROOT "."
#endif
#ifndef RXDECK_DATA_DIR
#define RXDECK_DATA_DIR "/usr/local/share/rxdeck"
#endif

int run_errf(char *buf, size_t size, int rc, const char *fmt, ...)
{
	if (buf && size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int run_data_dir(char **out)
{
	const char *x = getenv("XDG_DATA_HOME");
	char *p;
	if (x && x[0] == '/') {
		p = util_path_join(x, "rxdeck");
	} else {
		const char *home = getenv("HOME");
		if (!home || home[0] != '/')
			return -ENOENT;
		p = util_path_join(home, ".local/share/rxdeck");
	}
	if (!p)
		return -ENOMEM;
	*out = p;
	return 0;
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int run_find_data(const char *kind, const char *name, const char *ext, const char *base_dir,
                  char **out)
{
	if (!name || !*name)
		return -ENOENT;
	/* a path: relative to the plan's folder (or the current one) */
	char *p = util_path_join(base_dir, name);
	if (!p)
		return -ENOMEM;
	if (is_file(p)) {
		char *abs = util_path_absolute(p);
		free(p);
		if (!abs)
			return -ENOMEM;
		*out = abs;
		return 0;
	}
	free(p);
	if (strchr(name, '/') && name[0] == '/')
		return -ENOENT;
	/* a name, or a path under the project: RXDECK_DATA_DIR, the current
	 * folder, the XDG data folders (where deck/install.sh puts routes and
	 * profiles: $XDG_DATA_HOME/rxdeck, then each of $XDG_DATA_DIRS), the
	 * build's source tree, the data installed with the build */
	char xdg[16][PATH_MAX];
	size_t n_xdg = 0;
	const char *home = getenv("HOME"), *data_home = getenv("XDG_DATA_HOME");
	if (data_home && data_home[0] == '/')
		snprintf(xdg[n_xdg++], PATH_MAX, "%s/rxdeck", data_home);
	else if (home && *home)
		snprintf(xdg[n_xdg++], PATH_MAX, "%s/.local/share/rxdeck", home);
	const char *dirs = getenv("XDG_DATA_DIRS");
	if (!dirs || !*dirs)
		dirs = "/usr/local/share/:/usr/share/";
	while (*dirs && n_xdg < 16) {
		size_t len = strcspn(dirs, ":");
		if (len > 0 && dirs[0] == '/' && len < PATH_MAX - 8)
			snprintf(xdg[n_xdg++], PATH_MAX, "%.*s/rxdeck", (int)len, dirs);
		dirs += len + (dirs[len] == ':');
	}
	const char *roots[24];
	size_t n_roots = 0;
	roots[n_roots++] = getenv("RXDECK_DATA_DIR");
	roots[n_roots++] = ".";
	for (size_t i = 0; i < n_xdg; i++)
		roots[n_roots++] = xdg[i];
	roots[n_roots++] = RXDECK_SOURCE_ROOT;
	roots[n_roots++] = RXDECK_DATA_DIR;
	for (size_t r = 0; r < n_roots; r++) {
		const char *root = roots[r];
		if (!root || !*root)
			continue;
		for (int form = 0; form < 4; form++) {
			char buf[PATH_MAX];
			int n;
			switch (form) {
			case 0: n = snprintf(buf, sizeof buf, "%s/%s", root, name); break;
			case 1: n = snprintf(buf, sizeof buf, "%s/%s/%s", root, kind, name); break;
			case 2: n = snprintf(buf, sizeof buf, "%s/%s/%s%s", root, kind, name, ext ? ext : ""); break;
			default: n = snprintf(buf, sizeof buf, "%s/%s%s", root, name, ext ? ext : ""); break;
			}
			if (n < 0 || (size_t)n >= sizeof buf || !is_file(buf))
				continue;
			char *abs = util_path_absolute(buf);
			if (!abs)
				return -ENOMEM;
			*out = abs;
			return 0;
		}
	}
	return -ENOENT;
}

static bool is_exec(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static int find_in_path(const char *name, char **out)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char buf[PATH_MAX];
		if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, name) < (int)sizeof buf &&
		    is_exec(buf)) {
			char *abs = util_path_absolute(buf);
			if (!abs)
				return -ENOMEM;
			*out = abs;
			return 0;
		}
		path += n + (colon ? 1 : 0);
	}
	return -ENOENT;
}

int run_find_forest(char **out)
{
	const char *env = getenv("RXDECK_FOREST");
	if (env && *env) {
		if (!is_exec(env))
			return -ENOENT;
		char *abs = util_path_absolute(env);
		if (!abs)
			return -ENOMEM;
		*out = abs;
		return 0;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			const char *rel[] = { "../renderer/forest/rxdeck-forest", "rxdeck-forest",
			                      "../../renderer/forest/rxdeck-forest" };
			for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
				char buf[PATH_MAX];
				if (snprintf(buf, sizeof buf, "%s/%s", self, rel[i]) >= (int)sizeof buf)
					continue;
				if (is_exec(buf)) {
					char *abs = util_path_absolute(buf);
					if (!abs)
						return -ENOMEM;
					*out = abs;
					return 0;
				}
			}
		}
	}
	return find_in_path("rxdeck-forest", out);
}

int run_find_program(const char *prog, const char *base_dir, char **out, char *errmsg,
                     size_t errmsg_size)
{
	if (strcmp(prog, "forest") == 0) {
		int rc = run_find_forest(out);
		if (rc == -ENOENT)
			return run_errf(errmsg, errmsg_size, rc,
			                "cannot find the demo game 'rxdeck-forest' next to rxdeck or in PATH "
			                "(build it, or set RXDECK_FOREST to its path)");
		return rc;
	}
	char *p = NULL;
	if (strchr(prog, '/')) {
		p = util_path_join(base_dir, prog);
		if (!p)
			return -ENOMEM;
	} else {
		int rc = find_in_path(prog, &p);
		if (rc == -ENOENT)
			return run_errf(errmsg, errmsg_size, rc, "cannot find program '%s' in PATH", prog);
		if (rc < 0)
			return rc;
	}
	struct stat st;
	int rc = 0;
	if (stat(p, &st) < 0)
		rc = run_errf(errmsg, errmsg_size, -errno, "cannot run program '%s': %s", p, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		rc = run_errf(errmsg, errmsg_size, -EISDIR, "cannot run program '%s': it is a folder", p);
	else if (!S_ISREG(st.st_mode) || access(p, X_OK) < 0)
		rc = run_errf(errmsg, errmsg_size, -EACCES, "cannot run program '%s': not an executable file", p);
	if (rc < 0) {
		free(p);
		return rc;
	}
	char *abs = util_path_absolute(p);
	free(p);
	if (!abs)
		return -ENOMEM;
	*out = abs;
	return 0;
}

/* ---- environment ------------------------------------------------------------ */

static bool harness_owned(const char *kv)
{
	return strncmp(kv, "RX_", 3) == 0 || strncmp(kv, "RXDECK_", 7) == 0;
}

/* Variables holding a comma-separated list that Steam sets for a game it
 * starts: a layer adds to the list instead of replacing it.  Steam puts
 * its own virtual pads in SDL_GAMECONTROLLER_IGNORE_DEVICES; dropping them
 * would let the game take Steam's pad for a second player. */
static const char *const list_keys[] = { "SDL_GAMECONTROLLER_IGNORE_DEVICES" };

static bool list_has(const char *list, const char *item, size_t item_len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *b = p + n;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if ((size_t)(b - a) == item_len && strncasecmp(a, item, item_len) == 0)
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* KEY=VALUE into env; for a list key already set, VALUE's items not in it
 * yet are appended to it. */
static int set_or_append(struct plan_strv *env, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;
	bool list = false;
	for (size_t i = 0; eq && i < sizeof list_keys / sizeof list_keys[0]; i++)
		list |= strlen(list_keys[i]) == klen && strncmp(kv, list_keys[i], klen) == 0;
	char key[64];
	const char *old = NULL;
	if (list && klen < sizeof key) {
		memcpy(key, kv, klen);
		key[klen] = '\0';
		old = plan_strv_getenv(env, key);
	}
	if (!old || !old[0])
		return plan_strv_setenv(env, kv);
	size_t cap = strlen(kv) + strlen(old) + 2, len;
	char *merged = malloc(cap);
	if (!merged)
		return -ENOMEM;
	len = (size_t)snprintf(merged, cap, "%s=%s", key, old);
	for (const char *p = eq + 1; *p;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *b = p + n;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (b > a && !list_has(old, a, (size_t)(b - a)) &&
		    !list_has(merged + klen + 1, a, (size_t)(b - a)))
			len += (size_t)snprintf(merged + len, cap - len, ",%.*s", (int)(b - a), a);
		p += n;
		if (*p == ',')
			p++;
	}
	int rc = plan_strv_setenv(env, merged);
	free(merged);
	return rc;
}

int run_env_compose(char *const *base, const struct plan_strv *profile,
                    const struct plan_strv *arm, const struct plan_strv *inherited,
                    struct plan_strv *out)
{
	struct plan_strv env = { 0 };
	int rc = 0;
	for (char *const *e = base; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || harness_owned(*e) || !plan_env_key_valid(*e, (size_t)(eq - *e)))
			continue;
		if ((rc = plan_strv_setenv(&env, *e)) < 0)
			goto fail;
	}
	const struct plan_strv *layers[] = { profile, arm, inherited };
	for (size_t l = 0; l < 3; l++) {
		if (!layers[l])
			continue;
		for (size_t i = 0; i < layers[l]->n; i++)
			if ((rc = set_or_append(&env, layers[l]->v[i])) < 0)
				goto fail;
	}
	plan_strv_finish(out);
	*out = env;
	return 0;
fail:
	plan_strv_finish(&env);
	return rc;
}

bool run_uinput_usable(char *errmsg, size_t errmsg_size)
{
	const char *dev = "/dev/uinput";
	int fd = open(dev, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		run_errf(errmsg, errmsg_size, 0, "cannot open '%s': %s", dev, strerror(errno));
		return false;
	}
	close(fd);
	return true;
}
