/* fuzz-mangohud: MangoHud CSV reading (preamble, units, samples, start-up
 * rows) and the run metrics over what it read. */
#include <stdint.h>
#include <stdlib.h>

#include "stats/stats.h"
#include "collect/collect.h"
#include "run/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_frames *f = NULL;
	struct collect_error err;
	if (collect_frames_parse("fuzz.csv", (const char *)data, size, COLLECT_SOURCE_MANGOHUD, &f,
	                         &err) != 0)
		return 0;
	struct stats_run_metrics m;
	struct stats_log log;
	int64_t t0 = f->n ? f->frames[0].present_ns : 0;
	if (run_stats_log(f, &log) == 0) {
		if (stats_run_metrics_compute(&log, t0, NULL, &m) == 0)
			stats_run_metrics_finish(&m);
		if (stats_run_metrics_compute(&log, t0, (double[]){ 0.05, 1.5 }, &m) == 0)
			stats_run_metrics_finish(&m);
		run_stats_log_finish(&log);
	}
	collect_frames_destroy(f);
	return 0;
}
