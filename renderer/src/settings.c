/* settings: resolves every RX_VK_* switch from, in order of precedence, the
 * caller's config, the process environment, rx_env.txt in the working
 * directory, and the built-in default; and logs them all once, with where
 * each came from, so a run's log proves which arm it was.  It owns parsing
 * and validating the values, not what they do. */
#include "private.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum kind { K_UINT, K_SWITCH, K_EARLY, K_LATE, K_STRING, K_DEVICE };

struct setting {
	const char *name;
	enum kind kind;
	size_t offset;       /* into struct rxvk_config */
	uint32_t def;        /* default (uint, or enum value) */
	uint32_t min, max;   /* K_UINT range */
};

#define OFF(f) offsetof(struct rxvk_config, f)

static const struct setting table[] = {
	{ "RX_VK_GUEST_MB", K_UINT, OFF(guest_mb), 256, 1, 65536 },
	{ "RX_VK_DEVICE", K_DEVICE, OFF(device), 0, 0, 0 },
	{ "RX_VK_MIRROR", K_SWITCH, OFF(mirror), RXVK_SWITCH_DEFAULT, 0, 0 },
	{ "RX_VK_PART_OPS", K_UINT, OFF(part_ops), 256, 1, 1u << 20 },
	{ "RX_VK_READBACK_EARLY", K_EARLY, OFF(readback_early), RXVK_EARLY_OFF, 0, 0 },
	{ "RX_VK_READBACK_EARLY_GAP", K_UINT, OFF(readback_early_gap), 16, 1, 1u << 20 },
	{ "RX_VK_READBACK_LATE", K_LATE, OFF(readback_late), RXVK_LATE_OFF, 0, 0 },
	{ "RX_VK_LOG_READBACK_WAITS", K_SWITCH, OFF(log_readback_waits), RXVK_SWITCH_OFF, 0, 0 },
	{ "RX_VK_LOG_RB_WRITERS", K_SWITCH, OFF(log_rb_writers), RXVK_SWITCH_OFF, 0, 0 },
	{ "RX_VK_PARALLEL", K_UINT, OFF(parallel), 0, 1, 64 }, /* 0: parallel_default() */
	{ "RX_VK_HOLD_SWITCHED", K_SWITCH, OFF(hold_switched), RXVK_SWITCH_ON, 0, 0 },
	{ "RX_VK_FLASH", K_SWITCH, OFF(flash), RXVK_SWITCH_OFF, 0, 0 },
	{ "RX_VK_VALIDATION", K_SWITCH, OFF(validation), RXVK_SWITCH_OFF, 0, 0 },
	{ "RX_VK_IMPORT_HOST", K_SWITCH, OFF(import_host), RXVK_SWITCH_ON, 0, 0 },
	{ "RX_VK_OFF_IRQ_CPUS", K_SWITCH, OFF(off_irq_cpus), RXVK_SWITCH_OFF, 0, 0 },
	{ "RX_LOG", K_STRING, OFF(log_path), 0, 0, 0 },
	{ "RX_FRAME_LOG", K_STRING, OFF(frame_log_path), 0, 0, 0 },
};

#define N_SETTINGS (sizeof table / sizeof table[0])

/* RX_VK_PARALLEL's default: a quarter of the online CPUs, 1 to 4.  On two
 * cores recording threads cost a part more than recording it on the render
 * thread; on many they take a part's recording off it (docs/performance.md,
 * "The part split on recording threads"). */
static uint32_t parallel_default(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long n = cpus / 4;
	return n < 1 ? 1 : n > 4 ? 4 : (uint32_t)n;
}

/* KEY=VALUE pairs of rx_env.txt */
struct file_env {
	char *keys[64];
	char *values[64];
	size_t n;
};

