/* deck host facts: device model, OS, kernel, CPU, memory, GPU driver and
 * Mesa version, as stored with each campaign.
 *
 * It owns where each fact comes from and the DMI model names.  A fact this
 * host does not state stays NULL; nothing is guessed.
 */
#include "deck-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *deck_model_from_dmi(const char *product_name)
{
	if (!product_name)
		return NULL;
	if (strcmp(product_name, "Jupiter") == 0)
		return "Steam Deck LCD";
	if (strcmp(product_name, "Galileo") == 0)
		return "Steam Deck OLED";
	return product_name;
}

int deck_mesa_from_driver_info(const char *driver_info, char **out)
{
	if (!driver_info)
		return -ENOENT;
	const char *m = strstr(driver_info, "Mesa ");
	if (!m || (m != driver_info && m[-1] != ' ' && m[-1] != '('))
		return -ENOENT;
	m += 5;
	size_t n = strcspn(m, " \t\n()");
	if (n == 0)
		return -ENOENT;
	char *v = strndup(m, n);
	if (!v)
		return -ENOMEM;
	*out = v;
	return 0;
}

/* A whole small file's text, or NULL when it cannot be read. */
static char *slurp(const struct deck *d, const char *rel, size_t *len)
{
	char *path = deck_path(d, rel);
	if (!path)
		return NULL;
	size_t size = 1 << 20;
	char *buf = malloc(size);
	if (buf && deck_read_file(path, buf, size, len) != 0) {
		free(buf);
		buf = NULL;
	}
	free(path);
	return buf;
}

/* A one-line file, trimmed; NULL when absent or empty. */
static char *line_fact(const struct deck *d, const char *rel)
{
	size_t len;
	char *text = slurp(d, rel, &len);
	if (!text)
		return NULL;
	char word[512];
	char *v = deck_parse_word(rel, text, len, word, sizeof word, NULL) == 0 ? strdup(word) : NULL;
	free(text);
	return v;
}

static bool root_is_slash(const struct deck *d)
{
	return strcmp(d->root, "/") == 0;
}

static char *os_field(struct deck *d, const char *text, size_t len, const char *name,
                      const char *key, int *err_out)
{
	char *v = NULL;
	struct deck_err e = { "" };
	int err = deck_parse_os_release(name, text, len, key, &v, &e);
	if (err == -EINVAL)
		deck_fail(d, err, "%s", e.msg);
	if (err_out)
		*err_out = err;
	return err ? NULL : v;
}

static void read_os(struct deck *d, struct deck_facts *f)
{
	/* os-release(5): /etc first, then /usr/lib. */
	static const char *const files[] = { "etc/os-release", "usr/lib/os-release" };
	for (size_t i = 0; i < 2; i++) {
		size_t len;
		char *text = slurp(d, files[i], &len);
		if (!text)
			continue;
		/* NAME stands in only for a missing PRETTY_NAME, not a broken file. */
		int err;
		f->os = os_field(d, text, len, files[i], "PRETTY_NAME", &err);
		if (err == -ENOENT)
			f->os = os_field(d, text, len, files[i], "NAME", NULL);
		f->os_version = os_field(d, text, len, files[i], "VERSION_ID", NULL);
		f->os_build = os_field(d, text, len, files[i], "BUILD_ID", NULL);
		free(text);
		return;
	}
}

static void read_mesa(struct deck *d, struct deck_facts *f)
{
	/* pacman's local database, NAME-VERSION-REL folders: SteamOS 3.5 and
	 * later keep the read-only image's in /usr/lib/holo/pacmandb (its
	 * /var/lib/pacman is empty); Arch and older SteamOS in /var/lib/pacman. */
	static const struct { const char *dir, *source; } dbs[] = {
		{ "usr/lib/holo/pacmandb/local", "holo pacmandb" },
		{ "var/lib/pacman/local", "pacman" },
	};
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
		char *dir = deck_path(d, dbs[i].dir);
		DIR *dp = dir ? opendir(dir) : NULL;
		free(dir);
		if (!dp)
			continue;
		struct dirent *e;
		while (!f->mesa && (e = readdir(dp)))
			deck_parse_pacman_dir(e->d_name, "mesa", &f->mesa);
		closedir(dp);
		if (f->mesa) {
			f->mesa_source = strdup(dbs[i].source);
			return;
		}
	}
	/* dpkg (Debian, Ubuntu): the Vulkan drivers' package. */
	size_t len;
	char *text = slurp(d, "var/lib/dpkg/status", &len);
	if (text) {
		struct deck_err e = { "" };
		int err = deck_parse_dpkg_version("var/lib/dpkg/status", text, len,
		                                  "mesa-vulkan-drivers", &f->mesa, &e);
		if (err == -EINVAL)
			deck_fail(d, err, "%s", e.msg);
		if (!err)
			f->mesa_source = strdup("dpkg");
		free(text);
	}
}

