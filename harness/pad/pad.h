/* pad: the virtual gamepad a route is played into.
 *
 * A pad is created by one process, its *owner* (the harness, or `rxdeck
 * route play`), before the game starts, and lives until the game has exited.
 * Two backends give the game the same events:
 *
 *   "uinput"        a kernel input device made through /dev/uinput, which
 *                   the game finds like any USB pad (/dev/input/eventN);
 *   "socket:PATH"   a Unix socket the game connects to, for hosts without
 *                   uinput; the records are the same struct input_event.
 *
 * Layout.  The pad presents itself as a wired Xbox 360 pad, USB 045e:028e
 * version 0x0114, named "Microsoft X-Box 360 pad", with the kernel xpad
 * driver's layout, which SDL2 and SDL3 map as a known controller:
 *
 *   buttons  A BTN_SOUTH, B BTN_EAST, X BTN_NORTH, Y BTN_WEST, LB BTN_TL,
 *            RB BTN_TR, BACK BTN_SELECT, START BTN_START, GUIDE BTN_MODE,
 *            LS BTN_THUMBL, RS BTN_THUMBR (value 1 down, 0 up)
 *   sticks   ABS_X ABS_Y (left), ABS_RX ABS_RY (right): -32768..32767,
 *            0 centred, negative X left, negative Y up (forward)
 *   triggers ABS_Z (left), ABS_RZ (right): 0..255, 0 released
 *   d-pad    ABS_HAT0X (-1 left, 1 right), ABS_HAT0Y (-1 up, 1 down)
 *
 * fuzz and flat are 0 on every axis, so the kernel passes every change on.
 * The ids are deliberately not the Deck's own controller (28de:1205, which
 * SDL's HIDAPI driver owns on a Deck, hiding an evdev pad with those ids)
 * nor Steam's virtual pad (28de:11ff, which newer SDL ignores).  Steam Input
 * must not wrap the game: Steam then tells SDL to ignore every other pad, so
 * launch the game outside Steam, or turn Steam Input off for it.
 *
 * Frames.  Events are written in frames: the frame's events followed by one
 * SYN_REPORT, in one write, so the game sees one instant (the kernel stamps
 * the frame when the SYN_REPORT arrives).  The *neutral frame* releases every
 * button and centres every axis.
 *
 * Safety.  A destroyed uinput device delivers no releases (readers get
 * ENODEV, the game sees a disconnect), so the owner never lets a player take
 * the device down with a button held.  Routes are played by a child process
 * made with pad_spawn(): the child writes frames straight into the device;
 * the owner keeps its own handle, waits for the child on a thread of its own,
 * and writes the neutral frame the moment the child ends, however it ends
 * (SIGKILL included).  If the owner itself dies, the child is sent SIGTERM
 * (PR_SET_PDEATHSIG) and writes the neutral frame before it exits.
 * pad_destroy() writes the neutral frame before destroying the device.
 *
 * Socket protocol (backend "socket:PATH"), for the game side:
 *
 *   - The pad listens on PATH, an AF_UNIX socket of type SOCK_SEQPACKET,
 *     from pad_create() to pad_destroy() (the file is removed then).  The
 *     game connects to it (pad_socket_connect() does this); any number of
 *     games up to PAD_SOCKET_MAX_CLIENTS may be connected at once.
 *   - Every message the pad sends is one frame: an array of the host's
 *     native struct input_event (<linux/input.h>; 24 bytes on 64-bit hosts),
 *     whose last record is EV_SYN/SYN_REPORT.  A message holds at most
 *     PAD_FRAME_MAX records.  Only EV_KEY and EV_ABS records with the codes
 *     of the layout above, and EV_SYN, occur.
 *   - Each record's time is the CLOCK_MONOTONIC time at which the frame was
 *     sent (input_event_sec/input_event_usec), the same in every record of
 *     a frame: compare it with a schedule on CLOCK_MONOTONIC.
 *   - The first message after connecting is the full current state: every
 *     button and axis of the layout, then SYN_REPORT.  A game that connects
 *     late sees buttons that are held.  Later messages carry changes only.
 *   - If the game stops reading and its socket buffer fills, the pad drops
 *     frames for it; when it can send again, its next message starts with an
 *     EV_SYN/SYN_DROPPED record followed by the full state and SYN_REPORT
 *     (as evdev does: forget what you knew, this is the state now).
 *   - The game never writes to the socket.  End of file (recv returning 0)
 *     means the pad is gone; the game should then treat every button as up.
 *
 * A game reads it like this (pad_socket_read() is this loop's body):
 *
 *   int fd;
 *   if (pad_socket_connect("/run/user/1000/rxdeck-pad", &fd) == 0) {
 *           struct input_event ev[PAD_FRAME_MAX];
 *           ssize_t n = recv(fd, ev, sizeof ev, MSG_DONTWAIT);
 *           // n > 0: n / sizeof *ev records, one frame; apply them.
 *           // n == 0: the pad is gone.  -1 with EAGAIN: nothing new.
 *   }
 *
 * Threads and processes.  pad functions may be called from any thread of the
 * owner; they serialise on one lock shared with the child (a robust
 * process-shared mutex, so a child killed while holding it does not wedge the
 * owner).  The owner must not reap the spawned child itself (no waitpid(-1),
 * no SIGCHLD set to SIG_IGN): the pad's thread waits for it by its pid.
 */
