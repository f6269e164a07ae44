/* deck: facts about the host and readings of its sensors, for the harness.
 *
 * Everything comes from sysfs and procfs under a root folder ("/" unless a
 * test points it at a fake tree): the amdgpu card (busy %, shader clock,
 * hwmon power and temperatures), swap traffic, load, battery and AC, DMI,
 * os-release.  A source that is missing on this host is reported as
 * absent, with why, and never as a made-up 0.
 *
 * deck also forces the GPU clock for an arm condition through
 * power_dpm_force_performance_level (and pp_od_clk_voltage for a fixed
 * MHz), which needs write access to those files (root, or a udev rule).
 *
 * Fallible functions return 0 or a negative errno, write their output
 * parameters only on success, and leave a message in deck_errmsg().
 * A struct deck is used from one thread at a time.
 */
#ifndef RXDECK_DECK_H
#define RXDECK_DECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct deck;

struct deck_options {
	const char *root;  /* the folder holding sys/, proc/, etc/; NULL: "/" */
	const char *card;  /* DRM card to use ("card1"); NULL: the first card with a
	                      device/gpu_busy_percent (amdgpu) */
};

/*
 * Finds the host's sources (card, its hwmon, battery, AC) under the root.
 * Missing sources are not an error: their readings are absent.  Fails only
 * for a root that is not a readable folder (-ENOENT, -ENOTDIR, -EACCES), a
 * named card that does not exist (-ENODEV), or -ENOMEM; errmsg (may be NULL)
 * receives the reason.  opts NULL means defaults.  Released with
 * deck_destroy().
 */
int deck_create(const struct deck_options *opts, char *errmsg, size_t errmsg_size,
                struct deck **out);

/* NULL is a no-op. */
void deck_destroy(struct deck *d);

/* The last failure's message ("" when none), valid until the next call. */
const char *deck_errmsg(const struct deck *d);

/* The card in use ("card0"), or NULL when the host has no amdgpu card. */
const char *deck_card(const struct deck *d);

/* ---- readings -------------------------------------------------------- */

/* What one sample holds.  deck_reading_name() gives the name the harness
 * stores it under (results-db's sample name); units are in the names. */
enum deck_reading_id {
	DECK_GPU_BUSY_PCT = 0,   /* card/device/gpu_busy_percent, 0..100 */
	DECK_GPU_SCLK_MHZ,       /* card/device/pp_dpm_sclk, the line marked '*' */
	DECK_GPU_POWER_W,        /* the GPU alone: gpu_metrics average_gfx_power on an APU;
	                            a discrete card's hwmon power1_average, else power1_input
	                            (µW).  Absent on an APU without gpu_metrics: its hwmon
	                            power is the whole APU's (DECK_SOCKET_POWER_W) */
	DECK_GPU_TEMP_C,         /* hwmon temp labelled "edge", else the lowest temp*_input */
	DECK_GPU_TEMP_MAX_C,     /* the hottest of the hwmon's temp*_input */
	DECK_SWAP_IN_PAGES,      /* /proc/vmstat pswpin, a counter since boot */
	DECK_SWAP_OUT_PAGES,     /* /proc/vmstat pswpout */
	DECK_LOAD_1M,            /* /proc/loadavg */
	DECK_LOAD_5M,
	DECK_LOAD_15M,
	DECK_BATTERY_PCT,        /* power_supply of type Battery: capacity */
	DECK_BATTERY_DISCHARGING, /* 1 when its status is "Discharging", else 0 */
	DECK_AC_ONLINE,          /* power_supply of type Mains: online, 0 or 1 */
	DECK_SOCKET_POWER_W,     /* the whole APU (CPU + GPU + SoC): gpu_metrics
	                            average_socket_power, else an APU's hwmon power1_average
	                            (on Van Gogh labelled slowPPT) */
	DECK_CPU_POWER_W,        /* gpu_metrics average_cpu_power */
	DECK_GPU_ACTIVITY_PCT,   /* gpu_metrics average_gfx_activity, 0..100 */
	DECK_GPU_CLOCK_MHZ,      /* gpu_metrics current_gfxclk */
	DECK_SOC_TEMP_C,         /* gpu_metrics temperature_soc */
	DECK_THROTTLED_POWER,    /* 1 while gpu_metrics' power/current throttle bits are set */
	DECK_THROTTLED_THERMAL,  /* 1 while its temperature throttle bits are set */
	DECK_FAN_RPM,            /* steamdeck_hwmon fan1_input, else the card's hwmon fan1_input */
	DECK_POWER_CAP_W,        /* the card's hwmon power1_cap (µW): the TDP limit in force */
	DECK_N_READINGS
};

