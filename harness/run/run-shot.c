/* run-shot: a route shot of a game that does not write its own, taken from
 * its window under X.
 *
 * The game's window is found by walking the X server's window tree from
 * the root: a viewable window belongs to the game when the process that
 * owns it is in the game's process group (the launcher's, gamescope's and
 * the game's own processes all are).  The owner is read from the window's
 * _NET_WM_PID property, or, for programs that set none (vkcube, most xcb
 * programs), asked of the server through the X-Resource extension (the
 * client's pid, known for local clients).  The largest such window is
 * read with xcb_get_image into RGBA and written as a PNG; its luma and
 * checksum are then those of any shot PNG (run_png_stats(), run-collect.c).
 *
 * Without X (no DISPLAY: Wayland, gamescope's own session) there is no
 * window to read from outside the game: that is said as "unsupported: ..."
 * with the reason.  It owns nothing else: when to take a shot is
 * run-game.c's business.
 */
#include "run-private.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/res.h>
#include <xcb/xcb.h>

#define TREE_DEPTH_MAX 4

struct find {
	xcb_connection_t *conn;
	xcb_atom_t net_wm_pid;
	bool have_res;
	pid_t pgid;
	xcb_window_t best;
	uint32_t best_area;
	uint16_t w, h;
	uint8_t depth;
};

/* The pid of the process that owns the window: _NET_WM_PID, else XRes. */
static pid_t window_pid(struct find *f, xcb_window_t win)
{
	pid_t pid = 0;
	if (f->net_wm_pid != XCB_ATOM_NONE) {
		xcb_get_property_reply_t *p = xcb_get_property_reply(
			f->conn, xcb_get_property(f->conn, 0, win, f->net_wm_pid, XCB_ATOM_CARDINAL, 0, 1), NULL);
		if (p && p->format == 32 && xcb_get_property_value_length(p) >= 4)
			pid = (pid_t)*(uint32_t *)xcb_get_property_value(p);
		free(p);
	}
	if (pid > 0 || !f->have_res)
		return pid;
	xcb_res_client_id_spec_t spec = { .client = win, .mask = XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID };
	xcb_res_query_client_ids_reply_t *r =
		xcb_res_query_client_ids_reply(f->conn, xcb_res_query_client_ids(f->conn, 1, &spec), NULL);
	if (!r)
		return 0;
	for (xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(r); it.rem;
	     xcb_res_client_id_value_next(&it)) {
		if ((it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID) &&
		    xcb_res_client_id_value_value_length(it.data) >= 1)
			pid = (pid_t)*xcb_res_client_id_value_value(it.data);
	}
	free(r);
	return pid;
}