static void read_gpu(struct deck *d, struct deck_facts *f)
{
	if (!d->card_dev)
		return;
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof link, "%s/driver", d->card_dev);
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n > 0) {
		target[n] = '\0';
		f->gpu_driver = strdup(basename(target));
	} else {
		/* A fake tree may hold the name in a file. */
		char name[64];
		size_t len;
		char text[128];
		if (deck_read_file(link, text, sizeof text, &len) == 0 &&
		    deck_parse_word(link, text, len, name, sizeof name, NULL) == 0)
			f->gpu_driver = strdup(name);
	}
	char vendor[32] = "", device[32] = "";
	char text[64];
	size_t len;
	snprintf(link, sizeof link, "%s/vendor", d->card_dev);
	if (deck_read_file(link, text, sizeof text, &len) == 0)
		deck_parse_word(link, text, len, vendor, sizeof vendor, NULL);
	snprintf(link, sizeof link, "%s/device", d->card_dev);
	if (deck_read_file(link, text, sizeof text, &len) == 0)
		deck_parse_word(link, text, len, device, sizeof device, NULL);
	if (strncmp(vendor, "0x", 2) == 0 && strncmp(device, "0x", 2) == 0 &&
	    asprintf(&f->gpu_pci_id, "%s:%s", vendor + 2, device + 2) < 0)
		f->gpu_pci_id = NULL;
}

/* A one-number file under the root; false when absent or malformed. */
static bool number_fact(const struct deck *d, const char *path_or_rel, bool abs, double *out)
{
	char *p = abs ? strdup(path_or_rel) : deck_path(d, path_or_rel);
	if (!p)
		return false;
	char text[128];
	size_t len;
	bool ok = deck_read_file(p, text, sizeof text, &len) == 0 &&
	          deck_parse_number(p, text, len, out, NULL) == 0;
	free(p);
	return ok;
}

static void read_memory(struct deck *d, struct deck_facts *f)
{
	size_t len;
	char *text = slurp(d, "proc/meminfo", &len);
	if (text) {
		struct deck_err e = { "" };
		if (deck_parse_meminfo_total("proc/meminfo", text, len, &f->memory_B, &e) == -EINVAL)
			deck_fail(d, -EINVAL, "%s", e.msg);
		char *swap = NULL;
		double kb;
		if (deck_parse_colon_field("proc/meminfo", text, len, "SwapTotal", &swap, NULL) == 0 &&
		    sscanf(swap, "%lf kB", &kb) == 1 && kb >= 0)
			f->swap_total_B = (int64_t)kb * 1024;
		free(swap);
		free(text);
	}
	double v;
	if (number_fact(d, "proc/sys/vm/swappiness", false, &v) && v >= 0 && v <= 200)
		f->swappiness = (int)v;
	/* zram: every zram device's size, the first one's algorithm. */
	char *dir = deck_path(d, "sys/block");
	DIR *dp = dir ? opendir(dir) : NULL;
	if (dp) {
		f->zram_B = 0;
		struct dirent *e;
		while ((e = readdir(dp))) {
			if (strncmp(e->d_name, "zram", 4) != 0)
				continue;
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%s/%s/disksize", dir, e->d_name);
			if (number_fact(d, p, true, &v) && v > 0)
				f->zram_B += (int64_t)v;
			snprintf(p, sizeof p, "%s/%s/comp_algorithm", dir, e->d_name);
			char text2[256], alg[64];
			size_t n2;
			if (!f->zram_algorithm && deck_read_file(p, text2, sizeof text2, &n2) == 0 &&
			    deck_parse_zram_algorithm(p, text2, n2, alg, sizeof alg, NULL) == 0)
				f->zram_algorithm = strdup(alg);
		}
		closedir(dp);
	}
	free(dir);
}

/* The first connected connector of the card with an EDID: its preferred
 * mode (the internal panel on a Deck, eDP-1 or eDP-2). */