struct deck_reading {
	double value;  /* meaningful only when err == 0 */
	int err;       /* 0: read.  Else why it is absent: -ENOENT the host has no
	                  such source; -EACCES not readable; -EINVAL malformed
	                  (deck_errmsg() named the file:line:column); -EIO */
};

struct deck_sample {
	int64_t t_ns;  /* CLOCK_MONOTONIC when the sample was taken */
	struct deck_reading r[DECK_N_READINGS];
};

/* "gpu_busy_pct", "gpu_sclk_mhz", ..., NULL for an id out of range. */
const char *deck_reading_name(enum deck_reading_id id);

/* The file a reading comes from on this host, or NULL when the host has
 * none (for `rxdeck deck info`). */
const char *deck_reading_source(const struct deck *d, enum deck_reading_id id);

static inline bool deck_reading_present(const struct deck_sample *s, enum deck_reading_id id)
{
	return s->r[id].err == 0;
}

/*
 * Reads every source once into *out.  Always fills every reading (present
 * or absent with its reason), so it returns 0 unless out is NULL (-EINVAL).
 * When a source exists but is malformed, deck_errmsg() names it.  Costs a
 * few small file reads: fine at a few samples a second.
 */
int deck_sample(struct deck *d, struct deck_sample *out);

/* ---- GPU clock --------------------------------------------------------- */

/*
 * The card's power_dpm_force_performance_level: "auto", "low", "high",
 * "manual", "profile_standard", "profile_min_sclk", "profile_min_mclk",
 * "profile_peak".  get writes the current one into buf.  set accepts only
 * those names (-EINVAL otherwise).  -ENODEV without an amdgpu card; -EACCES
 * / -EPERM when not permitted: deck_errmsg() then says so and how to get
 * the permission.
 */
int deck_perf_level_get(struct deck *d, char *buf, size_t size);
int deck_perf_level_set(struct deck *d, const char *level);
/* 0 when level is one of those names, else -EINVAL with the names in
 * deck_errmsg(); writes nothing. */
int deck_perf_level_check(struct deck *d, const char *level);

/* The shader clock range the card accepts for a fixed clock, from
 * pp_od_clk_voltage's OD_RANGE "SCLK:" line.  -ENOENT without it. */
int deck_sclk_range_mhz(struct deck *d, unsigned *min_mhz, unsigned *max_mhz);

/*
 * Fixes the shader clock at mhz: level "manual", then pp_od_clk_voltage
 * "s 0 MHZ", "s 1 MHZ", "c" (the way SteamOS's GPU clock setting does it).
 * -ERANGE outside deck_sclk_range_mhz() when that is known.
 */
int deck_sclk_set_mhz(struct deck *d, unsigned mhz);

/*
 * The TDP limit: the card's hwmon power1_cap and its power1_cap_min/max,
 * in W (the files hold µW).  -ENOENT (with the file named) without them.
 */
int deck_tdp_get_w(struct deck *d, double *cap_w, double *min_w, double *max_w);

/*
 * Sets the TDP limit to watts: power1_cap, and power2_cap (Van Gogh's fast
 * limit) when the card has one, as SteamOS's own TDP setting does.
 * -ERANGE outside power1_cap_min..max; -EACCES/-EPERM with a message naming
 * the file when it is not writable.
 */
int deck_tdp_set_w(struct deck *d, double watts);

/* ---- D-Bus: logind's inhibitor (bus.c) ------------------------------------ */

struct deck_inhibitor;

/*
 * Takes logind's sleep and idle inhibitor ("sleep:idle", mode "block", who
 * "rxdeck", why) on the system bus.  It is held until
 * deck_inhibitor_release() or the process ends.  Fails with errmsg set
 * when the bus or logind is not there or refuses.
 */
