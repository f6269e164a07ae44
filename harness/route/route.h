/* route: route files, their player and their recorder.
 *
 * A route is a text file of timed pad actions (the format is in
 * docs/routes.md).  route_load() parses it, with its includes and repeat
 * blocks, into a flat list of events at absolute times from the route's t0,
 * sorted by time: pad events (a button down or up, an axis value) and the
 * route's shot and mark points.  Pad events carry the Linux evdev codes and
 * value ranges of the pad's layout (pad.h), and only changes: the pad is
 * neutral at t0 and every event changes one code's value.
 *
 * The player plays a route into a pad (pad.h) from a child process made with
 * pad_spawn(), scheduling every instant on CLOCK_MONOTONIC with absolute
 * sleeps from t0.  The harness uses it like this:
 *
 *   struct pad *pad;  pad_create("uinput", &pad);      // before the game starts
 *   struct route_player *pl;  route_player_create(route, pad, &pl);
 *   route_player_arm(pl);                               // forks the player, waiting
 *   ... start the game; wait for its first frame at present_ns ...
 *   route_player_start(pl, present_ns);                // t0 = the first frame
 *   struct route_notice n;
 *   while (route_player_wait(pl, 1000, &n) == 0 || ...) // or poll(route_player_fd(pl))
 *           if (n.type == ROUTE_NOTICE_SHOT)  write "shot NAME" to the game's FIFO
 *           if n.type is END, STOPPED or DIED: the route is over
 *   route_player_stop(pl);       // early end, e.g. the game died: neutral frame
 *   route_player_destroy(pl);
 *   ... the game exits ...
 *   pad_destroy(pad);            // neutral frame, then the device goes
 *
 * However the playing process ends (the route's end, route_player_stop(),
 * a signal, SIGKILL), every button is released and every axis centred
 * before anything else happens: the child writes the neutral frame when it
 * can, and the pad's owner writes it again when the child is gone.
 *
 * The recorder turns the evdev events of a real pad into a route file that
 * route_load() reads back to the same events.
 */
#ifndef RXDECK_ROUTE_H
#define RXDECK_ROUTE_H

#include <linux/input.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/diag.h"

struct pad;

/* Limits a route file must keep. */
#define ROUTE_MAX_DURATION_MS (24LL * 3600 * 1000)
#define ROUTE_MAX_EVENTS 1000000
#define ROUTE_MAX_INCLUDE_DEPTH 16
#define ROUTE_MAX_REPEAT_DEPTH 8
#define ROUTE_MAX_NAME 64

/* ---- Parsing ---- */

/* Errors are struct util_diag (util/diag.h): file, line, column, message;
 * util_diag_print() prints "file:line:column: message", or for line 0 the
 * message alone, which then names the file itself. */

struct route_parse_options {
	/* Called for every error, in file and line order; without it only the
	 * first error is reported (in the err argument). */
	void (*on_error)(void *ctx, const struct util_diag *e);
	void *error_ctx;
	/* Reads an included file into a malloc'd buffer (*text, *len) that the
	 * parser frees; returns 0 or a negative errno.  NULL: from disk. */
	int (*read_file)(void *ctx, const char *path, char **text, size_t *len);
	void *read_ctx;
};

struct route;

/*
 * Reads and parses the route file at path.  Returns 0 and the route in *out
 * (free it with route_free()); -EINVAL when the file has errors; or the
 * negative errno of opening or reading it.  On failure *err holds the first
 * error (err may be NULL).  Included files are read relative to the
 * including file's folder.
 */
int route_load(const char *path, struct route **out, struct util_diag *err);

/* route_load() with options: every error to opt->on_error, and includes
 * read through opt->read_file.  opt may be NULL. */
int route_load_with(const char *path, const struct route_parse_options *opt,
                    struct route **out, struct util_diag *err);

/* Parses len bytes of route text named name (for messages and as the base of
 * includes).  Returns as route_load(). */
int route_parse(const char *name, const char *text, size_t len,
                const struct route_parse_options *opt,
                struct route **out, struct util_diag *err);

/* Frees a route; accepts NULL. */
void route_free(struct route *route);

