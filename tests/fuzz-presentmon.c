/* fuzz-presentmon: PresentMon CSV reading (1.x and 2.x column names, frame
 * types, dropped presents) and the run metrics over what it read. */
#include <stdint.h>
#include <stdlib.h>

#include "collect/collect.h"
#include "run/run.h"
#include "stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_frames *f = NULL;
	struct collect_error err;
	if (collect_frames_parse("fuzz.csv", (const char *)data, size, COLLECT_SOURCE_PRESENTMON, &f,
	                         &err) != 0)
		return 0;
	struct stats_run_metrics m;
	if (run_frame_metrics(f, 0, NULL, &m) == 0)
		stats_run_metrics_finish(&m);
	if (run_frame_metrics(f, 0, (double[]){ 0.5, 3.0 }, &m) == 0)
		stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
	return 0;
}
