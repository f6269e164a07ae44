/* bench-common: what the renderer's benchmarks share: the monotonic clock
 * in µs and the median of a sample (which sorts it).  Header only. */
#ifndef RXVK_BENCH_COMMON_H
#define RXVK_BENCH_COMMON_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline int bench_cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; v is left sorted. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
