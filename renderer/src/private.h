/* librxvk's private state: the structures every renderer file shares.
 * Nothing here is visible to the game; rxvk.h is the public contract. */
#ifndef RXVK_PRIVATE_H
#define RXVK_PRIVATE_H

#include "rxvk.h"

#include <pthread.h>
#include <stdio.h>
#include <volk.h>

#define MIRROR_BLOCK_B (1u << 20)      /* mirror activation granularity */
#define PAGES_PER_BLOCK (MIRROR_BLOCK_B / RXVK_PAGE_SIZE_B)
#define SUB_RING 4096u                 /* submissions remembered (in flight at most) */
#define MAX_TARGETS 32u
#define EARLY_RANGES 64u               /* ranges the early policy tracks at most */
#define PRESENT_SLOTS 4u
#define MAX_OP_COUNT (1u << 20)        /* instances or workgroups an op may ask for */
#define MAX_TARGET_DIM 16384u

/* Places that fail say so once, with file and line, and carry the code up. */
#define vk_check(rx, call) rxvk_vk_check((rx), (call), #call, __FILE__, __LINE__)

#define CNT_ADD(rx, field, v) __atomic_fetch_add(&(rx)->counters.field, (uint64_t)(v), __ATOMIC_RELAXED)
#define CNT_SET(rx, field, v) __atomic_store_n(&(rx)->counters.field, (uint64_t)(v), __ATOMIC_RELAXED)

enum program_id {
	PROG_CULL,
	PROG_SPIN,
	PROG_INSTANCED,
	PROG_TEXTURED,
	PROG_COUNT,
};

enum target_variant { VARIANT_RGBA8, VARIANT_BGRA8, VARIANT_DEPTH, VARIANT_COUNT };

struct program {
	uint64_t hash;
	const char *name;
	bool compute;
	VkPipeline pipeline[VARIANT_COUNT]; /* compute programs use [0] */
};

/* Push constants, the same block every program declares (common.glsl). */
struct op_push {
	uint64_t read0, read1, write;
	uint32_t params[RXVK_OP_PARAMS];
	uint32_t count;
};

/* Where a setting's value came from, for the switches line. */
enum setting_source { SRC_DEFAULT, SRC_FILE, SRC_ENV, SRC_CONFIG };

struct settings {
	struct rxvk_config cfg;  /* effective, no field left at 0 */
	enum setting_source src[32];
	char device[128];
	char log_path[512];
	char frame_log_path[512];
};

struct target {
	bool used;
	uint64_t addr;
	uint64_t size_B;       /* pitch_B * (height - 1) + width * 4 */
	uint32_t width, height, pitch_B;
	enum rxvk_format format;
	VkImage image;
	VkImageView view;
	VkDeviceMemory memory;
	bool image_valid;      /* the image holds what guest memory holds (or newer) */
	bool initialised;      /* layout moved out of UNDEFINED */
	bool pending;          /* drawn into since it was last written back */
	uint64_t last_use;     /* for replacing the least recently used */
};

/* A submission's span on the timeline, closed on every path that finishes
 * its recording (a burst's end included). */
struct sub_info {
	uint64_t id;          /* submission number, 0 = slot empty */
	uint64_t first_value;
	uint64_t last_value;  /* 0 while the submission is still recording */
	uint32_t ops;         /* its total work: ops recorded */
	uint32_t n_ops;       /* ops handed over */
};

struct present_slot {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *mapped;
	uint64_t size_B;
	bool busy;
};

struct present_item {
	uint64_t frame;
	uint64_t value;       /* timeline value after which the frame is done */
	bool shown;
	uint64_t draws;
	uint64_t rb_wait_ns;
	uint64_t memsync_ns;
	int slot;             /* present slot with pixels, -1 if none */
	uint32_t width, height;
	enum rxvk_format format;
};