static void file_env_free(struct file_env *fe)
{
	for (size_t i = 0; i < fe->n; i++) {
		free(fe->keys[i]);
		free(fe->values[i]);
	}
	fe->n = 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Reads rx_env.txt if it exists.  Malformed lines are errors, with file:line:column. */
static int file_env_read(struct file_env *fe, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : (rxvk_set_error("cannot open '%s': %s", path, strerror(errno)), -errno);
	char line[1024];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq || eq == s) {
			rxvk_set_error("%s:%d:%d: expected KEY=VALUE", path, lineno,
			               (int)(s - line) + 1);
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		char *key = trim(s), *value = trim(eq + 1);
		if (fe->n == 64) {
			rxvk_set_error("%s:%d:1: more than 64 settings", path, lineno);
			rc = -EINVAL;
			break;
		}
		fe->keys[fe->n] = strdup(key);
		fe->values[fe->n] = strdup(value);
		if (!fe->keys[fe->n] || !fe->values[fe->n]) {
			free(fe->keys[fe->n]);
			free(fe->values[fe->n]);
			rc = -ENOMEM;
			break;
		}
		fe->n++;
	}
	fclose(f);
	return rc;
}

static const char *file_env_get(const struct file_env *fe, const char *key)
{
	const char *v = NULL;
	for (size_t i = 0; i < fe->n; i++)
		if (strcmp(fe->keys[i], key) == 0)
			v = fe->values[i];
	return v;
}

static int parse_switch(const char *v, uint32_t *out)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
		*out = RXVK_SWITCH_ON;
	else if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") || !strcasecmp(v, "no"))
		*out = RXVK_SWITCH_OFF;
	else
		return -EINVAL;
	return 0;
}

static int parse_value(const struct setting *s, const char *v, struct settings *set)
{
	uint32_t u;
	char *end;
	void *field = (char *)&set->cfg + s->offset;
	switch (s->kind) {
	case K_UINT: {
		errno = 0;
		unsigned long long x = strtoull(v, &end, 10);
		if (errno || end == v || *end || x < s->min || x > s->max) {
			rxvk_set_error("%s='%s': expected a whole number from %u to %u", s->name, v,
			               s->min, s->max);
			return -EINVAL;
		}
		*(uint32_t *)field = (uint32_t)x;
		return 0;
	}
	case K_SWITCH:
		if (parse_switch(v, &u) != 0) {
			rxvk_set_error("%s='%s': expected 0 or 1", s->name, v);
			return -EINVAL;
		}
		*(enum rxvk_switch *)field = (enum rxvk_switch)u;
		return 0;
	case K_EARLY:
		if (!strcmp(v, "marker"))
			u = RXVK_EARLY_MARKER;
		else if (parse_switch(v, &u) == 0)
			u = u == RXVK_SWITCH_ON ? RXVK_EARLY_PART : RXVK_EARLY_OFF;
		else {
			rxvk_set_error("%s='%s': expected 0, 1 or 'marker'", s->name, v);
			return -EINVAL;
		}
		*(enum rxvk_early *)field = (enum rxvk_early)u;
		return 0;
	case K_LATE:
		if (!strcmp(v, "newest"))
			u = RXVK_LATE_NEWEST;
		else if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, ""))
			u = RXVK_LATE_OFF;
		else {
			rxvk_set_error("%s='%s': expected 'newest' or 0", s->name, v);
			return -EINVAL;
		}
		*(enum rxvk_late *)field = (enum rxvk_late)u;
		return 0;
	case K_DEVICE:
		snprintf(set->device, sizeof set->device, "%s", v);
		set->cfg.device = set->device;
		return 0;
	case K_STRING: {
		char *buf = s->offset == OFF(log_path) ? set->log_path : set->frame_log_path;
		snprintf(buf, 512, "%s", v);
		*(const char **)field = buf[0] ? buf : NULL;
		return 0;
	}
	}
	return -EINVAL;
}

static bool config_has(const struct setting *s, const struct rxvk_config *c)
{
	const void *field = (const char *)c + s->offset;
	switch (s->kind) {
	case K_UINT:
		return *(const uint32_t *)field != 0;
	case K_SWITCH:
		return *(const enum rxvk_switch *)field != RXVK_SWITCH_DEFAULT;
	case K_EARLY:
		return *(const enum rxvk_early *)field != RXVK_EARLY_DEFAULT;
	case K_LATE:
		return *(const enum rxvk_late *)field != RXVK_LATE_DEFAULT;
	case K_STRING:
	case K_DEVICE:
		return *(const char *const *)field != NULL;
	}
	return false;
}