int deck_inhibit(const char *why, struct deck_inhibitor **out, char *errmsg, size_t size);

/* Releases it; NULL is a no-op. */
void deck_inhibitor_release(struct deck_inhibitor *i);

/* ---- the route to the GPU clock and TDP (route.c) ---------------------- */

/*
 * The ways to the GPU performance level, the fixed shader clock and the TDP,
 * in the order they are asked for.  Each is found by asking: the D-Bus ones
 * by introspecting com.steampowered.SteamOSManager1 at
 * /com/steampowered/SteamOSManager1 (org.freedesktop.DBus.Introspectable),
 * on the session bus first, then on the system bus; the helper by its
 * presence; sysfs by a write check.
 */
enum deck_route_kind {
	DECK_ROUTE_NONE = 0,    /* nothing usable: the tries say why, each */
	DECK_ROUTE_SPLIT,       /* steamos-manager v25.1+: ...GpuPerformanceLevel1 (level "s")
	                           and ...TdpLimit1, with Min/Max properties */
	DECK_ROUTE_MANAGER,     /* v24.x: ...SteamOSManager1.Manager, "u"-coded properties,
	                           GpuPerformanceLevel/ManualGpuClock/TdpLimit or the earliest
	                           GPUPerformanceLevel/ManualGPUClock/TDPLimit */
	DECK_ROUTE_METHODS,     /* 2023 builds: com.steampowered.SteamOSManager1's methods
	                           SetGpuPerformanceLevel, SetGpuClocks, SetTDPLimit; current
	                           values are read from sysfs */
	DECK_ROUTE_PRIV_WRITE,  /* pkexec /usr/bin/steamos-polkit-helpers/steamos-priv-write
	                           PATH VALUE (Valve's polkit helper, any user) */
	DECK_ROUTE_SYSFS,       /* amdgpu's sysfs written directly (root, or a udev rule) */
};

/* "none", "split", "manager", "methods", "priv-write", "sysfs"; NULL out of range. */
const char *deck_route_kind_name(enum deck_route_kind kind);
/* The inverse (also "steamos-manager", the name older state files hold for
 * "split"); -EINVAL for anything else. */
int deck_route_kind_from_name(const char *name, enum deck_route_kind *out);

#define DECK_ROUTE_MAX_TRIES 10

/* One route asked, and why it was not taken ("" for the one taken). */
struct deck_route_try {
	char route[192];  /* "session bus steamos-manager", "system bus steamos-manager"
	                     (once taken: "system bus " and the interface),
	                     "pkexec steamos-priv-write", "sysfs" */
	char why[320];
};

/* The route found, what it serves, the ranges it accepts and where they
 * come from.  A range of 0..0 is not known. */
struct deck_route {
	enum deck_route_kind kind;
	char bus[8];            /* "session" or "system" for a D-Bus route, else "" */
	char interface[160];    /* the D-Bus interface(s), the helper's command, or the
	                           card's sysfs folder */
	char version[16];       /* steamos-manager's Version property ("7"); "" not served */
	char spelling[8];       /* DECK_ROUTE_MANAGER: "Gpu" or "GPU" (the earliest v24.x) */
	bool can_clock;         /* it sets the performance level and a fixed clock */
	bool can_tdp;           /* it sets the TDP */
	unsigned clock_min_mhz, clock_max_mhz;
	char clock_range_source[128]; /* "steamos-manager's ManualGpuClockMin/Max" ... */
	double tdp_min_w, tdp_max_w;
	char tdp_range_source[128];   /* "steamos-manager's TdpLimitMin/Max", "steamos-manager's
	                                 device table for Jupiter", "the kernel's power1_cap_min/max" */
	size_t n_tries;
	struct deck_route_try tries[DECK_ROUTE_MAX_TRIES]; /* in the order asked */
};

/*
 * Every route tried and not taken, and why, in one line ("session bus
 * steamos-manager: com.steampowered.SteamOSManager1 is not on it; system
 * bus steamos-manager: ...; pkexec steamos-priv-write: no /usr/bin/pkexec;
 * sysfs: ...: Read-only file system"), for messages.  Returns what
 * snprintf returns.
 */