struct presenter {
	pthread_t thread;
	bool running;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct present_item *queue;
	size_t head, tail, cap;      /* ring of present_items */
	struct present_slot slots[PRESENT_SLOTS];
	unsigned next_slot;
	FILE *frame_log;
	char *rows;                  /* frame log rows not yet written */
	size_t rows_len, rows_cap;
	uint64_t last_flush_ns;
	uint64_t prev_real_ns, prev_any_ns;
	rxvk_present_fn fn;
	void *user;
	bool want_pixels;
	bool pixels_once;
	struct window *window;       /* window.c's, or NULL: set under lock, read atomically */
	uint64_t luma_prev2, luma_prev1; /* flash detector: two frames back, one back */
	uint64_t frame_prev1;
	bool have_prev1, have_prev2;
};

/* One GPU write a part made, published to the page tables at its submit. */
struct write_note {
	uint64_t addr, size_B;
	bool in_place;         /* guest memory directly, not the mirror */
	uint32_t kind;         /* enum rxvk_op_kind; 0 for a target write-back */
	uint32_t op_index;     /* in its submission */
	uint64_t program;
};

/* Who wrote a page, for RX_VK_LOG_RB_WRITERS. */
struct page_writer_info {
	uint64_t sub;
	uint64_t part;
	uint64_t program;
	uint32_t kind;
	uint32_t op_index;
};

/* RX_VK_READBACK_EARLY's state (readback.c, replay.c), under rx->lock but
 * for `active`, which the render thread loads once per writing op. */
struct early_range {
	uint64_t addr, size_B;
	uint64_t seq;          /* when it was (re)learnt: the oldest is evicted */
};

struct early {
	bool on;               /* the switch is on and not left off (parallel) */
	int active;            /* a read of pages written in place has waited */
	struct early_range ranges[EARLY_RANGES];
	unsigned n_ranges;
	uint64_t seq;
	uint64_t *sub;         /* per page: submission of its newest noted write */
	uint64_t *part;        /* per page: that write's part (timeline value) */
};

/* RX_VK_LOG_RB_WRITERS's summary by read size. */
struct diag_size {
	uint64_t size_B;
	uint64_t waits, wait_ns, known, done_ns, bytes_changed, bytes_after, waits_after;
	uint64_t last_program;
	uint32_t last_kind;
	uint64_t last_program_count;
};

struct diag {
	bool on;
	struct page_writer_info *first, *last; /* per page, newest submission's */
	struct diag_size sizes[16];
	unsigned n_sizes;
	uint64_t reads_at_summary;
};

/* The commands of one part before they are a command buffer (cmdlist.c). */
struct cl_cmd;
struct cmdlist {
	struct cl_cmd *v;
	size_t n, cap;
	bool failed;           /* out of memory: the part fails when played */
};

struct range_list {
	struct rxvk_range *v;
	size_t n, cap;
};

struct write_list {
	struct write_note *v;
	size_t n, cap;
};

/* A part handed to the recorder (record.c): its commands, what it reads
 * and writes, and, once recorded, its command buffer. */
struct part_job {
	struct cmdlist cl;
	struct write_list writes;
	struct range_list reads;
	uint64_t sub;
	uint64_t value;        /* timeline value it signals */
	VkCommandBuffer cmd;
	int state;             /* JOB_QUEUED, JOB_RECORDED, or a negative errno */
	struct part_job *next;
};

enum { JOB_QUEUED = 0, JOB_RECORDED = 1 };

/* What a part has recorded so far. */
struct part {
	struct part_job *job;  /* its commands and notes */
	uint64_t value;        /* timeline value it signals */
	uint32_t ops;
	bool rendering;        /* inside a rendering instance */
	/* mirror pages this part wrote: written back at its end */
	uint64_t *wb_pages;
	size_t n_wb, cap_wb;
};

struct recorder_thread {
	pthread_t thread;
	VkCommandPool pool;
	struct cmd_slot *cmds;
	size_t n_cmds, cap_cmds;
	bool started;
};

