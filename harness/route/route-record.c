/* route-record: turns the evdev events of a real pad into a route file
 * (see route.h; `rxdeck route record` feeds it from a device).
 *
 * It owns the mapping of a source pad's codes onto the route's controls,
 * normalising axes by the source's ranges, the deadzones and the value
 * grid that keep idle noise out, the 1 ms quantisation of times, the stop
 * combination, and the writing of the file.  Values are written on a grid
 * (multiples of `step`) with a hysteresis of 3/4 of a step, so a value
 * resting on a grid boundary does not flicker; a route recorded from a
 * playback of a recorded route comes out the same.
 */
#include "route.h"
#include "pad/pad.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum act_kind { A_PRESS, A_HOLD, A_STICK, A_TRIGGER, A_DPAD };

struct act {
	int64_t t_ms;
	int64_t dur_ms;      /* A_PRESS */
	uint8_t kind;
	uint8_t which;       /* button (enum pad_button), or side 0 left 1 right */
	bool dropped;
	int32_t q[2];        /* grid indexes (stick, trigger) or d-pad x, y */
	uint64_t seq;
};

struct axis_range {
	bool known;
	int32_t min, max;
};

struct route_recorder {
	struct route_record_config cfg;
	struct axis_range range[ABS_CNT];
	int32_t raw[ABS_CNT];
	bool key[PAD_BUTTON_COUNT];
	bool dpad_key[4];            /* up down left right, from BTN_DPAD_* */
	int hat_src[2];              /* from ABS_HAT0X/Y: -1, 0, 1 */

	/* what has been recorded */
	bool down[PAD_BUTTON_COUNT];
	size_t down_act[PAD_BUTTON_COUNT];
	int64_t free_at[PAD_BUTTON_COUNT]; /* earliest ms a new press may start */
	int32_t stick_q[2][2];
	int32_t trig_q[2];
	int dpad[2];
	/* the action of the current millisecond per control, to coalesce into */
	size_t stick_act[2], trig_act[2], dpad_act;
	int32_t stick_prev[2][2], trig_prev[2];
	int dpad_prev[2];

	struct act *acts;
	size_t n, cap;
	uint64_t seq;
	int64_t last_ms;             /* the latest action's time: times never go back */
	int64_t end_ms;
	bool ended;
	bool oom;
};

#define NO_ACT ((size_t)-1)

int route_recorder_create(const struct route_record_config *config, struct route_recorder **out)
{
	struct route_recorder *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->cfg = *config;
	if (r->cfg.stick_deadzone <= 0)
		r->cfg.stick_deadzone = 0.15;
	if (r->cfg.trigger_deadzone <= 0)
		r->cfg.trigger_deadzone = 0.08;
	if (r->cfg.step <= 0)
		r->cfg.step = 0.01;
	if (r->cfg.stop_buttons == 0)
		r->cfg.stop_buttons = (1u << PAD_BUTTON_BACK) | (1u << PAD_BUTTON_START);
	if (r->cfg.step > 0.5 || r->cfg.stick_deadzone >= 1 || r->cfg.trigger_deadzone >= 1 ||
	    r->cfg.stop_buttons >= (1u << PAD_BUTTON_COUNT)) {
		free(r);
		return -EINVAL;
	}
	for (int i = 0; i < 2; i++)
		r->stick_act[i] = r->trig_act[i] = NO_ACT;
	r->dpad_act = NO_ACT;
	*out = r;
	return 0;
}

void route_recorder_destroy(struct route_recorder *rec)
{
	if (!rec)
		return;
	free(rec->acts);
	free(rec);
}

void route_recorder_set_axis(struct route_recorder *rec, uint16_t code, int32_t min, int32_t max)
{
	if (code < ABS_CNT && max > min) {
		rec->range[code] = (struct axis_range){ true, min, max };
		/* rest: the centre for sticks and hats, the minimum for triggers */
		rec->raw[code] = (code == ABS_Z || code == ABS_RZ || code == ABS_HAT2X ||
		                  code == ABS_HAT2Y) ? min : (int32_t)(((int64_t)min + max) / 2);
	}
}

size_t route_recorder_action_count(const struct route_recorder *rec)
{
	size_t n = 0;
	for (size_t i = 0; i < rec->n; i++)
		n += !rec->acts[i].dropped;
	return n;
}

