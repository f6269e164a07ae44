/* forest_window: rxdeck-forest's X window for --window.  It owns the xcb
 * connection (the display named by DISPLAY), one window of the render size
 * titled "rxdeck-forest", and its WM_DELETE_WINDOW protocol; the main loop
 * polls its descriptor and stops when the window is closed.  The renderer
 * draws into it (rxvk_window_attach_xcb). */
#include "forest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

#define TITLE "rxdeck-forest"

struct forest_window {
	xcb_connection_t *conn;
	xcb_window_t window;
	xcb_atom_t protocols, delete_window;
};

static const char *conn_error(int code)
{
	switch (code) {
	case XCB_CONN_ERROR:
		return "no X server answers there";
	case XCB_CONN_CLOSED_EXT_NOTSUPPORTED:
		return "an extension is not supported";
	case XCB_CONN_CLOSED_MEM_INSUFFICIENT:
		return "out of memory";
	case XCB_CONN_CLOSED_REQ_LEN_EXCEED:
		return "request too long";
	case XCB_CONN_CLOSED_PARSE_ERR:
		return "the display name cannot be parsed";
	case XCB_CONN_CLOSED_INVALID_SCREEN:
		return "the display has no such screen";
	default:
		return "connection failed";
	}
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r =
		xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

int forest_window_create(uint32_t width, uint32_t height, char *err, size_t err_size,
                         struct forest_window **out)
{
	const char *display = getenv("DISPLAY");
	if (!display || !display[0]) {
		snprintf(err, err_size, "cannot open display '': DISPLAY is not set");
		return -ENXIO;
	}
	int screen_no = 0;
	xcb_connection_t *c = xcb_connect(display, &screen_no);
	int code = xcb_connection_has_error(c);
	if (code) {
		snprintf(err, err_size, "cannot open display '%s': %s", display, conn_error(code));
		xcb_disconnect(c);
		return -ENXIO;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
	for (int i = 0; i < screen_no && it.rem; i++)
		xcb_screen_next(&it);
	if (!it.rem) {
		snprintf(err, err_size, "cannot open display '%s': it has no screen %d", display, screen_no);
		xcb_disconnect(c);
		return -ENXIO;
	}
	struct forest_window *w = calloc(1, sizeof *w);
	if (!w) {
		xcb_disconnect(c);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	w->conn = c;
	w->window = xcb_generate_id(c);
	uint32_t values[] = { it.data->black_pixel, XCB_EVENT_MASK_STRUCTURE_NOTIFY };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, w->window, it.data->root, 0, 0, (uint16_t)width,
	                  (uint16_t)height, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, it.data->root_visual,
	                  XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, w->window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
	                    (uint32_t)strlen(TITLE), TITLE);
	w->protocols = atom(c, "WM_PROTOCOLS");
	w->delete_window = atom(c, "WM_DELETE_WINDOW");
	if (w->protocols != XCB_ATOM_NONE && w->delete_window != XCB_ATOM_NONE)
		xcb_change_property(c, XCB_PROP_MODE_REPLACE, w->window, w->protocols, XCB_ATOM_ATOM, 32, 1,
		                    &w->delete_window);
	xcb_map_window(c, w->window);
	if (xcb_flush(c) <= 0 || (code = xcb_connection_has_error(c)) != 0) {
		snprintf(err, err_size, "cannot open a window on display '%s': %s", display,
		         conn_error(code ? code : XCB_CONN_ERROR));
		forest_window_destroy(w);
		return -EIO;
	}
	*out = w;
	return 0;
}

void forest_window_destroy(struct forest_window *w)
{
	if (!w)
		return;
	if (w->window && !xcb_connection_has_error(w->conn)) {
		xcb_destroy_window(w->conn, w->window);
		xcb_flush(w->conn);
	}
	xcb_disconnect(w->conn);
	free(w);
}

int forest_window_fd(const struct forest_window *w)
{
	return w ? xcb_get_file_descriptor(w->conn) : -1;
}

void *forest_window_connection(const struct forest_window *w)
{
	return w->conn;
}

uint32_t forest_window_id(const struct forest_window *w)
{
	return w->window;
}

bool forest_window_events(struct forest_window *w)
{
	if (!w)
		return false;
	bool close = false;
	xcb_generic_event_t *e;
	while ((e = xcb_poll_for_event(w->conn)) != NULL) {
		if ((e->response_type & 0x7f) == XCB_CLIENT_MESSAGE) {
			xcb_client_message_event_t *cm = (xcb_client_message_event_t *)e;
			if (cm->type == w->protocols && cm->format == 32 && cm->data.data32[0] == w->delete_window)
				close = true;
		} else if ((e->response_type & 0x7f) == XCB_DESTROY_NOTIFY) {
			close = true;
		}
		free(e);
	}
	return close || xcb_connection_has_error(w->conn) != 0;
}
