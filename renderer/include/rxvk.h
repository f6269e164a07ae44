/* librxvk: a Vulkan replay renderer for console-style guest workloads.
 *
 * The game owns threads that read and write one guest address space; the
 * renderer owns the Vulkan device and replays the game's submissions (lists
 * of guest ops) as parts, command buffers that each signal the next value
 * of one timeline semaphore.  Before a game thread reads guest memory the
 * GPU may be writing, it calls rxvk_invalidate(), which returns once the
 * bytes are final under the active readback policy and says how long it
 * waited and why.
 *
 * Every Vulkan object stays private.  Functions that can fail return 0 or a
 * negative errno and leave their output parameters untouched on failure;
 * rxvk_last_error() then has a message naming what was wrong.
 *
 * Threads: rxvk_submit() is called from one thread at a time (the render
 * thread).  rxvk_invalidate(), rxvk_cpu_wrote(), rxvk_counters_get() and
 * rxvk_guest() may be called from any thread at any time.
 */
#ifndef RXVK_H
#define RXVK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXVK_PAGE_SIZE_B 4096u

/* ---- configuration --------------------------------------------------- */

/* A switch whose 0 means "take it from the environment, else the default". */
enum rxvk_switch {
	RXVK_SWITCH_DEFAULT = 0,
	RXVK_SWITCH_OFF,
	RXVK_SWITCH_ON,
};

/* RX_VK_READBACK_LATE */
/* RX_VK_READBACK_EARLY: what a read of pages with a pending write waits for. */
enum rxvk_early {
	RXVK_EARLY_DEFAULT = 0,
	RXVK_EARLY_OFF,           /* the whole submission */
	RXVK_EARLY_PART,          /* `1`: the writer's part, ended right after it */
	RXVK_EARLY_MARKER,        /* `marker`: a GPU marker recorded right after the writer */
};

enum rxvk_late {
	RXVK_LATE_DEFAULT = 0,
	RXVK_LATE_OFF,
	RXVK_LATE_NEWEST, /* ranges written by the newest submission read at once */
};

/*
 * Zero means default for every field.  Precedence for each setting: a
 * non-default field here, then the process environment (RX_VK_*), then
 * rx_env.txt in the working directory, then the built-in default.
 * rxvk_config_get() returns the effective values, none left at 0.
 */
struct rxvk_config {
	uint32_t guest_mb;          /* guest memory, MiB; RX_VK_GUEST_MB, default 256 */
	const char *device;         /* index or name substring; RX_VK_DEVICE */
	enum rxvk_switch mirror;    /* RX_VK_MIRROR; default: ON for discrete GPUs */
	uint32_t part_ops;          /* ops a part holds at most; RX_VK_PART_OPS, 256 */
	enum rxvk_early readback_early;  /* RX_VK_READBACK_EARLY: 0, 1 or marker; off */
	uint32_t readback_early_gap; /* RX_VK_READBACK_EARLY_GAP, ops, default 16 */
	enum rxvk_late readback_late;    /* RX_VK_READBACK_LATE, off */
	enum rxvk_switch log_readback_waits; /* RX_VK_LOG_READBACK_WAITS, off */
	enum rxvk_switch log_rb_writers;     /* RX_VK_LOG_RB_WRITERS, off */
	uint32_t parallel;          /* recording threads, 1: the render thread records;
	                             * RX_VK_PARALLEL, default a quarter of the CPUs, 1-4 */
	enum rxvk_switch hold_switched; /* RX_VK_HOLD_SWITCHED, on */
	enum rxvk_switch flash;     /* RX_VK_FLASH, off */
	enum rxvk_switch validation; /* RX_VK_VALIDATION: Khronos layer, messages counted */
	enum rxvk_switch import_host; /* RX_VK_IMPORT_HOST: import the mmap (on where supported) */
	enum rxvk_switch off_irq_cpus; /* RX_VK_OFF_IRQ_CPUS: the threads that record and submit
	                                  parts kept off the CPUs taking the GPU's interrupts; off */
	const char *log_path;       /* RX_LOG; NULL: stderr */
	const char *frame_log_path; /* RX_FRAME_LOG; NULL: no frame log */
	bool ignore_env;            /* true: neither environment nor rx_env.txt is read */
	bool window_xcb;            /* true: the instance and device can present to an
	                               xcb window (rxvk_window_attach_xcb); false: the
	                               instance and device are made as without windows */
};