int deck_route_tries_text(const struct deck_route *r, char *buf, size_t size);

/*
 * Test-only: $RXDECK_PRIV_WRITE, when set and not empty, names the program
 * run as `PROGRAM PATH VALUE` in place of `pkexec
 * /usr/bin/steamos-polkit-helpers/steamos-priv-write PATH VALUE`.  PATH is
 * always the host's path (/sys/class/hwmon/hwmonN/power1_cap), also under a
 * --root fake tree; a test helper maps it there.
 */
#define DECK_PRIV_WRITE_ENV "RXDECK_PRIV_WRITE"

/* ---- device state per arm (control.c) ----------------------------------- */

/* What the GPU level, clock and TDP were before rxdeck changed them. */
struct deck_control_state {
	char via[24];        /* deck_route_kind_name() of the route that set them: the
	                        route that puts them back */
	char level[32];      /* the performance level before; "" not known */
	unsigned clock_mhz;  /* the manual clock before; 0 not known */
	double tdp_w;        /* the TDP limit before; 0 not known */
};

struct deck_control;

struct deck_control_options {
	enum deck_route_kind only; /* DECK_ROUTE_NONE: ask every route in order; else that
	                              route alone (putting back through the route that set) */
	bool no_bus;               /* do not ask D-Bus (helper and sysfs only) */
	bool verify;               /* prove each route found with a no-op write
	                              (deck_control_noop_write) and go on to the next
	                              when it fails */
};

/*
 * Finds the route (see enum deck_route_kind) over d, which must outlive the
 * control.  Not finding one is not an error: the route's kind is then
 * DECK_ROUTE_NONE, its tries say why, and save/apply/noop fail naming
 * every route tried.  -ENOMEM only.  opts NULL means defaults.
 */
int deck_control_open(struct deck *d, const struct deck_control_options *opts,
                      struct deck_control **out);
/* deck_control_open() asking D-Bus when use_manager, else not. */
int deck_control_create(struct deck *d, bool use_manager, struct deck_control **out);
void deck_control_destroy(struct deck_control *c);
/* The route found (never NULL for a control). */
const struct deck_route *deck_control_route(const struct deck_control *c);
/* deck_route_kind_name() of the route found. */
const char *deck_control_via(const struct deck_control *c);
const char *deck_control_errmsg(const struct deck_control *c);

/*
 * Whether a request fits the route's ranges, before anything is set:
 * -ERANGE with a message naming the range and its source ("16 W is outside
 * 3 to 15 W, steamos-manager's TdpLimitMin/Max"); -EOPNOTSUPP when the
 * route cannot set it; -ENODEV without a route (the message names every
 * route tried).  0 for gpu_clock_mhz 0 and tdp_w 0 (nothing asked).
 */
int deck_control_check(struct deck_control *c, unsigned gpu_clock_mhz, double tdp_w);

/*
 * A write that changes nothing, to prove the route works: reads the TDP and
 * the performance level through the route and writes each value read back
 * through it.  what (may be NULL) receives what was written ("TdpLimit 15
 * W, GpuPerformanceLevel 'auto' written back through the session bus").
 * Fails with the route's refusal, or -ENODEV without a route.
 */
int deck_control_noop_write(struct deck_control *c, char *what, size_t size);

/*
 * The GPU performance level through the route: steamos-manager's property
 * where its era can be read, else the card's sysfs file (the 2023 era, the
 * helper, sysfs, and no route at all: reading needs no permission).
 */
int deck_control_level_get(struct deck_control *c, char *buf, size_t size);
/*
 * Sets the performance level through the route.  The v24.x and 2023 eras
 * code auto, low, high, manual and profile_peak only (-EINVAL, naming
 * them, for another); -ENODEV without a route (the message names every
 * route tried).
 */
int deck_control_level_set(struct deck_control *c, const char *level);

