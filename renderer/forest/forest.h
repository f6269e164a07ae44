/* forest: the demo game on librxvk (rxdeck-forest).
 *
 * It reproduces what the renderer's readback switches exist for.  Three
 * kinds of thread share one guest memory:
 *
 *   main    reads the pad, the control channel and signals, and steps the
 *           simulation (camera, jump, talk) one fixed step per frame;
 *   render  builds one submission a frame: about --draws draws alternating
 *           between the main target and a reflection target, a culling
 *           dispatch half way through that writes a camera block at a fixed
 *           guest address and a ring of per-frame results, a mip chain of
 *           the reflection sampled through memory, frame generation, a flip;
 *   jobs    (--jobs, 2) sleep-poll the camera block of the frame just
 *           submitted (rxvk_invalidate + read + frame number), then build
 *           the next frame's instance lists on the CPU.  The render thread
 *           cannot build frame N+1 before they are done with frame N, so a
 *           whole-submission wait serialises GPU and CPU, a wait for the
 *           writer's part (RX_VK_READBACK_EARLY=1) overlaps them, and a read
 *           at once (RX_VK_READBACK_LATE=newest) removes the wait and uses
 *           the previous frame's camera block.
 *
 * A seed and the pad input alone decide every frame: the camera moves a
 * fixed step per simulated frame, in integer millimetres.
 *
 * Functions that can fail return 0 or a negative errno and leave their
 * output parameters untouched on failure.  Every *_destroy accepts NULL.
 */
#ifndef FOREST_H
#define FOREST_H

#include <linux/input.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rxvk.h"

/* Exit codes of rxdeck-forest, documented in --help and docs/forest.md. */
enum forest_exit {
	FOREST_EXIT_OK = 0,          /* clean stop: a limit, SIGTERM or SIGINT */
	FOREST_EXIT_FAILURE = 1,     /* the renderer or the system failed */
	FOREST_EXIT_USAGE = 2,       /* bad option or environment value */
	FOREST_EXIT_WRONG_DATA = 3,  /* a readback held data it must not hold, or
	                                the validation layer spoke */
	FOREST_EXIT_NO_DEVICE = 69,  /* no usable Vulkan device */
};

/* ---- options ------------------------------------------------------------ */

struct forest_options {
	uint64_t seed;          /* scene seed */
	uint32_t width, height; /* render size, pixels (--size) */
	uint32_t draws;         /* scene draws a frame */
	double scale;           /* scene density multiplier, 0.1..16 */
	uint32_t alu;           /* extra ALU iterations per fragment of scene draws */
	uint32_t cull_alu;      /* extra ALU iterations per instance of the culling */
	uint32_t jobs;          /* job threads, 1..16 */
	double job_ms;          /* CPU time each job spends a frame after its read */
	uint32_t poll_us;       /* sleep between two polls of the camera block */
	uint32_t switches;      /* colour-target switches a frame, even, >= 2 */
	uint32_t hud_every;     /* frames between HUD refreshes (they read the
	                           camera block's page) */
	uint32_t in_flight;     /* submissions in flight at most, 1..2 */
	double view_m;          /* view distance, metres */
	const char *pad;        /* "auto", "none", a device path, "socket:PATH" */
	uint64_t frames;        /* real frames to render; 0: no limit */
	double seconds;         /* seconds to run; 0: no limit */
	const char *checksums;  /* file of `frame,checksum` rows, or NULL */
	uint32_t log_every;     /* frames between position lines; 0: never */
	bool window;            /* --window: show the frames in an X window too */
	uint32_t framegen;      /* presented frames per real frame, 1..3 (RX_FRAMEGEN) */
	const char *control;    /* RX_CONTROL FIFO path, or NULL */
	const char *shot_dir;   /* RX_SHOT_DIR, "." when unset */
};

/* Fills *o with the defaults. */
void forest_options_default(struct forest_options *o);

/*
 * Parses argv (argv[0] is the program) and the environment (RX_FRAMEGEN,
 * RX_CONTROL, RX_SHOT_DIR, RXDECK_PAD) into *o, defaults first.  Strings
 * point into argv or the environment.  Returns 0; 1 when --help or
 * --version was printed to stdout (exit 0); -EINVAL with a message naming
 * the option and its value in err (exit FOREST_EXIT_USAGE).
 */
int forest_options_parse(int argc, char **argv, struct forest_options *o, char *err,
                         size_t err_size);

