/* forest's private state: what the game's files (forest_game.c, the main
 * thread; forest_frame.c, the render thread; forest_jobs.c, the job
 * threads) share.  Nothing here is part of forest.h's contract. */
#ifndef FOREST_PRIVATE_H
#define FOREST_PRIVATE_H

#include "forest.h"

#include <pthread.h>

#define RING_SLOTS 4u          /* per-frame culling results kept */
#define LIST_BUFFERS 3u        /* instance-list buffers (frame % 3) */
#define CAMS 8u                /* camera ring (frame % 8) */
#define BLOCK_B 288u           /* camera block: 32 B header + 4 B per region */
#define JOB_SLOT_OFF_B 1024u   /* job results: two slots of 1 KiB after the block */
#define JOB_RESULT_B 64u       /* per job: 4 HUD quads */
#define MAX_JOBS 16u
#define QUAD_B 16u             /* the INSTANCED program's instance */
#define CHAR_QUADS 3u          /* shadow, body, head */
#define DIALOG_QUADS 4u

/* One INSTANCED instance: clip-space centre and half size, RGBA8 colour. */
struct quad {
	float x, y, size;
	uint32_t colour;
};

/* A projected quad with what orders it (far to near, or low to high). */
struct keyed {
	float key;
	uint32_t index;   /* the instance: breaks ties, so order never depends on jobs */
	struct quad q;
};

struct keyed_list {
	struct keyed *v;
	uint32_t n, cap;
};

/* Guest addresses, fixed at start. */
struct layout {
	uint64_t camera_page;   /* the camera block at +0, job results at +JOB_SLOT_OFF_B */
	uint64_t spheres;       /* the culling input: n_instances x 16 B */
	uint64_t ring;          /* RING_SLOTS results */
	uint64_t ring_slot_B;   /* page-rounded */
	uint64_t ring_result_B; /* 32 + 4 x n_instances */
	uint64_t lists;         /* LIST_BUFFERS buffers of list_B */
	uint64_t list_B;
	uint64_t list_main_off, list_refl_off, list_char_off, list_ground_off; /* in a buffer */
	uint64_t hud;           /* MAX_JOBS x JOB_RESULT_B, the HUD's copy */
	uint64_t dialog;        /* DIALOG_QUADS quads */
	uint64_t main[2];       /* real frames, alternating (frame generation blends the two) */
	uint64_t gen[2];        /* generated frames */
	uint64_t refl, mip1, mip2;
	uint32_t refl_w, refl_h, mip1_w, mip1_h, mip2_w, mip2_h;
	uint64_t end_B;
};

/* What one job thread hands the render thread for a frame. */
struct job_out {
	struct keyed_list main, refl;
	uint32_t regions_visible;
	uint64_t frame_used;      /* the culling frame read (the frame, or older when late) */
};

struct job_stats {
	uint64_t frames, reads, polls, late, part, whole, none;
	uint64_t wait_ns, slept_ns, cpu_ns;
};

struct job {
	struct forest *f;
	unsigned index;
	pthread_t thread;
	bool started;
	uint64_t done;            /* last frame finished (under f->lock) */
	struct job_out out;
	struct job_stats stats;   /* under f->lock */
};

struct shot_wait {
	uint64_t frame;
	char name[FOREST_SHOT_NAME_MAX + 1];
};

struct shot_job {
	uint64_t frame;
	char name[FOREST_SHOT_NAME_MAX + 1];
	uint32_t width, height;
	enum rxvk_format format;
	uint8_t *pixels;
	double luma;
	uint64_t checksum;
};

struct forest {
	struct forest_options opt;
	struct forest_log *log;
	struct rxvk *rx;
	uint8_t *guest;
	struct forest_world *world;
	struct forest_pad *pad;
	struct forest_window *window;  /* --window, else NULL */
	struct layout lay;
	float tan_half, aspect;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	int failed;               /* negative errno of a thread that failed */
	uint64_t wrong_data;      /* readback checks that failed */
	int wake_fd;              /* eventfd: the main thread has something to do */
	int signal_fd;
	int control_fd, control_keep_fd;
	char control_buf[512];
	size_t control_len;
	unsigned control_line;

	/* simulation, main thread; cameras published under lock */
	struct forest_sim sim;
	struct forest_camera cams[CAMS];
	uint64_t cam_ready;       /* cameras 0..cam_ready are in cams */
	uint64_t cam_wanted;

	/* render thread */
	pthread_t render_thread;
	bool render_started, render_exited;
	uint64_t kick;            /* frames kicked: the jobs work on frames < kick */
	uint64_t frames_submitted;
	uint64_t flips;           /* FLIPs recorded, = librxvk's frame numbers */
	struct job jobs[MAX_JOBS];
	struct keyed *merge_tmp;
	uint32_t merge_cap;
	uint64_t start_ns;
	uint64_t last_stats_frame;
	struct job_stats stats_base;

	/* presentation (presenter thread), under lock */
	uint64_t presented_real, presented_all;
	FILE *checksums;
	struct shot_wait *shot_waits;     /* frames a screenshot waits for */
	size_t n_shot_waits, cap_shot_waits;
	unsigned shots_requested;         /* pending for the next frame */
	char shot_names[16][FOREST_SHOT_NAME_MAX + 1];
	bool shot_by_number[16];
	/* shot writer thread */
	pthread_t writer_thread;
	bool writer_started;
	bool writer_stop;                 /* end once the queue is empty */
	struct shot_job *shot_jobs;
	size_t n_shot_jobs, cap_shot_jobs;
};

/* forest_jobs.c */
void *forest_job_main(void *arg);
void forest_keyed_sort(struct keyed *v, uint32_t n);
int forest_keyed_reserve(struct keyed_list *l, uint32_t n);

/* forest_frame.c */
void *forest_render_main(void *arg);
int forest_prologue(struct forest *f);
void forest_project_main(const struct forest *f, const struct forest_camera *cam, const float s[4],
                         uint32_t colour, uint8_t kind, uint32_t index, uint64_t frame,
                         struct keyed_list *out);
void forest_project_refl(const struct forest *f, const struct forest_camera *cam, const float s[4],
                         uint32_t colour, uint8_t kind, uint32_t index, struct keyed_list *out);

/* forest_game.c */
void forest_fail(struct forest *f, int rc);
void forest_wake_main(struct forest *f);
bool forest_camera_get(struct forest *f, uint64_t frame, struct forest_camera *out);
uint64_t forest_now_ns(void);

#endif
