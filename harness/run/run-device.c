/* run-device: the device around a campaign's runs on a Deck: logind's
 * sleep inhibitor held while the campaign plays, the GPU clock and TDP each
 * arm asks for (gpu_clock, tdp_w) checked against the route's ranges
 * before the first run, set before each of its runs and put back through
 * the same route when the campaign stops however it stops, AC power (no run starts on
 * battery; a run unplugged is void; a battery below min_battery_pct stops
 * the campaign), and what each run asked for against what was observed.
 *
 * It owns those rules and the state file (DATA_DIR/device-state) that
 * lets the next `rxdeck run` or `rxdeck resume` put the device back after
 * a harness killed with SIGKILL.  The reading and writing is deck's.
 */
#include "run-private.h"
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deck/deck.h"
#include "plan/plan.h"

static void say(struct run_device *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct run_device *dev, const char *fmt, ...)
{
	if (dev->quiet || !dev->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(dev->progress, fmt, ap);
	va_end(ap);
	fputc('\n', dev->progress);
	fflush(dev->progress);
}

static bool asks_device(const struct plan *p)
{
	if (p->gpu_clock_mhz || p->tdp_w > 0)
		return true;
	for (size_t i = 0; i < p->n_arms; i++)
		if (p->arms[i].gpu_clock_mhz || p->arms[i].tdp_w > 0)
			return true;
	return false;
}

int run_device_begin(struct run_device *dev, struct deck *deck, const struct plan *p,
                     const char *data_dir, const char *campaign, char *errmsg, size_t size)
{
	dev->deck = deck;
	dev->min_battery_pct = p->min_battery_pct;
	snprintf(dev->state_path, sizeof dev->state_path, "%s/device-state", data_dir);

	/* A harness killed with SIGKILL could not put the device back: through
	 * the route that set it. */
	struct deck_control_state left;
	char msg[512] = "";
	int rc = deck_control_state_read(dev->state_path, &left, msg, sizeof msg);
	enum deck_route_kind left_kind = DECK_ROUTE_NONE;
	if (rc == 0 && deck && deck_route_kind_from_name(left.via, &left_kind) == 0) {
		struct deck_control *ctl;
		if (deck_control_open(deck, &(struct deck_control_options){ .only = left_kind },
		                      &ctl) == 0) {
			if (deck_control_restore(ctl, &left) == 0) {
				say(dev, "put back the GPU level %s%s and the TDP a stopped campaign had "
				    "changed (%s)", left.level[0] ? left.level : "(not known)",
				    left.tdp_w > 0 ? "" : " (TDP not known)", left.via);
				unlink(dev->state_path);
			} else {
				rc = run_errf(errmsg, size, -EIO, "cannot put back the device state in '%s': "
				              "%s", dev->state_path, deck_control_errmsg(ctl));
				deck_control_destroy(ctl);
				return rc;
			}
			deck_control_destroy(ctl);
		}
	} else if (rc == -EINVAL) {
		return run_errf(errmsg, size, -EINVAL, "%s", msg);
	}

	char why[256];
	snprintf(why, sizeof why, "rxdeck campaign %s", campaign);
	if (deck_inhibit(why, &dev->inhibitor, msg, sizeof msg) != 0) {
		dev->inhibitor = NULL;
		say(dev, "no sleep inhibitor (%s): the host may sleep during the campaign", msg);
	}

	if (!asks_device(p))
		return 0;
	if (!deck)
		return run_errf(errmsg, size, -ENODEV, "the plan sets gpu_clock or tdp_w, but this host "
		                "has no readable sysfs");
	/* the route, proven by a no-op write, and every arm's ask within its
	 * ranges: refused here, before the first run */
	rc = deck_control_open(deck, &(struct deck_control_options){ .verify = true },
	                       &dev->control);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "out of memory");
	const struct deck_route *r = deck_control_route(dev->control);
	if (r->kind == DECK_ROUTE_NONE) {
		char tries[1500];
		deck_route_tries_text(r, tries, sizeof tries);
		return run_errf(errmsg, size, -ENODEV, "the plan sets gpu_clock or tdp_w, but there is "
		                "no route to the GPU clock and TDP: %s", tries);
	}
	for (size_t i = 0; i < p->n_arms; i++) {
		const struct plan_arm *arm = &p->arms[i];
		unsigned mhz = arm->gpu_clock_mhz ? arm->gpu_clock_mhz : p->gpu_clock_mhz;
		double w = arm->tdp_w > 0 ? arm->tdp_w : p->tdp_w;
		if ((rc = deck_control_check(dev->control, mhz, w)) < 0)
			return run_errf(errmsg, size, rc, "arm %c: %s", arm->letter,
			                deck_control_errmsg(dev->control));
	}
	rc = deck_control_save(dev->control, &dev->saved);
	if (rc == 0)
		rc = deck_control_state_write(dev->state_path, &dev->saved);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "cannot keep the device state to put back: %s",
		                deck_control_errmsg(dev->control)[0] ? deck_control_errmsg(dev->control)
		                                                     : strerror(-rc));
	dev->saved_ok = true;
	if (r->bus[0])
		say(dev, "GPU clock and TDP per arm through %s: steamos-manager%s%s on the %s bus, %s; "
		    "put back when the campaign stops", deck_control_via(dev->control),
		    r->version[0] ? " Version " : "", r->version, r->bus, r->interface);
	else
		say(dev, "GPU clock and TDP per arm through %s (%s); put back when the campaign stops",
		    deck_control_via(dev->control), r->interface);
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