/* Prints the generated help. */
void forest_options_help(FILE *f);

/* ---- log ------------------------------------------------------------------ */

struct forest_log;

/*
 * Lines "forest: ..." go to stderr and, when path is not NULL, are also
 * appended to path (RX_LOG) prefixed "[seconds.micros] " of CLOCK_MONOTONIC,
 * as librxvk does there.  Each line is one write(), so it never interleaves
 * with the renderer's.  Returns 0, or a negative errno when path cannot be
 * opened.
 */
int forest_log_create(const char *path, struct forest_log **out);
void forest_log_destroy(struct forest_log *log);
/* Logs one line; log may be NULL (stderr only).  Any thread. */
void forest_log(struct forest_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- world ------------------------------------------------------------------ */

#define FOREST_REGIONS_SIDE 8
#define FOREST_REGIONS (FOREST_REGIONS_SIDE * FOREST_REGIONS_SIDE)
#define FOREST_WORLD_M 256.0f  /* side of the square world, metres, centred on 0 */

enum forest_kind {
	FOREST_KIND_REGION = 0,  /* a region's bounding sphere (culled, never drawn) */
	FOREST_KIND_TILE,        /* a ground tile */
	FOREST_KIND_GRASS,
	FOREST_KIND_ROCK,
	FOREST_KIND_TREE,
};

/*
 * The static scene.  The culling input is `spheres`: the FOREST_REGIONS
 * region spheres first, then every instance, grouped by region (region r's
 * instances are [region_first[r], region_first[r + 1])).
 */
struct forest_world {
	uint64_t seed;
	double scale;
	uint32_t n_instances;          /* regions included */
	float *spheres;                /* n_instances x (x, y, z, radius), metres */
	uint32_t *colour;              /* RGBA8 (bytes R, G, B, A) per instance */
	uint8_t *kind;                 /* enum forest_kind per instance */
	uint32_t region_first[FOREST_REGIONS + 1];
	uint32_t n_characters;         /* wanderers, moved by frame number */
	float *character_home;         /* n_characters x (x, z, radius_m, phase) */
	uint32_t *character_colour;
	float *height;                 /* ground height grid, (grid + 1)^2 metres */
	uint32_t grid;                 /* height cells a side */
};

/* Builds the scene of a seed; scale multiplies instance counts.  -ENOMEM. */
int forest_world_create(uint64_t seed, double scale, struct forest_world **out);
void forest_world_destroy(struct forest_world *w);
/* Ground height at (x, z), metres (bilinear over the grid; clamped at the edge). */
float forest_world_ground_m(const struct forest_world *w, float x, float z);
/* Where character c stands at simulated frame `frame`: x, y (ground), z. */
void forest_world_character(const struct forest_world *w, uint32_t c, uint64_t frame, float out[3]);

/* ---- pad ---------------------------------------------------------------------- */

/* The pad layout the game reads (the kernel xpad driver's, as the harness's
 * pad presents it). */
enum forest_button {
	FOREST_BUTTON_A,      /* BTN_SOUTH: jump */
	FOREST_BUTTON_B,      /* BTN_EAST: talk */
	FOREST_BUTTON_X,      /* BTN_NORTH */
	FOREST_BUTTON_Y,      /* BTN_WEST */
	FOREST_BUTTON_LB,
	FOREST_BUTTON_RB,
	FOREST_BUTTON_BACK,
	FOREST_BUTTON_START,
	FOREST_BUTTON_GUIDE,
	FOREST_BUTTON_LS,
	FOREST_BUTTON_RS,
	FOREST_BUTTON_COUNT
};

enum forest_axis {
	FOREST_AXIS_LX,       /* ABS_X: walk left/right */
	FOREST_AXIS_LY,       /* ABS_Y: walk, negative forward */
	FOREST_AXIS_LT,       /* ABS_Z */
	FOREST_AXIS_RX,       /* ABS_RX: pan left/right */
	FOREST_AXIS_RY,       /* ABS_RY: look up/down, negative up */
	FOREST_AXIS_RT,       /* ABS_RZ */
	FOREST_AXIS_HATX,     /* ABS_HAT0X */
	FOREST_AXIS_HATY,     /* ABS_HAT0Y */
	FOREST_AXIS_COUNT
};

#define FOREST_STICK_MIN (-32768)
#define FOREST_STICK_MAX 32767
#define FOREST_TRIGGER_MAX 255

/* The enum forest_button of an EV_KEY code, or -1. */
int forest_button_index(uint16_t code);
/* The enum forest_axis of an EV_ABS code, or -1. */
int forest_axis_index(uint16_t code);

/* A pad's state as the simulation samples it.  Sticks -32768..32767 (0
 * centred), triggers 0..255, hats -1..1; buttons bit (1 << enum forest_button). */
struct forest_pad_state {
	int32_t axis[FOREST_AXIS_COUNT];
	uint32_t buttons;
};

/*
 * The device-independent part of reading a pad: struct input_event records
 * in, committed states out.  Changes take effect together at SYN_REPORT.
 * SYN_DROPPED forgets what was known: the state becomes neutral and the
 * records up to the next SYN_REPORT (the full state, as the pad socket and
 * forest's evdev layer send it) rebuild it.  Codes outside the layout are
 * ignored; values are clamped to the layout's ranges.
 */
struct forest_pad_decoder {
	struct forest_pad_state pending;
	struct forest_pad_state state;  /* the last committed frame */
	uint64_t frames;                /* SYN_REPORTs committed */
	uint64_t ignored;               /* records outside the layout */
};

void forest_pad_decoder_reset(struct forest_pad_decoder *d);
/* Applies one record; returns 1 when it committed a frame, else 0. */
int forest_pad_decoder_apply(struct forest_pad_decoder *d, const struct input_event *ev);
/*
 * Applies one pad-socket message of len bytes.  Returns the frames
 * committed, or -EPROTO when len is not a whole number of records (nothing
 * applied).
 */
int forest_pad_decode_message(struct forest_pad_decoder *d, const void *msg, size_t len);

struct forest_pad;

/*
 * Opens a pad from a spec: "auto" (or NULL: the first gamepad among
 * /dev/input/event*, looked for again every second while none is found),
 * "none" (idle in place), a device path (evdev through libevdev), or
 * "socket:PATH" (the harness's pad socket).  A pad that is absent at start
 * or goes away is retried every second; the state is neutral meanwhile.
 * Returns 0, or -EINVAL for a malformed spec.
 */
int forest_pad_create(const char *spec, struct forest_log *log, struct forest_pad **out);
void forest_pad_destroy(struct forest_pad *pad);
/* The descriptor to poll for input, or -1 while none is open. */
int forest_pad_fd(const struct forest_pad *pad);
/* Reads every waiting record; reconnects when a retry is due.  Never blocks
 * (a device or socket open is non-blocking). */
void forest_pad_poll(struct forest_pad *pad, uint64_t now_ns);
/* The state the next simulation step samples (neutral while disconnected). */
void forest_pad_state(const struct forest_pad *pad, struct forest_pad_state *out);
/* Times the pad was connected (1 after a first connection). */
uint64_t forest_pad_connections(const struct forest_pad *pad);

/* ---- simulation --------------------------------------------------------------- */

#define FOREST_WALK_MM 60        /* per frame at full stick */
#define FOREST_PAN_UNITS 364     /* yaw per frame at full stick, 1/65536 turn */
#define FOREST_PITCH_MAX 8192    /* 1/8 turn up or down */
#define FOREST_DEADZONE 4000     /* stick values within it count as 0 */
#define FOREST_JUMP_MM 150       /* upward speed at a jump, mm per frame */
#define FOREST_GRAVITY_MM 10     /* speed lost per frame, mm per frame */
#define FOREST_EYE_MM 1700

/* The simulation's whole state: integers only, so the same input gives the
 * same path on every machine and in every arm. */
struct forest_sim {
	uint64_t frame;        /* frames stepped */
	int64_t x_mm, z_mm;    /* ground position; yaw 0 looks towards -z */
	int32_t jump_mm;       /* height above the ground */
	int32_t jump_speed_mm; /* per frame, upwards positive */
	int32_t yaw;           /* 1/65536 turn, 0..65535, clockwise seen from above */
	int32_t pitch;         /* 1/65536 turn, positive up */
	uint32_t buttons;      /* buttons held at the last step (edges) */
	bool talking;          /* B toggles a dialog box */
	uint32_t jumps, talks;
};

void forest_sim_init(struct forest_sim *s);
/* One simulated frame with the pad as sampled: walk (left stick), pan
 * (right stick), jump (A), talk (B).  The position stays in the world. */
void forest_sim_step(struct forest_sim *s, const struct forest_pad_state *pad);

struct forest_camera {
	uint64_t frame;
	float x, y, z;         /* eye, metres */
	float yaw, pitch;      /* radians */
	bool talking;          /* the dialog box is open */
};

void forest_sim_camera(const struct forest_sim *s, const struct forest_world *w,
                       struct forest_camera *out);

/* ---- control channel ---------------------------------------------------------- */

#define FOREST_SHOT_NAME_MAX 128

enum forest_control_kind {
	FOREST_CONTROL_NONE = 0,  /* blank or comment line */
	FOREST_CONTROL_SHOT,      /* shot NAME */
};

struct forest_control {
	enum forest_control_kind kind;
	char name[FOREST_SHOT_NAME_MAX + 1];
};

/*
 * Parses one control line (no newline; len bytes, not NUL-terminated).
 * Returns 0 with *out filled, or -EINVAL with "LINE:COLUMN: what is wrong"
 * in err (lineno counted from 1 by the caller).  A shot name is 1 to 128
 * characters of [A-Za-z0-9._-], not starting with a dot.
 */
int forest_control_parse(const char *line, size_t len, unsigned lineno,
                         struct forest_control *out, char *err, size_t err_size);

/* ---- frames and screenshots --------------------------------------------------- */

/* FNV-1a 64 of len bytes. */
uint64_t forest_fnv1a64(const void *data, size_t len);

/* The frame checksum: FNV-1a 64 of the pixels as R, G, B, A bytes, row by
 * row, whatever the target's byte order; the same number as the FNV-1a of
 * the frame's PNG decoded to RGBA (what the harness computes from a shot). */
uint64_t forest_frame_checksum(const uint8_t *px, uint32_t width, uint32_t height,
                               enum rxvk_format format);

/* Mean luma, 0..255, (54 R + 183 G + 19 B) / 256 per pixel. */
double forest_mean_luma(const uint8_t *px, uint32_t width, uint32_t height,
                        enum rxvk_format format);

/*
 * Writes tightly packed pixels (in `format` byte order) as an 8-bit RGBA
 * PNG, through path.tmp renamed onto path, so a reader never sees half a
 * file.  Returns 0, or a negative errno with a message in err.
 */
int forest_png_write(const char *path, const uint8_t *px, uint32_t width, uint32_t height,
                     enum rxvk_format format, char *err, size_t err_size);

/* ---- window (--window) ---------------------------------------------------------- */

struct forest_window;

/*
 * Connects to the X display named by DISPLAY and maps a window of
 * width x height titled "rxdeck-forest" that asks to be told when it is
 * closed (WM_DELETE_WINDOW).  On failure err holds "cannot open display
 * 'NAME': why" (or what else failed) and the return is -ENXIO (no display),
 * -ENOMEM or -EIO.
 */
int forest_window_create(uint32_t width, uint32_t height, char *err, size_t err_size,
                         struct forest_window **out);
void forest_window_destroy(struct forest_window *w);
/* The connection's descriptor, to poll for events; -1 for NULL. */
int forest_window_fd(const struct forest_window *w);
/* For rxvk_window_attach_xcb: the xcb_connection_t * and the window id. */
void *forest_window_connection(const struct forest_window *w);
uint32_t forest_window_id(const struct forest_window *w);
/* Reads every pending event; true when the window was closed (or the
 * display went away).  NULL: false. */
bool forest_window_events(struct forest_window *w);

/* ---- the game ------------------------------------------------------------------- */

struct forest;

/*
 * Creates the renderer (the environment's RX_VK_* switches apply), the
 * scene, the pad and the control channel; logs the settings.  Returns 0;
 * -ENODEV when no Vulkan device is usable; -EINVAL for a bad setting; or
 * another negative errno; a message is logged either way.  Signals
 * SIGTERM, SIGINT and SIGUSR1 must be blocked in every thread before
 * calling (forest_run() takes them through a signalfd).
 */
int forest_create(const struct forest_options *o, struct forest **out);

/*
 * Runs until --frames, --seconds, SIGTERM or SIGINT.  Returns 0 after a
 * clean stop, 1 when a readback check failed (data the policy must never
 * give, logged), or a negative errno when the renderer failed.
 */
int forest_run(struct forest *f);

/* Stops the threads, flushes the frame log (rxvk_destroy) and frees all. */
void forest_destroy(struct forest *f);

#endif