int deck_control_save(struct deck_control *c, struct deck_control_state *out);
/* Sets what is asked: gpu_clock_mhz 0 and tdp_w 0 leave that alone. */
int deck_control_apply(struct deck_control *c, unsigned gpu_clock_mhz, double tdp_w);
/* Puts back what was saved, through the route that saved it (s->via); tries
 * every part, returns the first failure.  -ENOENT when that route is not
 * this control's. */
int deck_control_restore(struct deck_control *c, const struct deck_control_state *s);
/* The state file (written atomically; read back with file:line:column
 * errors; -ENOENT when there is none). */
int deck_control_state_write(const char *path, const struct deck_control_state *s);
int deck_control_state_read(const char *path, struct deck_control_state *out, char *errmsg,
                            size_t size);

/* ---- host facts -------------------------------------------------------- */

/* Facts that stay put while the host runs.  Each string is malloc'd, or
 * NULL when this host does not say (never made up). */
struct deck_facts {
	char *device_model;   /* "Steam Deck LCD" (DMI Jupiter), "Steam Deck OLED"
	                         (Galileo), else the DMI product name */
	char *dmi_vendor;     /* /sys/class/dmi/id/sys_vendor */
	char *dmi_product;    /* /sys/class/dmi/id/product_name, as is */
	char *host;           /* /proc/sys/kernel/hostname */
	char *kernel;         /* /proc/sys/kernel/osrelease (uname -r) */
	char *os;             /* /etc/os-release PRETTY_NAME */
	char *os_version;     /* VERSION_ID ("3.6.19") */
	char *os_build;       /* BUILD_ID ("20241001.1") */
	char *cpu;            /* /proc/cpuinfo "model name" */
	int64_t memory_B;     /* /proc/meminfo MemTotal; -1 when not known */
	char *gpu_driver;     /* the card's kernel driver ("amdgpu") */
	char *gpu_pci_id;     /* "1002:163f" */
	/* Mesa: the package database under the root (pacman's local/mesa-*,
	 * dpkg's mesa-vulkan-drivers), which says what is installed.  The
	 * version actually loaded is in the Vulkan driver info the renderer
	 * reports ("Mesa 24.1.3"): callers that have it overwrite this with
	 * deck_mesa_from_driver_info(). */
	char *mesa;
	char *mesa_source;    /* "holo pacmandb", "pacman", "dpkg", "vulkan driver info" */
	bool apu;             /* the card is an APU (gpu_metrics format 2, or hwmon power
	                         labelled slowPPT): its hwmon power is socket power */
	char *gpu_metrics;    /* "v2.2" when the card has a readable gpu_metrics */
	int64_t swap_total_B; /* /proc/meminfo SwapTotal (zram included); -1 not known */
	int swappiness;       /* /proc/sys/vm/swappiness; -1 not known */
	int64_t zram_B;       /* sum of /sys/block/zram* disksize; 0 none, -1 not known */
	char *zram_algorithm; /* the first zram device's comp_algorithm in use ("zstd") */
	int64_t vram_B;       /* the card's mem_info_vram_total: on an APU the carve-out
	                         (UMA frame buffer) set in the firmware; -1 not known */
	char *display;        /* the connected connector whose EDID gave the mode, "eDP-1" */
	unsigned display_width, display_height; /* its preferred mode; 0 not known */
	double display_refresh_hz; /* the preferred mode's refresh; 0 not known.  The
	                              rate gamescope set is not visible in sysfs */
};

/* Reads the facts.  Returns 0 with whatever was found (absent ones NULL),
 * -ENOMEM.  Release with deck_facts_finish(). */
int deck_facts_read(struct deck *d, struct deck_facts *out);

/* Frees the strings and zeroes *f; NULL is a no-op. */
void deck_facts_finish(struct deck_facts *f);

/* The device model for a DMI product name: "Jupiter" -> "Steam Deck LCD",
 * "Galileo" -> "Steam Deck OLED", anything else as is. */
const char *deck_model_from_dmi(const char *product_name);

/* The Mesa version in a Vulkan driver info string ("Mesa 24.1.3-arch1.1"
 * -> "24.1.3-arch1.1").  -ENOENT when it does not name Mesa.  *out malloc'd. */
int deck_mesa_from_driver_info(const char *driver_info, char **out);

#ifdef __cplusplus
}
#endif

#endif
