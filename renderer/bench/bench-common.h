/* bench-common: what the renderer's benchmarks share: a clock in µs (the
 * monotonic one, or a CPU-time one) and the median of a sample (which
 * sorts it).  Header only. */
#ifndef RXVK_BENCH_COMMON_H
#define RXVK_BENCH_COMMON_H

#include <stdlib.h>
#include <time.h>

/* A clock's reading in µs: CLOCK_MONOTONIC for intervals, the process's or
 * the thread's CPU-time clock for the CPU spent. */
static inline double bench_clock_us(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline double bench_now_us(void)
{
	return bench_clock_us(CLOCK_MONOTONIC);
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