/* Records parts into command buffers: inline when RX_VK_PARALLEL=1, on
 * RX_VK_PARALLEL threads otherwise; submits them in timeline order. */
struct recorder {
	unsigned n_threads;
	struct recorder_thread *threads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct part_job *head, *tail;   /* submitted in this order */
	struct part_job *todo;          /* next job no thread has taken */
	struct part_job *free_jobs;
	bool stop;
};

struct cmd_slot {
	VkCommandBuffer cmd;
	uint64_t value;        /* free once the timeline reaches it */
};

struct rxvk {
	struct settings set;
	struct rxvk_device_info info;

	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice phys;
	VkDevice device;
	VkQueue queue;
	uint32_t queue_family;
	pthread_mutex_t queue_lock;     /* vkQueueSubmit from more than one thread */
	VkPhysicalDeviceMemoryProperties mem_props;
	PFN_vkCmdBeginRenderingKHR begin_rendering;
	PFN_vkCmdEndRenderingKHR end_rendering;

	VkPipelineLayout layout;
	struct program programs[PROG_COUNT];

	/* guest memory */
	uint8_t *guest;
	uint64_t guest_size_B;
	uint64_t n_pages;
	bool guest_mmapped;
	VkDeviceMemory guest_memory;
	VkBuffer guest_buffer;
	VkDeviceAddress guest_addr;
	bool guest_coherent;

	/* mirror (discrete GPUs) */
	bool mirrored;
	VkDeviceMemory mirror_memory;
	VkBuffer mirror_buffer;
	VkDeviceAddress mirror_addr;
	uint8_t *block_state;           /* BLOCK_* per MIRROR_BLOCK_B */

	/* timeline */
	VkSemaphore timeline;
	uint64_t next_value;            /* last value handed to a part */

	/* command buffers: the render thread's pool, and the recorder's */
	VkCommandPool pool;
	struct cmd_slot *cmds;
	size_t n_cmds, cap_cmds;
	struct recorder recorder;

	/* Page tables, under `lock`.  Values are submission numbers and
	 * timeline values; 0 means never. */
	pthread_mutex_t lock;
	pthread_cond_t sub_done_recording;
	uint64_t *page_writer;          /* newest submission that wrote the page */
	uint64_t *page_final;           /* value after which its newest write is in guest memory */
	uint64_t *page_reader;          /* newest submission that reads the page */
	uint64_t *cpu_dirty;            /* bitmap: written by the CPU since the last capture */
	uint64_t *page_in_place;        /* bitmap: the newest write went to guest memory directly */
	struct early early;
	struct diag diag;
	uint64_t late_value;            /* the next capture waits for this value */
	uint64_t late_sub;              /* ... or for this submission, still recording */
	struct sub_info subs[SUB_RING];
	uint64_t sub_count;             /* submissions begun */

	/* targets, render thread only */
	struct target targets[MAX_TARGETS];
	int current_target;             /* index, -1 if none */
	uint64_t target_clock;

	/* hold.c: frames let go of, kept until read (DESIGN 3.3) */
	struct hold *hold;

	/* per-frame accumulators for the frame log */
	uint64_t frame_rb_wait_ns;      /* atomic */
	uint64_t frame_memsync_ns;
	uint64_t frame_draws;
	uint64_t frame_count;

	struct presenter present;
	struct window *window;          /* window.c: an attached window, or NULL */
	struct rxvk_counters counters;

	FILE *log;
	bool log_timestamps;
	pthread_mutex_t log_lock;
	pthread_mutex_t summary_lock;
	uint64_t summary_at_ns;         /* when the last readbacks summary was logged */
	struct rxvk_counters summary_base; /* counters at the last summary line */
};

enum block_state { BLOCK_IN_PLACE = 0, BLOCK_PENDING, BLOCK_ACTIVE };

