/* test-sim: how many simulated campaigns a statistics test decides.
 *
 * The simulations in the unit tests (fixed seeds, so their outcome is the
 * same on every run of one build) check the methods' error rates in the
 * gcc build.  Under AddressSanitizer the same code runs about ten times
 * slower and is there for its memory, not its rates, so it decides a
 * tenth of the campaigns: each simulation still runs every cell through
 * every code path, and its tolerances follow the smaller count.  Without
 * this, two CPU-bound simulations took over 180 s each under ASan on a
 * machine at load average 28, against 65 s near idle.  Header only. */
#ifndef RXDECK_TEST_SIM_H
#define RXDECK_TEST_SIM_H

#if defined(__SANITIZE_ADDRESS__)
#define TEST_SIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_SIM_SANITIZED 1
#endif
#endif
#ifndef TEST_SIM_SANITIZED
#define TEST_SIM_SANITIZED 0
#endif

/* n campaigns in the gcc build, a tenth (at least 20) under the sanitizers */
static inline int test_sim_n(int n)
{
	if (!TEST_SIM_SANITIZED)
		return n;
	return n / 10 > 20 ? n / 10 : 20;
}

#endif