int rxvk_settings_resolve(struct settings *set, const struct rxvk_config *config)
{
	static const struct rxvk_config zero;
	struct file_env fe = { 0 };
	int rc = 0;
	memset(set, 0, sizeof *set);
	if (!config)
		config = &zero;
	if (!config->ignore_env) {
		rc = file_env_read(&fe, "rx_env.txt");
		if (rc < 0) {
			file_env_free(&fe); /* the lines read before the bad one */
			return rc;
		}
	}
	for (size_t i = 0; i < N_SETTINGS && rc == 0; i++) {
		const struct setting *s = &table[i];
		void *field = (char *)&set->cfg + s->offset;
		const char *v;
		if (config_has(s, config)) {
			const void *from = (const char *)config + s->offset;
			if (s->kind == K_STRING || s->kind == K_DEVICE)
				rc = parse_value(s, *(const char *const *)from, set);
			else
				memcpy(field, from, sizeof(uint32_t));
			set->src[i] = SRC_CONFIG;
		} else if (!config->ignore_env && (v = getenv(s->name)) != NULL) {
			rc = parse_value(s, v, set);
			set->src[i] = SRC_ENV;
		} else if (!config->ignore_env && (v = file_env_get(&fe, s->name)) != NULL) {
			rc = parse_value(s, v, set);
			if (rc < 0) {
				char msg[512];
				snprintf(msg, sizeof msg, "%s", rxvk_last_error());
				rxvk_set_error("rx_env.txt: %s", msg);
			}
			set->src[i] = SRC_FILE;
		} else {
			if (s->kind != K_STRING && s->kind != K_DEVICE)
				*(uint32_t *)field = s->offset == OFF(parallel) ? parallel_default() : s->def;
			set->src[i] = SRC_DEFAULT;
		}
	}
	/* unknown RX_VK_ names in rx_env.txt are most likely typos of a switch */
	for (size_t k = 0; k < fe.n && rc == 0; k++) {
		if (strncmp(fe.keys[k], "RX_", 3) != 0)
			continue;
		bool known = false;
		for (size_t i = 0; i < N_SETTINGS; i++)
			known |= strcmp(table[i].name, fe.keys[k]) == 0;
		if (!known && strncmp(fe.keys[k], "RX_VK_", 6) == 0) {
			rxvk_set_error("rx_env.txt: unknown switch '%s'", fe.keys[k]);
			rc = -EINVAL;
		}
	}
	file_env_free(&fe);
	set->cfg.window_xcb = config->window_xcb;
	return rc;
}

static const char *source_name(enum setting_source s)
{
	switch (s) {
	case SRC_CONFIG:
		return "config";
	case SRC_ENV:
		return "env";
	case SRC_FILE:
		return "rx_env.txt";
	default:
		return "default";
	}
}

void rxvk_settings_log(struct rxvk *rx)
{
	char line[2048];
	size_t n = 0;
	const struct settings *set = &rx->set;
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const struct setting *s = &table[i];
		if (s->kind == K_STRING)
			continue;
		const void *field = (const char *)&set->cfg + s->offset;
		char value[300];
		switch (s->kind) {
		case K_UINT:
			snprintf(value, sizeof value, "%u", *(const uint32_t *)field);
			break;
		case K_SWITCH:
			if (s->offset == OFF(mirror))
				snprintf(value, sizeof value, "%d", rx->mirrored ? 1 : 0);
			else
				snprintf(value, sizeof value, "%d",
				         *(const enum rxvk_switch *)field == RXVK_SWITCH_ON);
			break;
		case K_EARLY: {
			enum rxvk_early e = *(const enum rxvk_early *)field;
			snprintf(value, sizeof value, "%s",
			         e == RXVK_EARLY_MARKER ? "marker" : e == RXVK_EARLY_PART ? "1" : "0");
			break;
		}
		case K_LATE:
			snprintf(value, sizeof value, "%s",
			         *(const enum rxvk_late *)field == RXVK_LATE_NEWEST ? "newest" : "0");
			break;
		case K_DEVICE:
			snprintf(value, sizeof value, "'%s'", rx->info.name);
			break;
		default:
			value[0] = '\0';
		}
		int w = snprintf(line + n, sizeof line - n, "%s%s=%s (%s)", n ? " " : "", s->name,
		                 value, source_name(set->src[i]));
		if (w < 0 || (size_t)w >= sizeof line - n)
			break;
		n += (size_t)w;
	}
	rxvk_log(rx, "switches: %s", line);
}
