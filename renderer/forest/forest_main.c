/* forest_main: rxdeck-forest's entry point: options, signals blocked before
 * any thread exists (the main loop takes them through a signalfd), the
 * game, and the exit code (enum forest_exit). */
#include "forest.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct forest_options o;
	char err[512];
	int rc = forest_options_parse(argc, argv, &o, err, sizeof err);
	if (rc == 1)
		return FOREST_EXIT_OK;
	if (rc < 0) {
		fprintf(stderr, "rxdeck-forest: %s\n", err);
		return FOREST_EXIT_USAGE;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	struct forest *f = NULL;
	rc = forest_create(&o, &f);
	if (rc == -ENODEV)
		return FOREST_EXIT_NO_DEVICE;
	if (rc == -EINVAL)
		return FOREST_EXIT_USAGE;
	if (rc < 0)
		return FOREST_EXIT_FAILURE;
	rc = forest_run(f);
	forest_destroy(f);
	if (rc < 0)
		return FOREST_EXIT_FAILURE;
	return rc == 1 ? FOREST_EXIT_WRONG_DATA : FOREST_EXIT_OK;
}