static size_t add_act(struct route_recorder *r, int kind, int which, int64_t t)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 256;
		struct act *n = realloc(r->acts, ncap * sizeof *n);
		if (!n) {
			r->oom = true;
			return NO_ACT;
		}
		r->acts = n;
		r->cap = ncap;
	}
	r->acts[r->n] = (struct act){ .t_ms = t, .kind = (uint8_t)kind, .which = (uint8_t)which,
	                              .seq = r->seq++ };
	if (t > r->last_ms)
		r->last_ms = t;
	return r->n++;
}

/* -1..1 from a source range (centre at its middle). */
static double norm_centred(const struct axis_range *a, int32_t raw)
{
	double c = ((double)a->min + a->max) / 2, half = ((double)a->max - a->min) / 2;
	double v = (raw - c) / half;
	return v < -1 ? -1 : v > 1 ? 1 : v;
}

/* 0..1 from a source range. */
static double norm_trigger(const struct axis_range *a, int32_t raw)
{
	double v = ((double)raw - a->min) / ((double)a->max - a->min);
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The grid index for v, moving from q only past 3/4 of a step. */
static int32_t grid(const struct route_recorder *r, double v, int32_t q)
{
	double step = r->cfg.step;
	if (fabs(v - q * step) <= 0.75 * step)
		return q;
	int32_t lim = (int32_t)floor(1.0 / step + 1e-9);
	int32_t n = (int32_t)lround(v / step);
	return n > lim ? lim : n < -lim ? -lim : n;
}

static void release(struct route_recorder *r, int b, int64_t t)
{
	struct act *a = &r->acts[r->down_act[b]];
	int64_t up = t > a->t_ms ? t : a->t_ms + 1;
	a->kind = A_PRESS;
	a->dur_ms = up - a->t_ms;
	r->down[b] = false;
	r->free_at[b] = up + 1;
}

static void set_stick(struct route_recorder *r, int side, int32_t qx, int32_t qy, int64_t t)
{
	if (qx == r->stick_q[side][0] && qy == r->stick_q[side][1])
		return;
	size_t k = r->stick_act[side];
	if (k == NO_ACT || r->acts[k].t_ms != t) {
		r->stick_prev[side][0] = r->stick_q[side][0];
		r->stick_prev[side][1] = r->stick_q[side][1];
		k = add_act(r, A_STICK, side, t);
		if (k == NO_ACT)
			return;
		r->stick_act[side] = k;
	}
	r->acts[k].q[0] = qx;
	r->acts[k].q[1] = qy;
	r->acts[k].dropped = qx == r->stick_prev[side][0] && qy == r->stick_prev[side][1];
	r->stick_q[side][0] = qx;
	r->stick_q[side][1] = qy;
}

static void set_trigger(struct route_recorder *r, int side, int32_t q, int64_t t)
{
	if (q == r->trig_q[side])
		return;
	size_t k = r->trig_act[side];
	if (k == NO_ACT || r->acts[k].t_ms != t) {
		r->trig_prev[side] = r->trig_q[side];
		k = add_act(r, A_TRIGGER, side, t);
		if (k == NO_ACT)
			return;
		r->trig_act[side] = k;
	}
	r->acts[k].q[0] = q;
	r->acts[k].dropped = q == r->trig_prev[side];
	r->trig_q[side] = q;
}

static void set_dpad(struct route_recorder *r, int x, int y, int64_t t)
{
	if (x == r->dpad[0] && y == r->dpad[1])
		return;
	size_t k = r->dpad_act;
	if (k == NO_ACT || r->acts[k].t_ms != t) {
		r->dpad_prev[0] = r->dpad[0];
		r->dpad_prev[1] = r->dpad[1];
		k = add_act(r, A_DPAD, 0, t);
		if (k == NO_ACT)
			return;
		r->dpad_act = k;
	}
	r->acts[k].q[0] = x;
	r->acts[k].q[1] = y;
	r->acts[k].dropped = x == r->dpad_prev[0] && y == r->dpad_prev[1];
	r->dpad[0] = x;
	r->dpad[1] = y;
}

static void end_at(struct route_recorder *r, int64_t t)
{
	for (int b = 0; b < PAD_BUTTON_COUNT; b++)
		if (r->down[b])
			release(r, b, t);
	/* in the order apply() takes them */
	for (int s = 0; s < 2; s++)
		set_stick(r, s, 0, 0, t);
	for (int s = 0; s < 2; s++)
		set_trigger(r, s, 0, t);
	set_dpad(r, 0, 0, t);
	r->end_ms = t;
	r->ended = true;
}

/* Applies the source state at a SYN_REPORT of time t. */
static int apply(struct route_recorder *r, int64_t t)
{
	/* the stop combination: its presses are left out, the route ends */
	unsigned held = 0;
	for (int b = 0; b < PAD_BUTTON_COUNT; b++)
		if (r->key[b])
			held |= 1u << b;
	if ((held & r->cfg.stop_buttons) == r->cfg.stop_buttons) {
		for (int b = 0; b < PAD_BUTTON_COUNT; b++) {
			if ((r->cfg.stop_buttons & (1u << b)) && r->down[b]) {
				r->acts[r->down_act[b]].dropped = true;
				r->down[b] = false;
			}
		}
		end_at(r, t);
		return 1;
	}

	for (int b = 0; b < PAD_BUTTON_COUNT; b++) {
		if (r->key[b] == r->down[b])
			continue;
		if (r->key[b]) {
			int64_t at = t > r->free_at[b] ? t : r->free_at[b];
			size_t k = add_act(r, A_HOLD, b, at);
			if (k == NO_ACT)
				return 0;
			r->down[b] = true;
			r->down_act[b] = k;
		} else {
			release(r, b, t);
		}
	}

	static const uint16_t sx[2] = { ABS_X, ABS_RX }, sy[2] = { ABS_Y, ABS_RY };
	for (int s = 0; s < 2; s++) {
		if (!r->range[sx[s]].known || !r->range[sy[s]].known)
			continue;
		double x = norm_centred(&r->range[sx[s]], r->raw[sx[s]]);
		double y = norm_centred(&r->range[sy[s]], r->raw[sy[s]]);
		int32_t qx = 0, qy = 0;
		if (hypot(x, y) >= r->cfg.stick_deadzone) {
			qx = grid(r, x, r->stick_q[s][0]);
			qy = grid(r, y, r->stick_q[s][1]);
		}
		set_stick(r, s, qx, qy, t);
	}

	/* triggers: xpad's ABS_Z/RZ, or hid-steam's ABS_HAT2Y/HAT2X */
	static const uint16_t tz[2] = { ABS_Z, ABS_RZ }, th[2] = { ABS_HAT2Y, ABS_HAT2X };
	for (int s = 0; s < 2; s++) {
		uint16_t code = r->range[tz[s]].known ? tz[s] : th[s];
		if (!r->range[code].known)
			continue;
		double v = norm_trigger(&r->range[code], r->raw[code]);
		int32_t q = v < r->cfg.trigger_deadzone ? 0 : grid(r, v, r->trig_q[s]);
		set_trigger(r, s, q, t);
	}

	int x = r->hat_src[0], y = r->hat_src[1];
	if (r->dpad_key[2] != r->dpad_key[3])
		x = r->dpad_key[2] ? -1 : 1;
	if (r->dpad_key[0] != r->dpad_key[1])
		y = r->dpad_key[0] ? -1 : 1;
	set_dpad(r, x, y, t);
	return 0;
}

int route_recorder_feed(struct route_recorder *r, const struct input_event *ev)
{
	if (r->ended)
		return 1;
	if (ev->type == EV_KEY) {
		int b = pad_button_index(ev->code);
		if (b >= 0)
			r->key[b] = ev->value != 0;
		else if (ev->code >= BTN_DPAD_UP && ev->code <= BTN_DPAD_RIGHT)
			r->dpad_key[ev->code - BTN_DPAD_UP] = ev->value != 0;
		return 0;
	}
	if (ev->type == EV_ABS && ev->code < ABS_CNT) {
		r->raw[ev->code] = ev->value;
		if ((ev->code == ABS_HAT0X || ev->code == ABS_HAT0Y) && r->range[ev->code].known) {
			double v = norm_centred(&r->range[ev->code], ev->value);
			r->hat_src[ev->code - ABS_HAT0X] = v <= -0.5 ? -1 : v >= 0.5 ? 1 : 0;
		}
		return 0;
	}
	if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
		int64_t ns = (int64_t)ev->input_event_sec * 1000000000LL +
		             (int64_t)ev->input_event_usec * 1000LL - r->cfg.t0_ns;
		int64_t t = ns <= 0 ? 0 : (ns + 500000) / 1000000;
		if (t < r->last_ms)
			t = r->last_ms;
		if (t > ROUTE_MAX_DURATION_MS - 1) {
			end_at(r, ROUTE_MAX_DURATION_MS - 1);
			return 1;
		}
		return apply(r, t);
	}
	return 0;
}