/* What rxvk_config_get() adds beyond the configuration: the device. */
struct rxvk_device_info {
	char name[256];
	char driver[256];
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t api_version;   /* VK_MAKE_API_VERSION packed */
	bool discrete;
	bool cpu;               /* lavapipe and friends */
	bool host_import;       /* guest memory imported with VK_EXT_external_memory_host */
	uint32_t index;         /* among the enumerated physical devices */
};

/* ---- guest ops ----------------------------------------------------------
 *
 * A submission is an array of ops.  Addresses are byte offsets into guest
 * memory.  Format version 1; the binary stream below carries the version.
 */
#define RXVK_OP_FORMAT_VERSION 1u

enum rxvk_op_kind {
	RXVK_OP_SET_TARGET = 1, /* write = target memory; params: width, height, pitch_B, format */
	RXVK_OP_DRAW = 2,       /* program draws `count` instances into the current target */
	RXVK_OP_DISPATCH = 3,   /* program runs `count` workgroups */
	RXVK_OP_COPY = 4,       /* read[0] copied onto write (same size) */
	RXVK_OP_FILL = 5,       /* write filled with the 32-bit value params[0] */
	RXVK_OP_FLIP = 6,       /* presents the current colour target; params[0]: RXVK_FLIP_* */
	RXVK_OP_KIND_COUNT_ = 7,
};

enum rxvk_format {
	RXVK_FORMAT_RGBA8 = 1, /* bytes R, G, B, A */
	RXVK_FORMAT_BGRA8 = 2, /* bytes B, G, R, A */
	RXVK_FORMAT_DEPTH = 3, /* depth alone: drawn into, never written back */
};

#define RXVK_FLIP_SHOWN 0x1u /* a generated frame: logged as `shown` */

struct rxvk_range {
	uint64_t addr;
	uint64_t size_B;
};

#define RXVK_OP_PARAMS 8

struct rxvk_op {
	uint32_t kind;     /* enum rxvk_op_kind */
	uint32_t count;    /* DRAW: instances; DISPATCH: workgroups; else 0 */
	uint64_t program;  /* DRAW, DISPATCH: a program hash below; else 0 */
	struct rxvk_range read[2]; /* unused ranges have size 0 */
	struct rxvk_range write;
	uint32_t params[RXVK_OP_PARAMS]; /* per program, see below */
};

/*
 * Built-in programs, named by the FNV-1a 64 hash of their name.
 *
 * RXVK_PROGRAM_CULL "rxvk.cull.v1" (DISPATCH, 64 instances a workgroup)
 *   read[0]: instances, 16 B each (float x, y, z, radius)
 *   write:   result block: u32 frame, u32 total, u32 visible-not-counted, u32 0,
 *            float camera[4], then u32 visible[total] (1 or 0)
 *   params:  [0] total, [1..3] camera x, y, z (float bits), [4] view distance
 *            (float bits), [5] extra ALU iterations per instance, [6] frame
 * RXVK_PROGRAM_SPIN "rxvk.spin.v1" (DISPATCH, one workgroup)
 *   write:   u32 slot[2]: slot[1] = a value kept alive, then slot[0] = params[1]
 *   params:  [0] iterations, [1] value
 * RXVK_PROGRAM_INSTANCED "rxvk.instanced.v1" (DRAW)
 *   read[0]: instances, 16 B each (float x, y, size, u32 RGBA colour), x/y in
 *            clip space [-1, 1]
 *   params:  [0] extra ALU iterations per fragment, [1] float bits of a
 *            brightness scale (0 = 1.0)
 * RXVK_PROGRAM_TEXTURED "rxvk.textured.v1" (DRAW, count 1)
 *   read[0]: texels of image 0 in guest memory; read[1]: image 1 (optional)
 *   params:  [0] width, [1] height, [2] pitch_B, [3] format (RXVK_FORMAT_*)
 *            of both images, [4] float bits of the weight of image 1 (0..1),
 *            [5..6] destination x0, y0 in pixels (u16 pairs: x | y << 16 in [5],
 *            w | h << 16 in [6]; 0 in [6] = the whole target)
 */
