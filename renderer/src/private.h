/* librxvk's core: struct rxvk (the device, guest memory, the timeline and
 * the page tables every part publishes to), settings, the log, the device
 * and guest memory.  Each other owner has its own header and keeps its
 * state opaque where others need only its functions: pages.h (readback.c:
 * the reads, the early table, the writers' diagnostics), recorder.h
 * (cmdlist.c, record.c: part command lists and their recording), replay.h
 * (replay.c: ops to parts, render targets), hold.h (hold.c), present.h
 * (present.c, window.c).  Nothing here is visible to the game; rxvk.h is
 * the public contract. */
#ifndef RXVK_PRIVATE_H
#define RXVK_PRIVATE_H

#include "rxvk.h"
#include "pages.h"
#include "present.h"

#include <pthread.h>
#include <stdio.h>
#include <volk.h>

#define MIRROR_BLOCK_B (1u << 20)      /* mirror activation granularity */
#define PAGES_PER_BLOCK (MIRROR_BLOCK_B / RXVK_PAGE_SIZE_B)
#define SUB_RING 4096u                 /* submissions remembered (in flight at most) */

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
	bool sync2;                     /* synchronization2 enabled (vkCmdSetEvent2) */
	VkDriverId driver_id;

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

	/* record.c: command pools and the recording threads */
	struct recorder *recorder;
	struct irq_watch *irq_watch;    /* irq.c: RX_VK_OFF_IRQ_CPUS=1, else NULL */

	/* Page tables, under `lock`.  Values are submission numbers and
	 * timeline values; 0 means never. */
	pthread_mutex_t lock;
	pthread_cond_t sub_done_recording;
	uint64_t *page_writer;          /* newest submission that wrote the page */
	uint64_t *page_final;           /* value after which its newest write is in guest memory */
	uint64_t *page_reader;          /* newest submission that reads the page */
	uint64_t *cpu_dirty;            /* bitmap: written by the CPU since the last capture */
	uint64_t *page_in_place;        /* bitmap: the newest write went to guest memory directly */
	struct readback *rb;            /* readback.c: the early table, the writers' diagnostics */
	uint64_t late_value;            /* the next capture waits for this value */
	uint64_t late_sub;              /* ... or for this submission, still recording */
	struct sub_info subs[SUB_RING];
	uint64_t sub_count;             /* submissions begun */

	/* replay.c: the render targets, render thread only */
	struct replay *replay;

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

	/* test hooks (tests/test-rxvk-*.c set them; 0 = off), render thread */
	struct {
		uint64_t op_delay_ns;       /* sleep after recording each op ... */
		uint32_t op_delay_from;     /* ... from this op index of a submission on */
		uint32_t fail_op;           /* recording op fail_op - 1 of a submission fails */
		uint64_t fail_record_value; /* playing the part of this value fails */
		uint64_t fail_submit_value; /* submitting the part of this value fails */
		bool fail_signal;           /* vkSignalSemaphore of a failed part fails */
		/* gates the GPU waits at: before op gate_op[i] - 1 of a
		 * submission a wait for gate_event[i] (host-set) is recorded, so
		 * everything after it stays pending until the test sets the
		 * event; a read that has decided to wait sets every gate_event[i]
		 * whose bit i is in gate_at_wait as it starts waiting */
		uint32_t gate_op[3];
		VkEvent gate_event[3];
		/* set by the test: held around every host use of a gate_event
		 * here (vkSetEvent, and recording the wait for one), as the
		 * test holds it around its own; an event's host access is
		 * externally synchronized, and the validation layer caught a
		 * read's vkSetEvent beside a recording thread's vkCmdWaitEvents
		 * of the same event under load */
		pthread_mutex_t *gate_lock;
		uint32_t gate_at_wait;
		uint32_t gate_waits;        /* atomic: reads that started waiting with gate_at_wait */
		/* the recording stops after op hold_after_op - 1 of a submission
		 * while hold_recording is set (atomic; the test clears it), 30 s
		 * at most, so a test knows the recording is still going on */
		uint32_t hold_after_op;
		bool hold_recording;
		/* the pause leaves the parts handed over to the recording threads
		 * (no drain first): they are submitted as those threads get to them */
		bool hold_no_drain;
		/* the recycler makes no chunk of command buffers ahead: every
		 * chunk beyond the first ones is made on the recording path */
		bool no_chunks_ahead;
		/* RX_VK_OFF_IRQ_CPUS reads this file for /proc/interrupts
		 * (atomic: a new one is a first look), and looks this often
		 * rather than every RXVK_IRQ_EVERY_NS (atomic) */
		const char *irq_table;
		uint64_t irq_every_ns;
	} test;
	uint64_t unsignalled;           /* atomic: a value a failed part could not signal, 0 none */
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
/* A mapped, coherent memory type for what the CPU reads (`what`, for the log
 * line saying which type was taken): host-cached where the device has one
 * among `bits`, since uncached (write-combined) memory is slow to read. */
int rxvk_find_cpu_read_type(struct rxvk *rx, uint32_t bits, const char *what, uint32_t *out);

/* memory.c */
int rxvk_memory_init(struct rxvk *rx);
void rxvk_memory_finish(struct rxvk *rx);
uint64_t rxvk_timeline_done(struct rxvk *rx);
int rxvk_timeline_wait(struct rxvk *rx, uint64_t value);


#endif