/* The tree under win: the largest viewable window of the game's group. */
static void walk(struct find *f, xcb_window_t win, int depth)
{
	xcb_query_tree_reply_t *t = xcb_query_tree_reply(f->conn, xcb_query_tree(f->conn, win), NULL);
	if (!t)
		return;
	xcb_window_t *kids = xcb_query_tree_children(t);
	int n = xcb_query_tree_children_length(t);
	for (int i = 0; i < n; i++) {
		xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(
			f->conn, xcb_get_window_attributes(f->conn, kids[i]), NULL);
		bool viewable = a && a->map_state == XCB_MAP_STATE_VIEWABLE &&
		                a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT;
		free(a);
		if (!viewable)
			continue;
		xcb_get_geometry_reply_t *g =
			xcb_get_geometry_reply(f->conn, xcb_get_geometry(f->conn, kids[i]), NULL);
		pid_t pid = g ? window_pid(f, kids[i]) : 0;
		uint32_t area = g ? (uint32_t)g->width * g->height : 0;
		if (pid > 0 && getpgid(pid) == f->pgid && area > f->best_area) {
			f->best = kids[i];
			f->best_area = area;
			f->w = g->width;
			f->h = g->height;
			f->depth = g->depth;
		}
		free(g);
		if (depth < TREE_DEPTH_MAX)
			walk(f, kids[i], depth + 1);
	}
	free(t);
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r =
		xcb_intern_atom_reply(c, xcb_intern_atom(c, 1, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

/* The bits per pixel the server uses for a depth (0: none). */
static uint8_t bits_per_pixel(xcb_connection_t *c, uint8_t depth)
{
	for (xcb_format_iterator_t it = xcb_setup_pixmap_formats_iterator(xcb_get_setup(c)); it.rem;
	     xcb_format_next(&it))
		if (it.data->depth == depth)
			return it.data->bits_per_pixel;
	return 0;
}

/* The window's pixels as RGBA into png_path. */
static int grab(struct find *f, const char *png_path, char *why, size_t why_size)
{
	uint8_t bpp = bits_per_pixel(f->conn, f->depth);
	const xcb_setup_t *setup = xcb_get_setup(f->conn);
	if ((f->depth != 24 && f->depth != 32) || bpp != 32 ||
	    setup->image_byte_order != XCB_IMAGE_ORDER_LSB_FIRST)
		return run_errf(why, why_size, -ENOTSUP,
		                "unsupported: the game's window has depth %u at %u bits a pixel (24 or 32 "
		                "at 32, little-endian, are read)",
		                f->depth, bpp);
	xcb_generic_error_t *e = NULL;
	xcb_get_image_reply_t *img = xcb_get_image_reply(
		f->conn,
		xcb_get_image(f->conn, XCB_IMAGE_FORMAT_Z_PIXMAP, f->best, 0, 0, f->w, f->h, ~0u), &e);
	if (!img) {
		int code = e ? e->error_code : 0;
		free(e);
		return run_errf(why, why_size, -EIO, "cannot read the game's window: X error %d", code);
	}
	size_t n = (size_t)f->w * f->h;
	const uint8_t *src = xcb_get_image_data(img);
	if ((size_t)xcb_get_image_data_length(img) < n * 4) {
		free(img);
		return run_errf(why, why_size, -EIO, "cannot read the game's window: a short image");
	}
	uint8_t *rgba = malloc(n * 4);
	if (!rgba) {
		free(img);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) { /* B, G, R, X in memory */
		rgba[i * 4] = src[i * 4 + 2];
		rgba[i * 4 + 1] = src[i * 4 + 1];
		rgba[i * 4 + 2] = src[i * 4];
		rgba[i * 4 + 3] = 255;
	}
	free(img);
	png_image pi;
	memset(&pi, 0, sizeof pi);
	pi.version = PNG_IMAGE_VERSION;
	pi.width = f->w;
	pi.height = f->h;
	pi.format = PNG_FORMAT_RGBA;
	int ok = png_image_write_to_file(&pi, png_path, 0, rgba, 0, NULL);
	free(rgba);
	if (!ok)
		return run_errf(why, why_size, -EIO, "cannot write shot '%s': %s", png_path, pi.message);
	return 0;
}

int run_window_shot(const char *display, pid_t pgid, const char *png_path, char *why,
                    size_t why_size)
{
	if (!display || !*display) {
		const char *wl = getenv("WAYLAND_DISPLAY");
		return run_errf(why, why_size, -ENOTSUP,
		                wl && *wl ? "unsupported: window shots need X, and the game runs under Wayland "
		                            "without it (WAYLAND_DISPLAY is set, DISPLAY is not); a game in "
		                            "gamescope's own session has no X window outside it either"
		                          : "unsupported: window shots need X (DISPLAY is not set)");
	}
	xcb_connection_t *c = xcb_connect(display, NULL);
	if (xcb_connection_has_error(c)) {
		xcb_disconnect(c);
		return run_errf(why, why_size, -ENOTSUP,
		                "unsupported: cannot connect to the X display '%s' for a window shot", display);
	}
	struct find f = { .conn = c, .pgid = pgid, .net_wm_pid = atom(c, "_NET_WM_PID") };
	const xcb_query_extension_reply_t *res = xcb_get_extension_data(c, &xcb_res_id);
	f.have_res = res && res->present;
	xcb_window_t root = xcb_setup_roots_iterator(xcb_get_setup(c)).data->root;
	walk(&f, root, 0);
	int rc;
	if (!f.best)
		rc = run_errf(why, why_size, -ENOENT,
		              "no window of the game's processes on the X display '%s' (none with their "
		              "_NET_WM_PID%s)",
		              display, f.have_res ? ", nor owned by them by X-Resource" : "; no X-Resource extension");
	else
		rc = grab(&f, png_path, why, why_size);
	xcb_disconnect(c);
	return rc;
}