#define RXVK_PROGRAM_CULL      0xa1c4ba3dece9c375ull
#define RXVK_PROGRAM_SPIN      0xfb29bf91e5a2793dull
#define RXVK_PROGRAM_INSTANCED 0xafd51fc51db8a12eull
#define RXVK_PROGRAM_TEXTURED  0x901bb96209fb2b76ull

/* FNV-1a 64 of a NUL-terminated name: how program hashes are made. */
uint64_t rxvk_program_hash(const char *name);

/* ---- lifetime ------------------------------------------------------------ */

struct rxvk;

/*
 * Creates the instance and device (through volk: no link-time libvulkan),
 * picks the physical device (RX_VK_DEVICE, else the first that has timeline
 * semaphores), allocates guest memory and logs every switch in effect once
 * (`vk: switches: ...`).  On success *out owns the renderer, released with
 * rxvk_destroy().  Returns -ENODEV when no usable Vulkan device exists
 * (tests skip on it), -ENOMEM, -EINVAL for a bad setting, -EIO for any other
 * Vulkan failure; a message is logged either way.
 */
int rxvk_create(const struct rxvk_config *config, struct rxvk **out);

/* Waits for the device, frees everything.  NULL is a no-op. */
void rxvk_destroy(struct rxvk *rx);

/* The effective configuration and device.  Strings point into rx. */
void rxvk_config_get(const struct rxvk *rx, struct rxvk_config *out);
void rxvk_device_info_get(const struct rxvk *rx, struct rxvk_device_info *out);

/* The guest memory: rxvk_config_get().guest_mb MiB, page-aligned, owned by rx. */
void *rxvk_guest(struct rxvk *rx);
uint64_t rxvk_guest_size(const struct rxvk *rx);

/* The message of the last failed call on this thread ("" if none). */
const char *rxvk_last_error(void);

/* ---- replay ---------------------------------------------------------------- */

struct rxvk_stream_sub; /* below, with the binary stream */

/*
 * Validates every op, then captures the pages the CPU wrote since the last
 * submission (waiting for late pages), then records and submits the ops as
 * parts.  Nothing is submitted if any op is invalid: the return is -EINVAL
 * and rxvk_last_error() says `op N: what`.  *out_submission, if given, is the
 * submission's number (1, 2, ...).
 */
int rxvk_submit(struct rxvk *rx, const struct rxvk_op *ops, size_t n_ops,
                uint64_t *out_submission);

/*
 * Replays several submissions in one call, as a captured stream is replayed
 * (a burst): each is validated before anything of the burst is submitted,
 * then recorded in order; each submission's span closes at its own end.
 * *out_last, if given, is the last submission's number.
 */
int rxvk_submit_burst(struct rxvk *rx, const struct rxvk_stream_sub *subs, size_t n_subs,
                      uint64_t *out_last);

/* Waits until every part submitted so far is done. */
int rxvk_finish(struct rxvk *rx);

/* ---- readbacks -------------------------------------------------------------- */

enum rxvk_wait_for {
	RXVK_WAIT_NOTHING = 0,    /* no pending GPU write: read at once */
	RXVK_WAIT_SUBMISSION,     /* the whole submission that wrote the range */
	RXVK_WAIT_PART,           /* the writer's part (RX_VK_READBACK_EARLY) */
	RXVK_WAIT_LATE,           /* read at once by RX_VK_READBACK_LATE: older values */
	RXVK_WAIT_MARKER,         /* the writer's marker (RX_VK_READBACK_EARLY=marker); `value`
	                           * is the writer's part, the fallback */
};

struct rxvk_wait {
	bool waited;              /* slept on the timeline */
	enum rxvk_wait_for what;
	uint64_t submission;      /* the newest writer's submission, 0 if none */
	uint64_t value;           /* timeline value waited for, 0 if none */
	uint64_t wait_ns;         /* time spent in the call */
};