/* settings.c */
int rxvk_settings_resolve(struct settings *set, const struct rxvk_config *config);
void rxvk_settings_log(struct rxvk *rx);

/* log.c */
void rxvk_log(struct rxvk *rx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rxvk_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int rxvk_vk_check(struct rxvk *rx, VkResult r, const char *call, const char *file, int line);
int rxvk_errno_from_vk(VkResult r);
uint64_t rxvk_now_ns(void);

/* device.c */
int rxvk_device_init(struct rxvk *rx);
void rxvk_device_finish(struct rxvk *rx);
int rxvk_programs_init(struct rxvk *rx);
void rxvk_programs_finish(struct rxvk *rx);
const struct program *rxvk_program_find(const struct rxvk *rx, uint64_t hash);
int rxvk_find_memory_type(const struct rxvk *rx, uint32_t bits, VkMemoryPropertyFlags want,
                          uint32_t *out);

/* memory.c */
int rxvk_memory_init(struct rxvk *rx);
void rxvk_memory_finish(struct rxvk *rx);
uint64_t rxvk_timeline_done(struct rxvk *rx);
int rxvk_timeline_wait(struct rxvk *rx, uint64_t value);

/* cmdlist.c */
void cl_barrier(struct cmdlist *cl);
void cl_host_barrier(struct cmdlist *cl);
void cl_image_init(struct cmdlist *cl, VkImage image, VkImageAspectFlags aspect);
void cl_begin_rendering(struct cmdlist *cl, VkImageView view, uint32_t width, uint32_t height, bool depth);
void cl_end_rendering(struct cmdlist *cl);
void cl_viewport(struct cmdlist *cl, VkViewport vp, VkRect2D scissor);
void cl_bind(struct cmdlist *cl, VkPipelineBindPoint point, VkPipeline pipeline);
void cl_push(struct cmdlist *cl, const struct op_push *pc);
void cl_draw(struct cmdlist *cl, uint32_t vertices, uint32_t instances);
void cl_dispatch(struct cmdlist *cl, uint32_t groups);
void cl_copy_buffer(struct cmdlist *cl, VkBuffer src, VkBuffer dst, uint64_t src_offset,
                    uint64_t dst_offset, uint64_t size_B);
void cl_fill(struct cmdlist *cl, VkBuffer buffer, uint64_t offset, uint64_t size_B, uint32_t value);
void cl_image_to_buffer(struct cmdlist *cl, VkImage image, VkBuffer buffer, const VkBufferImageCopy *region);
void cl_buffer_to_image(struct cmdlist *cl, VkBuffer buffer, VkImage image, const VkBufferImageCopy *region);
void cl_clear_colour(struct cmdlist *cl, VkImage image, VkClearColorValue colour);
void cl_clear_depth(struct cmdlist *cl, VkImage image);
void cl_copy_image(struct cmdlist *cl, VkImage src, VkImage dst, const VkImageCopy *region);
void cl_reset(struct cmdlist *cl);
void cl_free(struct cmdlist *cl);
int cl_play(struct rxvk *rx, const struct cmdlist *cl, VkCommandBuffer cmd);

/* record.c */
int rxvk_recorder_init(struct rxvk *rx);
void rxvk_recorder_finish(struct rxvk *rx);
struct part_job *rxvk_recorder_job(struct rxvk *rx);
int rxvk_recorder_put(struct rxvk *rx, struct part_job *job);
int rxvk_recorder_drain(struct rxvk *rx);
int rxvk_cmd_get(struct rxvk *rx, VkCommandPool pool, struct cmd_slot **slots, size_t *n, size_t *cap,
                 uint64_t value, VkCommandBuffer *out);

/* replay.c */
int rxvk_replay_init(struct rxvk *rx);
void rxvk_replay_finish(struct rxvk *rx);

/* readback.c */
void rxvk_early_note(struct rxvk *rx, const struct write_note *w, uint64_t sub, uint64_t part);
void rxvk_publish(struct rxvk *rx, struct part_job *job);
bool rxvk_early_writes_tracked_bytes(struct rxvk *rx, const struct rxvk_range *w);
int rxvk_readback_init(struct rxvk *rx);
void rxvk_readback_finish(struct rxvk *rx);
int rxvk_capture(struct rxvk *rx, struct cmdlist *cl, uint64_t sub);
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub);

