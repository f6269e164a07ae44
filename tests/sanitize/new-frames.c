/* new-frames: operator new with a frame pointer, preloaded with
 * keep-modules.c into the test processes of a sanitized build.
 *
 * LeakSanitizer records where a block was allocated with its fast
 * unwinder, which follows frame pointers.  libstdc++'s operator new is
 * built without them, so a block a C++ library allocates (the Khronos
 * validation layer, which every renderer test loads) was recorded as
 * malloc, operator new and then a garbage address: an "<unknown module>"
 * that no suppression can name.  This operator new keeps its frame, so
 * the frame after it is its caller's return address, in the module that
 * allocated: tests/sanitize/lsan.supp can then name that module.  The slow
 * unwinder (ASAN_OPTIONS=fast_unwind_on_malloc=0) would find the caller
 * too, but with it test-rxvk-reuse made no progress in 10 minutes (2.8 s
 * of CPU) where it passes in seconds.
 *
 * Only the plain and array forms (the ones libstdc++ itself builds on
 * malloc); its other forms call these.  Out of memory aborts instead of
 * throwing std::bad_alloc: these are test processes.  Built without
 * instrumentation and with frame pointers and no tail calls (meson.build). */
#include <stddef.h>
#include <stdlib.h>

void *_Znwm(size_t size); /* operator new(std::size_t) */
void *_Znam(size_t size); /* operator new[](std::size_t) */

void *_Znwm(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *_Znam(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		abort();
	return p;
}