/*
 * Before the CPU reads guest bytes [addr, addr + size_B) that the GPU may be
 * writing: returns when they are final under the active policy.  `out` may
 * be NULL.  -EINVAL for a range outside guest memory.
 */
int rxvk_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B, struct rxvk_wait *out);

/*
 * The CPU wrote guest bytes [addr, addr + size_B): the next submission's
 * capture makes them visible to the GPU.  A page written while a submission
 * that reads it still runs is a late page: the next capture waits for that
 * submission.  A colour target over the bytes, with no frame drawn since
 * its last write-back, takes them before it is drawn into again, so its
 * next write-back keeps them.  -EINVAL for a range outside guest memory.
 */
int rxvk_cpu_wrote(struct rxvk *rx, uint64_t addr, uint64_t size_B);

/* ---- counters ---------------------------------------------------------------- */

struct rxvk_counters {
	uint64_t submissions;
	uint64_t ops;
	uint64_t draws;
	uint64_t parts;
	uint64_t parts_split_early;   /* parts ended right after a tracked writer */
	uint64_t timeline_value;      /* the newest value signalled */
	uint64_t reads;               /* rxvk_invalidate calls */
	uint64_t reads_waited;
	uint64_t read_wait_ns;
	uint64_t reads_early;         /* waited for the writer's part (or its marker) */
	uint64_t reads_early_wait_ns;
	uint64_t reads_marker;        /* of those, released by the writer's marker */
	uint64_t markers;             /* markers recorded after tracked writers */
	uint64_t parts_failed;        /* parts whose commands never ran, their changes undone */
	uint64_t replay_ns;           /* CPU time inside rxvk_submit */
	uint64_t part_record_ns;      /* parts: playing command lists into command buffers */
	uint64_t part_submit_ns;      /* parts: vkQueueSubmit */
	uint64_t part_publish_ns;     /* parts: publishing writes and reads to the page tables */
	uint64_t part_cmd_get_ns;     /* of part_record_ns: taking a command buffer */
	uint64_t part_play_ns;        /* of part_record_ns: the commands, between begin and end */
	uint64_t part_cmd_pools;      /* command pools made (each a chunk of 32 command buffers) */
	uint64_t part_cmd_pools_inline; /* of those, made while taking a command buffer (none ready) */
	uint64_t part_cmd_pool_ns;    /* of part_cmd_get_ns: making those */
	uint64_t part_cmd_pool_make_ns; /* making pools, on any thread */
	uint64_t part_cmd_pool_resets;  /* pools reset by the recycler (their parts ran) */
	uint64_t part_cmd_pool_reset_ns; /* the recycler's vkResetCommandPool */
	uint64_t reads_whole;         /* waited for the whole submission */
	uint64_t reads_whole_wait_ns;
	uint64_t reads_early_fallback;/* early on, writer not known: whole submission */
	uint64_t reads_late;          /* read at once by the late rule */
	uint64_t early_ranges;        /* ranges tracked by the early policy now */
	uint64_t early_pages_noted;   /* in-place writes noted for tracked pages */
	uint64_t captures;
	uint64_t captures_late;       /* captures that waited for late pages */
	uint64_t capture_wait_ns;
	uint64_t memsync_ns;          /* time in captures, waits included */
	uint64_t mirror_writebacks;   /* mirror -> guest copies (at part ends, or before markers) */
	uint64_t mirror_writebacks_marker; /* write-backs recorded inside a part before a marker */
	uint64_t mirror_blocks;       /* mirror blocks active */
	uint64_t in_place_writes;     /* op writes that went to guest memory directly */
	uint64_t target_writebacks;   /* frames written from a target to guest memory */
	uint64_t target_loads;        /* target images loaded from guest memory */
	uint64_t targets_cpu_stale;   /* target images made stale by the CPU's writes (rxvk_cpu_wrote) */
	uint64_t frames_real;
	uint64_t frames_shown;
	uint64_t frames_held;         /* RX_VK_HOLD_SWITCHED: frames kept at a switch */
	uint64_t frames_superseded;
	uint64_t frames_dropped;
	uint64_t frames_carried_touch;
	uint64_t frames_carried_op;
	uint64_t frames_written_at_once;
	uint64_t target_write_ns;     /* time writing targets back */
	uint64_t validation_messages; /* Khronos layer messages (warnings and errors) */
	uint64_t frame_log_rows;      /* RX_FRAME_LOG: rows written */
	uint64_t frame_log_ns;        /* RX_FRAME_LOG: presenter time formatting and writing them */
	uint64_t reads_poll_sleeps;   /* sleeps of reads polling for a part or marker, past their spin */
	uint64_t irq_cpu_moves;       /* RX_VK_OFF_IRQ_CPUS: times the recording threads' CPUs were set */
	uint64_t irq_looks;           /* RX_VK_OFF_IRQ_CPUS: looks at /proc/interrupts (the recycler's) */
};

