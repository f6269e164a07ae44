/* keep-modules: a dlclose() that unloads nothing, preloaded into the test
 * processes of a sanitized build (meson -Db_sanitize=address,...).
 *
 * The Vulkan loader dlcloses the driver (lavapipe) at vkDestroyInstance.
 * Blocks the driver still points at from its own globals then look
 * unreachable to LeakSanitizer, which reports them as leaks with stacks in
 * an "<unknown module>" at the program's exit, and exits 1: the demo game
 * could not run a single frame under ASan, so the e2e tests skipped.  With
 * every module kept loaded until exit, those blocks stay reachable from the
 * driver's globals, as they are in a normal run; leaks in our own code are
 * still reported.  Built without instrumentation, so it can be preloaded
 * into programs that are not sanitized (python3, sh, the browser). */
#include <stddef.h>

int dlclose(void *handle);

int dlclose(void *handle)
{
	(void)handle;
	return 0;
}