#ifndef RXDECK_PAD_H
#define RXDECK_PAD_H

#include <linux/input.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PAD_NAME "Microsoft X-Box 360 pad"
#define PAD_BUS BUS_USB
#define PAD_VENDOR 0x045e
#define PAD_PRODUCT 0x028e
#define PAD_VERSION 0x0114

enum pad_button {
	PAD_BUTTON_A,
	PAD_BUTTON_B,
	PAD_BUTTON_X,
	PAD_BUTTON_Y,
	PAD_BUTTON_LB,
	PAD_BUTTON_RB,
	PAD_BUTTON_BACK,
	PAD_BUTTON_START,
	PAD_BUTTON_GUIDE,
	PAD_BUTTON_LS,
	PAD_BUTTON_RS,
	PAD_BUTTON_COUNT
};

enum pad_axis {
	PAD_AXIS_LX,
	PAD_AXIS_LY,
	PAD_AXIS_LT,
	PAD_AXIS_RX,
	PAD_AXIS_RY,
	PAD_AXIS_RT,
	PAD_AXIS_HATX,
	PAD_AXIS_HATY,
	PAD_AXIS_COUNT
};

#define PAD_STICK_MIN (-32768)
#define PAD_STICK_MAX 32767
#define PAD_TRIGGER_MAX 255

/* Most records in one frame: the full state, SYN_DROPPED and SYN_REPORT. */
#define PAD_FRAME_MAX (PAD_BUTTON_COUNT + PAD_AXIS_COUNT + 2)
#define PAD_SOCKET_MAX_CLIENTS 16

struct pad_button_info {
	uint16_t code;      /* BTN_SOUTH ... */
	const char *name;   /* the route file's name: "A", "LB", "BACK" ... */
};

struct pad_axis_info {
	uint16_t code;      /* ABS_X ... */
	int32_t min, max;   /* the range the pad reports; centre/rest is 0 */
};

/* The layout, indexed by enum pad_button and enum pad_axis. */
extern const struct pad_button_info pad_buttons[PAD_BUTTON_COUNT];
extern const struct pad_axis_info pad_axes[PAD_AXIS_COUNT];

/* The enum pad_button of an EV_KEY code, or -1. */
int pad_button_index(uint16_t code);
/* The enum pad_axis of an EV_ABS code, or -1. */
int pad_axis_index(uint16_t code);

struct pad;

/*
 * Creates a pad from a spec: "uinput", "socket:PATH", or "none": no device
 * at all, for programs that take no input (frames go nowhere; spawning a
 * child works as with the others, so a route's shots and marks still play).
 * The calling process
 * becomes its owner.  For a socket, PATH must not be a live socket already
 * (-EADDRINUSE); a stale socket file left by a killed pad is replaced; any
 * other file there is refused (-EEXIST).  Returns 0 and the pad in *out;
 * -EINVAL for a bad spec; -ENOENT when /dev/uinput does not exist; -EACCES
 * when it cannot be opened; or another negative errno.  The pad is neutral.
 */