void rxvk_counters_get(struct rxvk *rx, struct rxvk_counters *out);

/* ---- presentation ---------------------------------------------------------- */

/* A presented frame, given to the present callback on the presenter thread. */
struct rxvk_frame {
	uint64_t frame;         /* 1, 2, ... over real and shown frames */
	uint64_t present_ns;    /* CLOCK_MONOTONIC when its part was seen done */
	bool shown;             /* a generated frame */
	uint32_t width, height;
	enum rxvk_format format;
	const uint8_t *pixels;  /* tightly packed width * 4 bytes a row in `format`
	                           order, or NULL if no readback was requested */
};

typedef void (*rxvk_present_fn)(void *user, const struct rxvk_frame *frame);

/*
 * Calls fn for every presented frame, on the presenter thread, in order.
 * With want_pixels, every presented frame is copied back for it (costs a
 * copy a frame); rxvk_request_pixels() asks for the next one only.
 */
void rxvk_set_present_callback(struct rxvk *rx, rxvk_present_fn fn, void *user,
                               bool want_pixels);
void rxvk_request_pixels(struct rxvk *rx);

/* ---- windows ---------------------------------------------------------------- */

/*
 * Shows every presented frame in an X window as well, through an xcb
 * surface and a swapchain (IMMEDIATE present mode where the surface has it,
 * else FIFO).  xcb_connection is the game's xcb_connection_t *, which must
 * outlive rx; xcb_window the window's id.  The renderer was created with
 * window_xcb set (else -EINVAL).  Call it once (-EBUSY after), from the
 * thread that created rx, before the first submission.
 *
 * Each frame's pixels are then read back (the present callback's path) and,
 * on the presenter thread after the callback, copied into a swapchain image
 * (byte order converted, the top-left part kept when the window's size
 * differs; a window of size 0 shows nothing) and presented.  The swapchain
 * is made again when the surface says it is out of date.  A Vulkan failure
 * while showing a frame is logged (`window: ...`) and ends the showing; the
 * frames go on offscreen.  Returns 0; -EINVAL; -ENODEV when the device's
 * queue cannot present to the surface; -EIO for another Vulkan failure.
 * rxvk_destroy() releases the swapchain and the surface, never the window.
 */
int rxvk_window_attach_xcb(struct rxvk *rx, void *xcb_connection, uint32_t xcb_window);

/* ---- captured workloads: the binary stream ----------------------------------
 *
 * "RXVKSTRM", u32 version, then records: u32 tag 'SUBM', u32 op count, and
 * that many ops of 96 bytes, every field little-endian in struct order.
 */
struct rxvk_stream_sub {
	struct rxvk_op *ops;
	size_t n_ops;
};

/* Appends one submission to the malloc()ed *buf of *len bytes, the stream header
 * first when *len is 0; *buf is grown with realloc(). */
int rxvk_stream_encode(const struct rxvk_op *ops, size_t n_ops, uint8_t **buf,
                       size_t *len);

/*
 * Decodes a whole stream into submissions.  On error returns -EINVAL with
 * `error` (if given) holding "byte N: what".  *subs must be freed with
 * rxvk_stream_free().
 */
int rxvk_stream_decode(const uint8_t *buf, size_t len, struct rxvk_stream_sub **subs,
                       size_t *n_subs, char *error, size_t error_size);
void rxvk_stream_free(struct rxvk_stream_sub *subs, size_t n_subs);

#ifdef __cplusplus
}
#endif

#endif
