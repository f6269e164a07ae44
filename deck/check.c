/* deck check: the gpu_metrics header and outcome, and the hwmon labels,
 * for `rxdeck deck check` (check.h).  Reading only; the verdicts and
 * their words are the command's. */
#include "check.h"
#include "deck-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int deck_gpu_metrics_status(struct deck *d, struct deck_gpu_metrics_status *out)
{
	if (!d || !out)
		return -EINVAL;
	memset(out, 0, sizeof *out);
	out->socket_power_w = out->gfxclk_mhz = NAN;
	if (!d->card_dev) {
		out->err = -ENOENT;
		snprintf(out->msg, sizeof out->msg, "no amdgpu card");
		return 0;
	}
	snprintf(out->path, sizeof out->path, "%s/gpu_metrics", d->card_dev);
	unsigned char buf[4096];
	size_t len = 0;
	int err = deck_read_file(out->path, (char *)buf, sizeof buf, &len);
	if (err) {
		out->err = err;
		snprintf(out->msg, sizeof out->msg, "%s: %s", out->path, strerror(-err));
		if (err == -ENOENT)
			out->path[0] = '\0';
		return 0;
	}
	out->len = len;
	if (len >= 4) {
		out->size = (unsigned)buf[0] | (unsigned)buf[1] << 8;
		out->format = buf[2];
		out->content = buf[3];
	}
	struct deck_err e = { "" };
	struct deck_gpu_metrics m;
	out->err = deck_parse_gpu_metrics(out->path, buf, len, &m, &e);
	if (out->err) {
		snprintf(out->msg, sizeof out->msg, "%s", e.msg);
		return 0;
	}
	out->socket_power_w = m.socket_power_w;
	out->gfxclk_mhz = m.gfxclk_mhz;
	return 0;
}

/* The one-word file dir/name into buf; false when absent or not a word. */
static bool word(const char *dir, const char *name, char *buf, size_t size)
{
	char path[1024], text[128];
	size_t len;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (deck_read_file(path, text, sizeof text, &len) != 0)
		return false;
	return deck_parse_word(path, text, len, buf, size, NULL) == 0;
}

static void add(char *buf, size_t size, const char *sep, const char *what)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, "%s%s", n ? sep : "", what);
}

int deck_hwmon_describe(struct deck *d, char *line, size_t size, char *missing,
                        size_t missing_size)
{
	line[0] = missing[0] = '\0';
	if (!d->card_dev || !d->hwmon) {
		snprintf(line, size, "%s", d->card_dev ? "the card has no hwmon" : "no amdgpu card");
		return -ENOENT;
	}
	const char *base = strrchr(d->hwmon, '/');
	snprintf(line, size, "%s:", base ? base + 1 : d->hwmon);
	char label[64], part[128];
	char *l = line + strlen(line);
	size_t left = size - (size_t)(l - line);
	char parts[768] = "";
	if (word(d->hwmon, "power1_label", label, sizeof label)) {
		snprintf(part, sizeof part, "power1 %s", label);
		add(parts, sizeof parts, ", ", part);
		if (strcmp(label, "slowPPT") != 0 && strcmp(label, "PPT") != 0)
			add(missing, missing_size, ", ", "power1_label slowPPT (an APU's) or PPT");
	} else if (d->n_power) {
		add(parts, sizeof parts, ", ", "power1 (no label)");
		add(missing, missing_size, ", ", "power1_label");
	} else {
		add(missing, missing_size, ", ", "power1_average/power1_input");
	}
	if (d->power_cap)
		add(parts, sizeof parts, ", ", "power1_cap");
	else
		add(missing, missing_size, ", ", "power1_cap (the TDP limit)");
	bool edge = false;
	for (size_t i = 0; i < d->n_temps; i++) {
		const char *t = strrchr(d->temps[i], '/');
		t = t ? t + 1 : d->temps[i];
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(t, "_"), t); /* "temp1" */
		char lname[48];
		snprintf(lname, sizeof lname, "%s_label", name);
		if (word(d->hwmon, lname, label, sizeof label)) {
			snprintf(part, sizeof part, "%s %s", name, label);
			edge |= strcmp(label, "edge") == 0;
		} else {
			snprintf(part, sizeof part, "%s", name);
		}
		add(parts, sizeof parts, ", ", part);
	}
	if (!edge)
		add(missing, missing_size, ", ", "a temperature labelled edge");
	if (d->fan) {
		const char *f = strstr(d->fan, "/sys/class/hwmon/");
		add(parts, sizeof parts, ", ", f ? "fan steamdeck_hwmon" : "fan1");
	} else {
		add(missing, missing_size, ", ", "a fan (steamdeck_hwmon fan1_input)");
	}
	snprintf(l, left, " %s", parts);
	return 0;
}
