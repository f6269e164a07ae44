/* run-host: the host's facts as a campaign records them, and what changed
 * between the campaign's start and a resume.
 *
 * The facts are `rxdeck deck info --json`'s "facts" object (device model,
 * OS and SteamOS build, kernel, CPU, memory, GPU card, driver and PCI id,
 * APU, gpu_metrics revision, VRAM carve-out, swap and swappiness, zram,
 * Mesa, the panel's mode and refresh rate, the GPU performance level and
 * TDP in force, the power source): one function builds that object for
 * both.  A campaign stores it at its start (db_host_facts_add, event
 * "start"), and a resume stores it again, with what changed, only when it
 * differs from the last row: a kernel or SteamOS update, another swap
 * size, a TDP left changed all change results.  The reading is deck's;
 * the rows are results-db's.
 */
#include "run-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deck/deck.h"
#include "results-db/db.h"

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jbytes(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

/* The parts the card decides: its level and TDP, and the power source. */
static void add_state(json_t *o, struct deck *d)
{
	char level[64];
	bool has_level = deck_card(d) && deck_perf_level_get(d, level, sizeof level) == 0;
	double tdp[3] = { 0 };
	bool has_tdp = deck_card(d) && deck_tdp_get_w(d, &tdp[0], &tdp[1], &tdp[2]) == 0;
	json_object_set_new(o, "gpu_level", has_level ? json_string(level) : json_null());
	json_object_set_new(o, "tdp_w", has_tdp ? json_real(tdp[0]) : json_null());
	json_object_set_new(o, "tdp_min_w", has_tdp ? json_real(tdp[1]) : json_null());
	json_object_set_new(o, "tdp_max_w", has_tdp ? json_real(tdp[2]) : json_null());
	struct deck_sample s;
	deck_sample(d, &s);
	const char *power = NULL;
	if (deck_reading_present(&s, DECK_AC_ONLINE))
		power = s.r[DECK_AC_ONLINE].value != 0 ? "AC" : "battery";
	json_object_set_new(o, "power_source", jstr(power));
}

json_t *run_host_facts_json(struct deck *d, const struct deck_facts *f)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "device_model", jstr(f->device_model));
	json_object_set_new(o, "dmi_vendor", jstr(f->dmi_vendor));
	json_object_set_new(o, "dmi_product", jstr(f->dmi_product));
	json_object_set_new(o, "host", jstr(f->host));
	json_object_set_new(o, "os", jstr(f->os));
	json_object_set_new(o, "os_version", jstr(f->os_version));
	json_object_set_new(o, "os_build", jstr(f->os_build));
	json_object_set_new(o, "kernel", jstr(f->kernel));
	json_object_set_new(o, "cpu", jstr(f->cpu));
	json_object_set_new(o, "memory_B", jbytes(f->memory_B));
	json_object_set_new(o, "swap_total_B", jbytes(f->swap_total_B));
	json_object_set_new(o, "swappiness", f->swappiness >= 0 ? json_integer(f->swappiness) : json_null());
	json_object_set_new(o, "zram_B", jbytes(f->zram_B));
	json_object_set_new(o, "zram_algorithm", jstr(f->zram_algorithm));
	json_object_set_new(o, "gpu_card", jstr(deck_card(d)));
	json_object_set_new(o, "gpu_driver", jstr(f->gpu_driver));
	json_object_set_new(o, "gpu_pci_id", jstr(f->gpu_pci_id));
	json_object_set_new(o, "apu", deck_card(d) ? json_boolean(f->apu) : json_null());
	json_object_set_new(o, "gpu_metrics", jstr(f->gpu_metrics));
	json_object_set_new(o, "vram_B", jbytes(f->vram_B));
	json_object_set_new(o, "mesa", jstr(f->mesa));
	json_object_set_new(o, "mesa_source", jstr(f->mesa_source));
	json_object_set_new(o, "display", jstr(f->display));
	json_object_set_new(o, "display_width", f->display_width ? json_integer(f->display_width) : json_null());
	json_object_set_new(o, "display_height",
	                    f->display_height ? json_integer(f->display_height) : json_null());
	json_object_set_new(o, "display_refresh_hz",
	                    f->display_refresh_hz > 0 ? json_real(f->display_refresh_hz) : json_null());
	add_state(o, d);
	return o;
}

/* A fact's value for a change line: JSON, "absent" for null (a fact the
 * host did not have), as `rxdeck deck info` says it; malloc'd. */
static char *change_value(json_t *v)
{
	return json_is_null(v) ? strdup("absent") : json_dumps(v, JSON_ENCODE_ANY);
}

/* "key: OLD -> NEW" for every key whose value differs, one a line. */
static int list_changes(json_t *before, json_t *now, char *out, size_t size)
{
	int n = 0;
	size_t used = 0;
	out[0] = '\0';
	const char *key;
	json_t *v;
	json_object_foreach(now, key, v) {
		json_t *old = json_object_get(before, key);
		if (old && json_equal(old, v))
			continue;
		char *a = old ? change_value(old) : strdup("(not recorded)");
		char *b = change_value(v);
		int k = snprintf(out + used, used < size ? size - used : 0, "%s%s: %s -> %s",
		                 n ? "\n" : "", key, a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		if (k > 0 && used + (size_t)k < size)
			used += (size_t)k;
		n++;
	}
	return n;
}

int run_host_record(struct db *db, int64_t campaign_id, struct deck *d, char *changes, size_t size)
{
	changes[0] = '\0';
	struct deck_facts f;
	if (!d || deck_facts_read(d, &f) != 0)
		return d ? -ENOMEM : 0;
	json_t *now = run_host_facts_json(d, &f);
	deck_facts_finish(&f);
	char *text = now ? json_dumps(now, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	struct db_host_facts *rows = NULL;
	size_t n = 0;
	int rc = text ? db_host_facts_list(db, campaign_id, &rows, &n) : -ENOMEM;
	if (rc < 0)
		goto out;
	struct db_host_facts row = { .event = n ? "resume" : "start", .facts = text };
	if (n) {
		json_t *before = json_loads(rows[n - 1].facts, 0, NULL);
		int k = before ? list_changes(before, now, changes, size) : 0;
		json_decref(before);
		if (k == 0) {
			rc = 0;
			goto out;
		}
		row.changes = changes;
	}
	rc = db_host_facts_add(db, campaign_id, &row);
	if (rc == 0 && n)
		rc = 1;
out:
	free(rows);
	free(text);
	json_decref(now);
	return rc;
}