enum route_event_type {
	ROUTE_EVENT_KEY = 1, /* a button: code BTN_*, value 1 down, 0 up */
	ROUTE_EVENT_ABS,     /* an axis: code ABS_*, value in the pad's range */
	ROUTE_EVENT_SHOT,    /* a screenshot point: name */
	ROUTE_EVENT_MARK,    /* a named point for the frame log and the report */
};

struct route_event {
	int64_t t_ms;               /* from the route's t0 */
	enum route_event_type type;
	uint16_t code;              /* KEY and ABS; 0 otherwise */
	int32_t value;              /* KEY and ABS; 0 otherwise */
	const char *name;           /* SHOT and MARK; NULL otherwise; owned by the route */
	const char *file;           /* where the action that made it is; owned by the route */
	int line;
};

struct route_point {
	const char *name;           /* owned by the route */
	int64_t t_ms;
};

const char *route_name(const struct route *route);
int64_t route_duration_ms(const struct route *route);
/* The measured window [start, end], 0 <= start < end <= duration. */
void route_window_ms(const struct route *route, int64_t *start_ms, int64_t *end_ms);
/* Every event, sorted by time (ties keep the file's order).  *n gets the count. */
const struct route_event *route_events(const struct route *route, size_t *n);
/* The shots and the marks, in time order. */
const struct route_point *route_shots(const struct route *route, size_t *n);
const struct route_point *route_marks(const struct route *route, size_t *n);
/* Pad events (KEY and ABS) and the distinct instants they fall on. */
size_t route_pad_event_count(const struct route *route);
size_t route_instant_count(const struct route *route);

/* Writes a time the way route files write it: "12s", "1.5s", "250ms". */
void route_format_time(int64_t t_ms, char *buf, size_t size);

/* Reads a time written that way into *t_ms: 0, or -EINVAL. */
int route_parse_time(const char *s, int64_t *t_ms);

/* Whether name may name a route, a shot or a mark: letters, digits, '.',
 * '_' and '-', not starting with '.' or '-', at most ROUTE_MAX_NAME. */
bool route_name_is_valid(const char *name);

/* The enum pad_button of a route file's button name ("A", "lb", "SELECT"),
 * or -1. */
int route_button_from_name(const char *name);

/* ---- Playing ---- */

enum route_notice_type {
	ROUTE_NOTICE_SHOT = 1, /* a shot point was reached */
	ROUTE_NOTICE_MARK,     /* a mark point was reached */
	ROUTE_NOTICE_END,      /* the route played to its end (last notice) */
	ROUTE_NOTICE_STOPPED,  /* stopped by route_player_stop() or a signal (last) */
	ROUTE_NOTICE_DIED,     /* the playing process died (last; the owner wrote the neutral frame) */
};

struct route_notice {
	enum route_notice_type type;
	const char *name;      /* SHOT and MARK: the point's name, owned by the route */
	int64_t t_ms;          /* SHOT and MARK: route time */
	int64_t at_ns;         /* CLOCK_MONOTONIC when it happened */
	int wstatus;           /* END, STOPPED, DIED: the playing process's wait status */
};

/* The playing process asks for SCHED_FIFO at this priority and plays at
 * normal priority where it may not (see route_player_stats.realtime). */
#define ROUTE_PLAYER_RT_PRIORITY 10

struct route_player_stats {
	bool realtime;         /* the playing process got SCHED_FIFO */
	size_t instants;       /* instants with pad events in the route */
	size_t played;         /* of those, written to the pad */
	int64_t late_p50_ns;   /* lateness of those writes against schedule */
	int64_t late_p99_ns;   /* (nearest rank; the write's return time) */
	int64_t late_max_ns;
};

struct route_player;

/*
 * Prepares to play route into pad: the schedule is built here, so starting
 * is cheap.  The route must outlive the player.  Returns 0 and the player in
 * *out, or a negative errno.
 */
int route_player_create(const struct route *route, struct pad *pad, struct route_player **out);

