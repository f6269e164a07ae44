/* pad-private: what pad.c, the core, shares with its backends
 * (pad-uinput.c, pad-socket.c): the backend table, the core's struct they
 * embed, the shared state and its lock.  Not for use outside harness/pad. */
#ifndef RXDECK_PAD_PRIVATE_H
#define RXDECK_PAD_PRIVATE_H

#include "pad.h"

#include <pthread.h>
#include <stdbool.h>

/* Lives in a MAP_SHARED mapping, so the owner and a spawned child see one
 * state and one lock. */
struct pad_shared {
	pthread_mutex_t lock; /* robust, process-shared */
	int32_t key[PAD_BUTTON_COUNT];
	int32_t abs[PAD_AXIS_COUNT];
};

/* A backend, declared (after wlroots' interfaces): the core calls only
 * through this table and never looks into a backend's fields. */
struct pad_impl {
	const char *name;         /* pad_backend()'s answer: "uinput", "socket" */
	/* Writes one frame (ev ends with SYN_REPORT), with the state lock held.
	 * A frame that must arrive (must: the neutral frame) waits a while for
	 * a game that does not read, rather than being dropped for it. */
	int (*write)(struct pad *pad, struct input_event *ev, size_t n, bool must);
	/* Releases what the backend holds (in a spawned child: only closes). */
	void (*close)(struct pad *pad);
	/* In a new child, before its descriptors are closed: drops what the
	 * child must not hold.  NULL: nothing to drop. */
	void (*child_init)(struct pad *pad);
	/* Adds the descriptors a spawned child keeps to keep[n..]; returns the
	 * new count (at most PAD_SOCKET_MAX_CLIENTS + 1 added). */
	size_t (*child_fds)(const struct pad *pad, int *keep, size_t n);
	/* The device node or socket path the game opens; NULL if none. */
	const char *(*devnode)(const struct pad *pad);
	/* Whether the backend is up, so a neutral frame can be written. */
	bool (*is_open)(const struct pad *pad);
	/* Games connected, with the lock held.  NULL: the backend has none. */
	size_t (*client_count)(const struct pad *pad);
	/* A spawned child is handed the games that connect while it runs, over
	 * the control pair (ctl_fd). */
	bool passes_clients;
};

/* The core's part of every pad; each backend's struct embeds it first
 * (struct pad_uinput in pad-uinput.c, struct pad_socket in pad-socket.c). */
struct pad {
	const struct pad_impl *impl;
	pid_t owner_pid;
	bool in_child;            /* this copy runs in a spawned child */
	struct pad_shared *shared;
	int ctl_fd;               /* owner: passes new clients to the child; child: receives them; -1 */

	/* the spawned child, guarded by spawn_lock */
	pthread_mutex_t spawn_lock;
	pthread_cond_t spawn_cond;
	pthread_t watcher;
	bool watcher_started;
	bool child_running;
	bool spawn_reported;      /* the watcher has said whether fork worked */
	int spawn_error;
	pid_t child_pid;
	int child_ctl;            /* the child's end of the control pair, until fork */
	int owner_ctl;            /* the owner's end, until the watcher makes it ctl_fd at the fork */
	int (*child_fn)(struct pad *pad, void *arg);
	void *child_arg;
	int keep_fds[16];
	size_t n_keep;
	void (*on_exit)(void *ctx, int wstatus);
	void *exit_ctx;
};

/* The core's set-up of a backend's new (zeroed) pad: the shared state and
 * its lock, the spawn lock.  0 or a negative errno; on failure the pad is
 * released with pad_destroy(). */
int pad_init(struct pad *pad, const struct pad_impl *impl);

void pad_lock(struct pad *pad);
void pad_unlock(struct pad *pad);

/* Fills ev with the full state from pad->shared (every code), optionally
 * after a SYN_DROPPED record, and a SYN_REPORT; returns the count.  ev has
 * room for PAD_FRAME_MAX records.  Called with the lock held. */
size_t pad_full_state(const struct pad *pad, bool dropped, struct input_event *ev);

/* The backends' constructors: a pad of their kind, opened. */
int pad_uinput_create(struct pad **out);
int pad_socket_create(const char *path, struct pad **out);
int pad_none_create(struct pad **out);

#endif