int pad_create(const char *spec, struct pad **out);

/*
 * Stops a spawned child still running (SIGTERM, then SIGKILL after 1 s),
 * writes the neutral frame, and destroys the device (closes and removes
 * the socket).  Accepts NULL.  Called in a spawned child, it only closes
 * the child's handles and destroys nothing.
 */
void pad_destroy(struct pad *pad);

/* "uinput", "socket" or "none". */
const char *pad_backend(const struct pad *pad);

/* The device node (/dev/input/eventN) or the socket's path; NULL for "none".
 * Owned by the pad.  For uinput it can be NULL where sysfs is not mounted. */
const char *pad_devnode(const struct pad *pad);

/*
 * Writes one frame: the n events (EV_KEY and EV_ABS of the layout; others
 * give -EINVAL and nothing is written) followed by SYN_REPORT.  The values
 * become the pad's state.  n may be 0 (an empty frame is not written).
 * Returns 0, or a negative errno when the device could not be written
 * (socket clients that have gone are dropped silently, not an error).
 */
int pad_frame(struct pad *pad, const struct input_event *events, size_t n);

/* Writes the neutral frame: every button up, every axis centred. */
int pad_neutral(struct pad *pad);

/* Games connected to a socket pad now; 0 for uinput. */
size_t pad_socket_client_count(struct pad *pad);

/* The current value of a code of the layout (EV_KEY or EV_ABS) in *value. */
int pad_state(struct pad *pad, uint16_t type, uint16_t code, int32_t *value);

/*
 * Runs fn(pad, arg) in a child process that may write frames to the pad;
 * the calling process stays the owner and supervises it.  The child:
 *   - is forked from a thread of the pad that lives until the child ends, so
 *     PR_SET_PDEATHSIG (SIGTERM) follows the owner process, not the caller;
 *   - closes every file descriptor except the pad's and those in keep_fds;
 *   - starts with every signal unblocked and default dispositions;
 *   - ends with _exit(fn's return value); it must not use stdio or locks of
 *     the owner's other threads (async-signal-safe calls, plus pad_frame()).
 * When the child ends, however it ends, the pad's thread writes the neutral
 * frame and then calls on_exit(ctx, wstatus) (wstatus as from waitpid()),
 * on that thread.  One child at a time: -EBUSY while one runs; -EINVAL
 * while SIGCHLD is ignored (the pad must reap the child itself).  Returns 0
 * and the child's pid in *pid.
 */
int pad_spawn(struct pad *pad, int (*fn)(struct pad *pad, void *arg), void *arg,
              const int *keep_fds, size_t n_keep,
              void (*on_exit)(void *ctx, int wstatus), void *ctx, pid_t *pid);

/*
 * Waits up to timeout_ms (-1: forever) for the spawned child to end and its
 * neutral frame and on_exit to be done.  Returns 0 (also when none runs), or
 * -ETIMEDOUT.
 */
int pad_wait_child(struct pad *pad, int timeout_ms);

/* ---- The game side of the socket backend ---- */

/*
 * Connects to a pad socket.  Returns 0 and a connected SOCK_SEQPACKET
 * socket (close-on-exec, non-blocking) in *fd, which the caller closes; or
 * a negative errno (-ENOENT: no pad there, -ECONNREFUSED: its pad is gone,
 * -ENAMETOOLONG: the path does not fit a socket address).
 */
int pad_socket_connect(const char *path, int *fd);

/*
 * Reads one frame if one is waiting: up to max records into events, their
 * number in *n (the last is SYN_REPORT).  Returns 0; -EAGAIN when nothing is
 * waiting; -ENOTCONN when the pad has gone (end of file); -EPROTO for a
 * message that is not a whole number of records; or a negative errno.
 */
int pad_socket_read(int fd, struct input_event *events, size_t max, size_t *n);

#endif