static void read_display(struct deck *d, struct deck_facts *f)
{
	if (!d->card)
		return;
	char *drm = deck_path(d, "sys/class/drm");
	struct dirent **names = NULL;
	int n = drm ? scandir(drm, &names, NULL, alphasort) : -1;
	size_t prefix = strlen(d->card);
	for (int i = 0; i < n; i++) {
		const char *c = names[i]->d_name;
		if (!f->display && strncmp(c, d->card, prefix) == 0 && c[prefix] == '-') {
			char p[PATH_MAX], word[64], text[64];
			size_t len;
			snprintf(p, sizeof p, "%s/%s/status", drm, c);
			bool connected = deck_read_file(p, text, sizeof text, &len) == 0 &&
			                 deck_parse_word(p, text, len, word, sizeof word, NULL) == 0 &&
			                 strcmp(word, "connected") == 0;
			snprintf(p, sizeof p, "%s/%s/edid", drm, c);
			unsigned char edid[512];
			struct deck_err e = { "" };
			unsigned w, h;
			double hz;
			if (connected && deck_read_file(p, (char *)edid, sizeof edid, &len) == 0 &&
			    len > 0) {
				int err = deck_parse_edid_mode(p, edid, len, &w, &h, &hz, &e);
				if (err == 0) {
					f->display = strdup(c + prefix + 1);
					f->display_width = w;
					f->display_height = h;
					f->display_refresh_hz = hz;
				} else {
					deck_fail(d, err, "%s", e.msg);
				}
			}
		}
		free(names[i]);
	}
	free(names);
	free(drm);
}

int deck_facts_read(struct deck *d, struct deck_facts *out)
{
	struct deck_facts f = { .memory_B = -1, .swap_total_B = -1, .swappiness = -1,
	                        .zram_B = -1, .vram_B = -1 };
	f.dmi_product = line_fact(d, "sys/class/dmi/id/product_name");
	f.dmi_vendor = line_fact(d, "sys/class/dmi/id/sys_vendor");
	const char *model = deck_model_from_dmi(f.dmi_product);
	f.device_model = model ? strdup(model) : NULL;
	f.host = line_fact(d, "proc/sys/kernel/hostname");
	f.kernel = line_fact(d, "proc/sys/kernel/osrelease");
	if (root_is_slash(d) && (!f.host || !f.kernel)) {
		struct utsname u;
		if (uname(&u) == 0) {
			if (!f.host)
				f.host = strdup(u.nodename);
			if (!f.kernel)
				f.kernel = strdup(u.release);
		}
	}
	read_os(d, &f);
	size_t len;
	char *text = slurp(d, "proc/cpuinfo", &len);
	if (text) {
		deck_parse_colon_field("proc/cpuinfo", text, len, "model name", &f.cpu, NULL);
		free(text);
	}
	read_memory(d, &f);
	read_gpu(d, &f);
	read_mesa(d, &f);
	read_display(d, &f);
	f.apu = d->apu;
	if (d->gpu_metrics) {
		unsigned char head[4];
		int fd = open(d->gpu_metrics, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, head, sizeof head) == (ssize_t)sizeof head &&
			    asprintf(&f.gpu_metrics, "v%u.%u", head[2], head[3]) < 0)
				f.gpu_metrics = NULL;
			close(fd);
		}
	}
	double vram;
	if (d->card_dev) {
		char *p = NULL;
		if (asprintf(&p, "%s/mem_info_vram_total", d->card_dev) >= 0 &&
		    number_fact(d, p, true, &vram) && vram >= 0)
			f.vram_B = (int64_t)vram;
		free(p);
	}
	*out = f;
	return 0;
}

void deck_facts_finish(struct deck_facts *f)
{
	if (!f)
		return;
	char **all[] = { &f->device_model, &f->dmi_vendor, &f->dmi_product, &f->host, &f->kernel,
	                 &f->os, &f->os_version, &f->os_build, &f->cpu, &f->gpu_driver,
	                 &f->gpu_pci_id, &f->mesa, &f->mesa_source, &f->gpu_metrics,
	                 &f->zram_algorithm, &f->display };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		free(*all[i]);
	*f = (struct deck_facts){ .memory_B = -1, .swap_total_B = -1, .swappiness = -1,
	                          .zram_B = -1, .vram_B = -1 };
}
