/* report-png: a plot's SVG drawn into a PNG through librsvg and cairo
 * (Debian's librsvg2 and libcairo2), for the places that show no SVG: chat,
 * forums, mail, a forge comment's pictures.  It owns the size (the SVG's
 * viewBox at a scale) and the white background; the drawing is librsvg's,
 * the PNG encoding cairo's.  Nothing here rasterises by itself. */
#include "report-private.h"

#include <cairo.h>
#include <errno.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sink {
	FILE *f;
};

static cairo_status_t write_png(void *closure, const unsigned char *data, unsigned int length)
{
	struct sink *s = closure;
	return fwrite(data, 1, length, s->f) == length ? CAIRO_STATUS_SUCCESS
	                                               : CAIRO_STATUS_WRITE_ERROR;
}

int report_svg_to_png(const char *svg, size_t len, double scale, unsigned char **png,
                      size_t *png_len, char *errmsg, size_t errmsg_size)
{
	GError *gerr = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &gerr);
	if (!h) {
		snprintf(errmsg, errmsg_size, "librsvg cannot read the SVG: %s",
		         gerr ? gerr->message : "no reason given");
		if (gerr)
			g_error_free(gerr);
		return -EINVAL;
	}
	gboolean has_w, has_h, has_vb;
	RsvgLength w, hh;
	RsvgRectangle vb;
	rsvg_handle_get_intrinsic_dimensions(h, &has_w, &w, &has_h, &hh, &has_vb, &vb);
	double width = has_vb ? vb.width : 640, height = has_vb ? vb.height : 440;
	if (!(scale > 0))
		scale = 2;
	int pw = (int)ceil(width * scale), ph = (int)ceil(height * scale);
	int err = 0;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
	cairo_t *cr = cairo_create(surf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	RsvgRectangle viewport = { 0, 0, pw, ph };
	if (!rsvg_handle_render_document(h, cr, &viewport, &gerr)) {
		snprintf(errmsg, errmsg_size, "librsvg cannot draw the SVG: %s",
		         gerr ? gerr->message : "no reason given");
		if (gerr)
			g_error_free(gerr);
		err = -EINVAL;
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = err ? NULL : open_memstream(&buf, &n);
	if (!err && !mem)
		err = -ENOMEM;
	if (!err) {
		struct sink s = { mem };
		cairo_surface_flush(surf);
		cairo_status_t st = cairo_surface_write_to_png_stream(surf, write_png, &s);
		if (fclose(mem) != 0 || st != CAIRO_STATUS_SUCCESS) {
			snprintf(errmsg, errmsg_size, "cairo cannot write the PNG: %s",
			         cairo_status_to_string(st));
			err = -EIO;
		}
	}
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
	g_object_unref(h);
	if (err) {
		free(buf);
		return err;
	}
	*png = (unsigned char *)buf;
	*png_len = n;
	return 0;
}
