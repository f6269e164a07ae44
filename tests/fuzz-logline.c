/* fuzz-logline: scanning log lines (timestamp prefixes, named captures,
 * numbers) with a profile like the renderer's, and the window metrics. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PROFILE[] =
	"name fuzz\n"
	"timestamps rxlog\n"
	"pattern readbacks ^vk: readbacks: (?<reads>[0-9]+) reads, (?<waited>[0-9]+) waited (?<each>[0-9.]+) ms each(; early: (?<early>[0-9]+) at the writer's part (?<early_each>[0-9.]+) ms each.*)?$\n"
	"metric n = count()\n"
	"metric waits = per(waited, reads, 3000)\n"
	"metric each = wmean(each, waited)\n"
	"metric early = mean(early)\n"
	"metric early_each = wmean(early_each, early)\n"
	"metric most = max(waited)\n"
	"metric least = min(waited)\n"
	"metric latest = last(each)\n"
	"pattern any ^(?<word>[a-z]+)[: ]+(?<num>-?[0-9.e+]+)?\n"
	"metric words = count()\n"
	"metric nums = sum(num)\n";

static struct collect_profile *profile;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_error err;
	if (!profile && collect_profile_parse("fuzz.collect", PROFILE, sizeof PROFILE - 1, &profile, &err) != 0)
		abort(); /* the built-in profile must parse */
	struct collect_log *log = NULL;
	bool final = size > 0 && (data[0] & 1);
	if (collect_log_scan(profile, "fuzz.log", (const char *)data, size, final, &log, &err) != 0)
		return 0;
	struct collect_log_metrics m;
	if (collect_log_metrics_compute(profile, log, 1000000000, (double[]){ 0, 5 }, &m) == 0)
		collect_log_metrics_finish(&m);
	if (collect_log_metrics_compute(profile, log, 0, NULL, &m) == 0)
		collect_log_metrics_finish(&m);
	collect_log_destroy(log);
	return 0;
}