/*
 * Makes the playing process now (pad_spawn()), waiting for t0, so that
 * route_player_start() costs one write, not a fork: arm before the game
 * starts when t0 will be known only as it passes (the game's first frame).
 * Destroying an armed player that never started plays nothing (END).
 * Returns 0; -EBUSY when armed or started before, or the pad has another
 * child; or a negative errno.
 */
int route_player_arm(struct route_player *player);

/*
 * Starts playing, with route time 0 at t0_ns on CLOCK_MONOTONIC (0: now;
 * any other value is taken as it is, even one long past), in the armed
 * process or, when not armed, a new one.  Every instant is due at exactly
 * t0_ns + t_ms * 1000000, however far into the route; instants already past
 * are written at once, counted late.  Returns 0; -EBUSY when it was started
 * before or the pad has another child; or a negative errno.
 */
int route_player_start(struct route_player *player, int64_t t0_ns);

/* A descriptor that becomes readable when a notice is waiting. */
int route_player_fd(const struct route_player *player);

/* Takes the next notice: 0; -EAGAIN when none is waiting yet; -ENODATA once
 * the last notice (END, STOPPED or DIED) has been taken, or before start. */
int route_player_next(struct route_player *player, struct route_notice *out);

/* As route_player_next(), waiting up to timeout_ms (-1: no limit);
 * -ETIMEDOUT when none came. */
int route_player_wait(struct route_player *player, int timeout_ms, struct route_notice *out);

/*
 * Stops a playing route: SIGTERM to the playing process, which writes the
 * neutral frame and ends (SIGKILL after 1 s if it does not); returns when
 * the owner has written the neutral frame too.  The STOPPED (or DIED)
 * notice is still delivered.  0 also when it was not playing.
 */
int route_player_stop(struct route_player *player);

/* The playing process, or -1. */
pid_t route_player_pid(const struct route_player *player);

/* Lateness so far (complete once the last notice came). */
int route_player_stats(const struct route_player *player, struct route_player_stats *out);

/* Stops it if it plays, and frees it; accepts NULL. */
void route_player_destroy(struct route_player *player);

/* ---- Recording ---- */

struct route_record_config {
	int64_t t0_ns;            /* CLOCK_MONOTONIC of route time 0 */
	double stick_deadzone;    /* radial, of -1..1; 0: default 0.15 */
	double trigger_deadzone;  /* of 0..1; 0: default 0.08 */
	double step;              /* values are multiples of it; 0: default 0.01 */
	unsigned stop_buttons;    /* bit (1 << enum pad_button) each; 0: BACK + START */
};

struct route_recorder;

int route_recorder_create(const struct route_record_config *config, struct route_recorder **out);
void route_recorder_destroy(struct route_recorder *rec);

/* Declares the source device's range of an EV_ABS code (from its absinfo);
 * events of axes not declared are ignored. */
void route_recorder_set_axis(struct route_recorder *rec, uint16_t code, int32_t min, int32_t max);

/*
 * Feeds one event of the source (time from ev->input_event_sec/usec on
 * CLOCK_MONOTONIC).  Values take effect at its SYN_REPORT.  Returns 1 once
 * the stop combination is held (the route then ends at that instant;
 * later events are ignored), else 0.  Source codes understood: the pad's
 * buttons, BTN_DPAD_*, ABS_X/Y/RX/RY (sticks), ABS_Z/RZ or ABS_HAT2Y/HAT2X
 * (triggers, as xpad and hid-steam report them), ABS_HAT0X/Y.
 */
int route_recorder_feed(struct route_recorder *rec, const struct input_event *ev);

/* Ends the recording at end_ns (ignored once the stop combination ended it):
 * buttons still down are released and axes centred there. */
void route_recorder_finish(struct route_recorder *rec, int64_t end_ns);

/* Writes the route file (route name, duration, window, actions).  A window
 * of start == end == 0 means the whole route.  Returns 0 or -EIO. */
int route_recorder_write(struct route_recorder *rec, FILE *f, const char *name,
                         int64_t window_start_ms, int64_t window_end_ms,
                         const char *comment);

/* Recorded actions so far. */
size_t route_recorder_action_count(const struct route_recorder *rec);

#endif
