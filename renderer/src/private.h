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

/* What a part has recorded so far. */
struct part {
	VkCommandBuffer cmd;
	uint64_t value;        /* timeline value it signals */
	uint32_t ops;
	bool rendering;        /* inside vkCmdBeginRendering */
	/* mirror pages this part wrote: written back at its end */
	uint64_t *wb_pages;
	size_t n_wb, cap_wb;
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

	/* command buffers, render thread only */
	VkCommandPool pool;
	struct cmd_slot *cmds;
	size_t n_cmds, cap_cmds;

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

	/* per-frame accumulators for the frame log */
	uint64_t frame_rb_wait_ns;      /* atomic */
	uint64_t frame_memsync_ns;
	uint64_t frame_draws;
	uint64_t frame_count;

	struct presenter present;
	struct rxvk_counters counters;

	FILE *log;
	bool log_timestamps;
	pthread_mutex_t log_lock;
	pthread_mutex_t summary_lock;
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

/* replay.c */
int rxvk_replay_init(struct rxvk *rx);
void rxvk_replay_finish(struct rxvk *rx);

/* readback.c */
void rxvk_early_note(struct rxvk *rx, const struct write_note *w, uint64_t sub, uint64_t part);
bool rxvk_early_writes_tracked_bytes(struct rxvk *rx, const struct rxvk_range *w);
int rxvk_readback_init(struct rxvk *rx);
void rxvk_readback_finish(struct rxvk *rx);
int rxvk_capture(struct rxvk *rx, VkCommandBuffer cmd, uint64_t sub);
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub);

/* present.c */
int rxvk_present_init(struct rxvk *rx);
void rxvk_present_finish(struct rxvk *rx);
int rxvk_present_slot_acquire(struct rxvk *rx, uint32_t width, uint32_t height);
void rxvk_present_push(struct rxvk *rx, const struct present_item *item);
bool rxvk_present_wants_pixels(struct rxvk *rx);

#endif