void route_recorder_finish(struct route_recorder *r, int64_t end_ns)
{
	if (r->ended)
		return;
	int64_t ns = end_ns - r->cfg.t0_ns;
	int64_t t = ns <= 0 ? 0 : (ns + 500000) / 1000000;
	if (t < r->last_ms)
		t = r->last_ms;
	end_at(r, t);
}

static int cmp_act(const void *a, const void *b)
{
	const struct act *x = a, *y = b;
	if (x->t_ms != y->t_ms)
		return x->t_ms < y->t_ms ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A grid value as the shortest decimal that reads back to it. */
static void format_value(double step, int32_t q, char *buf, size_t size)
{
	double v = q * step;
	snprintf(buf, size, "%.6f", v);
	char *dot = strchr(buf, '.');
	if (dot) {
		char *e = buf + strlen(buf) - 1;
		while (e > dot && *e == '0')
			*e-- = 0;
		if (e == dot)
			*e = 0;
	}
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
}

static const char *dpad_name(int x, int y)
{
	static const char *names[3][3] = {
		{ "up-left", "left", "down-left" },
		{ "up", "centre", "down" },
		{ "up-right", "right", "down-right" },
	};
	return names[x + 1][y + 1];
}

int route_recorder_write(struct route_recorder *r, FILE *f, const char *name,
                         int64_t window_start_ms, int64_t window_end_ms, const char *comment)
{
	if (r->oom)
		return -ENOMEM;
	if (!r->ended)
		end_at(r, r->last_ms);
	if (r->n > 1)
		qsort(r->acts, r->n, sizeof *r->acts, cmp_act);
	/* the route lasts until its last action has ended */
	int64_t duration = r->end_ms;
	for (size_t i = 0; i < r->n; i++) {
		const struct act *a = &r->acts[i];
		int64_t e = a->t_ms + (a->kind == A_PRESS ? a->dur_ms : 0);
		if (!a->dropped && e > duration)
			duration = e;
	}
	if (duration < 1)
		duration = 1;
	if (window_start_ms == 0 && window_end_ms == 0)
		window_end_ms = duration;
	if (window_start_ms < 0 || window_start_ms >= window_end_ms || window_end_ms > duration)
		return -EINVAL;

	char t[32], d[32], a[32], b[32];
	if (comment && *comment) {
		for (const char *p = comment; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			fprintf(f, "# %.*s\n", (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	fprintf(f, "route %s\n", name);
	route_format_time(duration, d, sizeof d);
	fprintf(f, "duration %s\n", d);
	route_format_time(window_start_ms, a, sizeof a);
	route_format_time(window_end_ms, b, sizeof b);
	fprintf(f, "window %s %s\n\n", a, b);
	static const char *side[2] = { "left", "right" };
	for (size_t i = 0; i < r->n; i++) {
		const struct act *x = &r->acts[i];
		if (x->dropped)
			continue;
		route_format_time(x->t_ms, t, sizeof t);
		fprintf(f, "%-9s ", t);
		switch (x->kind) {
		case A_PRESS:
			route_format_time(x->dur_ms, d, sizeof d);
			fprintf(f, "press %s %s\n", pad_buttons[x->which].name, d);
			break;
		case A_HOLD: /* cannot stay: end_at() released every button */
			fprintf(f, "hold %s\n", pad_buttons[x->which].name);
			break;
		case A_STICK:
			format_value(r->cfg.step, x->q[0], a, sizeof a);
			format_value(r->cfg.step, x->q[1], b, sizeof b);
			fprintf(f, "stick %s %s %s\n", side[x->which], a, b);
			break;
		case A_TRIGGER:
			format_value(r->cfg.step, x->q[0], a, sizeof a);
			fprintf(f, "trigger %s %s\n", side[x->which], a);
			break;
		case A_DPAD:
			fprintf(f, "dpad %s\n", dpad_name(x->q[0], x->q[1]));
			break;
		}
	}
	return ferror(f) ? -EIO : 0;
}
