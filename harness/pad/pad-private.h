/* pad-private: what pad.c shares with its backends (pad-uinput.c,
 * pad-socket.c).  Not for use outside harness/pad. */
#ifndef RXDECK_PAD_PRIVATE_H
#define RXDECK_PAD_PRIVATE_H

#include "pad.h"

#include <pthread.h>
#include <stdbool.h>

struct libevdev;
struct libevdev_uinput;

/* Lives in a MAP_SHARED mapping, so the owner and a spawned child see one
 * state and one lock. */
struct pad_shared {
	pthread_mutex_t lock; /* robust, process-shared */
	int32_t key[PAD_BUTTON_COUNT];
	int32_t abs[PAD_AXIS_COUNT];
};

struct pad_client {
	int fd;
	bool behind; /* a frame was dropped; resend the full state first */
	bool gone;   /* owner side: given up on; the acceptor thread closes it */
};

enum pad_kind { PAD_KIND_UINPUT = 1, PAD_KIND_SOCKET };

struct pad {
	enum pad_kind kind;
	pid_t owner_pid;
	bool in_child;            /* this copy runs in a spawned child */
	struct pad_shared *shared;

	/* uinput */
	struct libevdev *dev;
	struct libevdev_uinput *ui;
	int ui_fd;
	char *devnode;

	/* socket: the clients below belong to whichever process holds this copy */
	char *path;
	dev_t path_dev;
	ino_t path_ino;
	int listen_fd;
	struct pad_client clients[PAD_SOCKET_MAX_CLIENTS];
	size_t n_clients;
	int wake[2];              /* tells the acceptor thread to stop */
	pthread_t acceptor;
	bool acceptor_started;
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
	int (*child_fn)(struct pad *pad, void *arg);
	void *child_arg;
	int keep_fds[16];
	size_t n_keep;
	void (*on_exit)(void *ctx, int wstatus);
	void *exit_ctx;
};

void pad_lock(struct pad *pad);
void pad_unlock(struct pad *pad);

/* Fills ev with the full state from pad->shared (every code), optionally
 * after a SYN_DROPPED record, and a SYN_REPORT; returns the count.  ev has
 * room for PAD_FRAME_MAX records.  Called with the lock held. */
size_t pad_full_state(const struct pad *pad, bool dropped, struct input_event *ev);

/* Backends.  Writes are called with the lock held; ev ends with SYN_REPORT.
 * A frame that must arrive (must: the neutral frame) waits a while for a
 * game that does not read, rather than being dropped for it. */
int pad_uinput_open(struct pad *pad);
int pad_uinput_write(struct pad *pad, struct input_event *ev, size_t n);
void pad_uinput_close(struct pad *pad);

int pad_socket_open(struct pad *pad, const char *path);
int pad_socket_write(struct pad *pad, struct input_event *ev, size_t n, bool must);
void pad_socket_close(struct pad *pad);
/* In a new child: drop what the child must not hold (listener, wake pipe). */
void pad_socket_child_init(struct pad *pad);

#endif