/* ---- hold.c: render-target frames written back only when read ----------
 * The render thread lets go of a target's frame with rxvk_hold_let_go() and
 * resolves held frames before an op reaches their memory with
 * rxvk_hold_settle(); rxvk_invalidate() carries them out with
 * rxvk_hold_invalidate().  Everything else is hold.c's. */
struct hold;

/* A colour target's frame as it lands in guest memory. */
struct hold_frame {
	uint64_t addr, size_B;     /* size_B = pitch_B * (height - 1) + width * 4 */
	uint32_t width, height, pitch_B;
	enum rxvk_format format;   /* RGBA8 or BGRA8: the byte order in memory */
};

int rxvk_hold_init(struct rxvk *rx);
void rxvk_hold_finish(struct rxvk *rx);

/* The pending frame of a target (its image `image`) is let go of by a
 * switch or a flip, in the part of value part_value being recorded into
 * cl.  part_busy: that part already reads or writes the frame's guest
 * pages.  Returns 1 when the frame is held (the copy into its snapshot is
 * recorded in cl, its pages guarded), 0 when the caller must write it back
 * at once (counted), or a negative errno.  Render thread. */
int rxvk_hold_let_go(struct rxvk *rx, struct cmdlist *cl, uint64_t part_value, const struct hold_frame *f,
                     VkImage image, bool part_busy);

/* Before an op of part part_value reads or writes guest bytes [addr,
 * addr + size_B): every held frame it reaches is carried out (waiting for
 * the carry-out thread), or, with drop_covered and the range covering the
 * frame, dropped.  A frame let go of in that same part is resolved in the
 * stream instead: the return is 1 with *out and *out_snapshot set, and the
 * caller records the write of that snapshot to guest memory (before the op)
 * and calls again; 0 once nothing is left; a negative errno.  Render thread. */
int rxvk_hold_settle(struct rxvk *rx, uint64_t part_value, uint64_t addr, uint64_t size_B, bool drop_covered,
                     struct hold_frame *out, VkImage *out_snapshot);

/* Carries out every held frame overlapping [addr, addr + size_B) and waits
 * for it.  Any thread but the carry-out thread. */
void rxvk_hold_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B);

/* A real frame was flipped (render thread): the first one starts the span
 * the exit summary's shares of frame time are taken over. */
void rxvk_hold_frame_presented(struct rxvk *rx);

/* Puts the guard handler back in front of whatever SIGSEGV handler is in
 * place now, which then gets every fault that is not a guard's (for code
 * that replaces handlers after the renderer was created, such as a test
 * runner).  Not while a fault is being handled.  0 or a negative errno. */
int rxvk_hold_handler_install(void);

/* present.c */
int rxvk_present_init(struct rxvk *rx);
void rxvk_present_finish(struct rxvk *rx);
int rxvk_present_slot_acquire(struct rxvk *rx, uint32_t width, uint32_t height);
void rxvk_present_push(struct rxvk *rx, const struct present_item *item);
bool rxvk_present_wants_pixels(struct rxvk *rx);

/* window.c: rxvk_window_attach_xcb's window.  rxvk_window_show() shows one
 * frame's pixels (tightly packed, `format` order); presenter thread only.
 * rxvk_window_finish() releases it, after the presenter thread ended. */
struct window;
void rxvk_window_show(struct rxvk *rx, struct window *w, const uint8_t *pixels, uint32_t width,
                      uint32_t height, enum rxvk_format format);
void rxvk_window_finish(struct rxvk *rx);

#endif
