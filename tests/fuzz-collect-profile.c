/* fuzz-collect-profile: the collector-profile parser; a profile that
 * parses is also used to scan a small log and aggregate its metrics. */
#include <stdint.h>
#include <string.h>

#include "collect/collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char LOG[] =
	"[1.000000] vk: readbacks: 3000 reads, 268 waited 23.3 ms each; early: 250 at the writer's part 1.41 ms each, 18 for their whole submission (writer not known), 244 parts ended after a writer; late: 0\n"
	"[2.500000] vk: captures: 600, 92 waited for late pages 19.6 ms each\n"
	"score 42 of 7\n"
	"vk: captures: 600, 0 waited for late pages 0 ms each\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_profile *p = NULL;
	struct collect_error err;
	if (collect_profile_parse("fuzz.collect", (const char *)data, size, &p, &err) != 0)
		return 0;
	struct collect_log *log = NULL;
	if (collect_log_scan(p, "fuzz.log", LOG, sizeof LOG - 1, true, &log, &err) == 0) {
		struct collect_log_metrics m;
		if (collect_log_metrics_compute(p, log, 0, (double[]){ 0.5, 2.0 }, &m) == 0)
			collect_log_metrics_finish(&m);
		collect_log_destroy(log);
	}
	collect_profile_destroy(p);
	return 0;
}