int run_device_before_run(struct run_device *dev, const struct plan *p,
                          const struct plan_arm *arm, volatile sig_atomic_t *stop,
                          bool *stop_now, char *errmsg, size_t size)
{
	*stop_now = false;
	/* No run starts on battery: wait for AC, said once; below the
	 * campaign's minimum the campaign stops (resumable). */
	bool said = false;
	while (dev->deck) {
		struct deck_sample s;
		deck_sample(dev->deck, &s);
		bool battery = deck_reading_present(&s, DECK_AC_ONLINE) && s.r[DECK_AC_ONLINE].value == 0;
		if (!battery)
			break;
		if (deck_reading_present(&s, DECK_BATTERY_PCT) &&
		    s.r[DECK_BATTERY_PCT].value < dev->min_battery_pct) {
			say(dev, "on battery at %g %%, below min_battery_pct %g %%: stopping; "
			    "'rxdeck resume' goes on", s.r[DECK_BATTERY_PCT].value, dev->min_battery_pct);
			*stop_now = true;
			return 0;
		}
		if (!said) {
			say(dev, "on battery: waiting for AC power before the next run");
			said = true;
		}
		if (stop && *stop) {
			*stop_now = true;
			return 0;
		}
		sleep_s(dev->poll_s > 0 ? dev->poll_s : 5);
	}
	if (said)
		say(dev, "on AC power again: going on");

	dev->asked_mhz = arm->gpu_clock_mhz ? arm->gpu_clock_mhz : p->gpu_clock_mhz;
	dev->asked_w = arm->tdp_w > 0 ? arm->tdp_w : p->tdp_w;
	if (!dev->control || (!dev->asked_mhz && !(dev->asked_w > 0)))
		return 0;
	int rc = deck_control_apply(dev->control, dev->asked_mhz, dev->asked_w);
	if (rc < 0)
		return run_errf(errmsg, size, rc, "arm %c: %s", arm->letter,
		                deck_control_errmsg(dev->control));
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of a reading over the run's samples; NAN when never present. */
static double median_of(const struct deck_sample *v, size_t n, enum deck_reading_id id)
{
	double *x = malloc((n ? n : 1) * sizeof *x);
	size_t m = 0;
	for (size_t i = 0; x && i < n; i++)
		if (deck_reading_present(&v[i], id))
			x[m++] = v[i].r[id].value;
	double med = NAN;
	if (m) {
		qsort(x, m, sizeof *x, cmp_double);
		med = m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
	}
	free(x);
	return med;
}

void run_device_check(struct run_device *dev, const struct deck_sample *samples, size_t n,
                      struct run_collected *col, char *reason, size_t size)
{
	reason[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (deck_reading_present(&samples[i], DECK_AC_ONLINE) &&
		    samples[i].r[DECK_AC_ONLINE].value == 0) {
			snprintf(reason, size, "on battery");
			break;
		}
	if (dev->asked_mhz) {
		run_collected_add_metric(col, "gpu_clock_asked_mhz", dev->asked_mhz);
		double got = median_of(samples, n, DECK_GPU_CLOCK_MHZ);
		if (isnan(got))
			got = median_of(samples, n, DECK_GPU_SCLK_MHZ);
		if (!isnan(got))
			run_collected_add_metric(col, "gpu_clock_observed_mhz", got);
		/* 5 %: the firmware's clock steps, not a different setting */
		if (!reason[0] && (isnan(got) || fabs(got - dev->asked_mhz) > 0.05 * dev->asked_mhz))
			snprintf(reason, size, isnan(got) ? "gpu clock %u MHz asked, none observed"
			                                  : "gpu clock %u MHz asked, %.0f MHz observed",
			         dev->asked_mhz, got);
	}
	if (dev->asked_w > 0) {
		run_collected_add_metric(col, "tdp_asked_w", dev->asked_w);
		double got = median_of(samples, n, DECK_POWER_CAP_W);
		if (!isnan(got))
			run_collected_add_metric(col, "tdp_observed_w", got);
		if (!reason[0] && (isnan(got) || fabs(got - dev->asked_w) > 0.5))
			snprintf(reason, size, isnan(got) ? "tdp %g W asked, no power cap observed"
			                                  : "tdp %g W asked, %g W in force",
			         dev->asked_w, got);
	}
}

void run_device_end(struct run_device *dev)
{
	if (dev->control && dev->saved_ok) {
		if (deck_control_restore(dev->control, &dev->saved) == 0) {
			unlink(dev->state_path);
			say(dev, "GPU level and TDP put back");
		} else {
			say(dev, "cannot put back the GPU level and TDP (%s); the next 'rxdeck run' or "
			    "'rxdeck resume' tries again from '%s'", deck_control_errmsg(dev->control),
			    dev->state_path);
		}
	}
	deck_control_destroy(dev->control);
	dev->control = NULL;
	deck_inhibitor_release(dev->inhibitor);
	dev->inhibitor = NULL;
}
