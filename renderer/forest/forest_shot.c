/* forest_shot: what a screenshot needs: the control channel's line parser
 * (`shot NAME`), the frame checksum (FNV-1a 64 of the RGBA pixels), the mean
 * luma, and PNG writing through libpng into a temporary file renamed into
 * place.  It does not decide which frame is shot (forest_game.c does). */
#include "forest.h"

#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t forest_fnv1a64(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

uint64_t forest_frame_checksum(const uint8_t *px, uint32_t width, uint32_t height,
                               enum rxvk_format format)
{
	if (format != RXVK_FORMAT_BGRA8)
		return forest_fnv1a64(px, (size_t)width * height * 4);
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0, n = (uint64_t)width * height; i < n; i++) {
		const uint8_t *p = px + i * 4;
		h = (h ^ p[2]) * 0x100000001b3ull;
		h = (h ^ p[1]) * 0x100000001b3ull;
		h = (h ^ p[0]) * 0x100000001b3ull;
		h = (h ^ p[3]) * 0x100000001b3ull;
	}
	return h;
}

double forest_mean_luma(const uint8_t *px, uint32_t width, uint32_t height, enum rxvk_format format)
{
	uint64_t n = (uint64_t)width * height, sum = 0;
	int r = format == RXVK_FORMAT_BGRA8 ? 2 : 0, b = format == RXVK_FORMAT_BGRA8 ? 0 : 2;
	for (uint64_t i = 0; i < n; i++)
		sum += (uint64_t)(54 * px[i * 4 + r] + 183 * px[i * 4 + 1] + 19 * px[i * 4 + b]);
	return n ? (double)sum / 256.0 / (double)n : 0.0;
}

static int set_err(char *err, size_t size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t size, int rc, const char *fmt, ...)
{
	if (err && size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* ---- control lines ---- */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '_' || c == '-';
}

int forest_control_parse(const char *line, size_t len, unsigned lineno, struct forest_control *out,
                         char *err, size_t err_size)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && line[len - 1] == '\r')
		len--;
	if (i == len || line[i] == '#') {
		*out = (struct forest_control){ .kind = FOREST_CONTROL_NONE };
		return 0;
	}
	size_t w = i;
	while (w < len && line[w] != ' ' && line[w] != '\t')
		w++;
	if (w - i != 4 || memcmp(line + i, "shot", 4) != 0) {
		size_t shown = w - i > 32 ? 32 : w - i;
		for (size_t k = i; k < i + shown; k++)
			if ((unsigned char)line[k] < 0x20 || (unsigned char)line[k] >= 0x7f)
				return set_err(err, err_size, -EINVAL, "%u:%zu: unknown command (not printable)",
				               lineno, i + 1);
		return set_err(err, err_size, -EINVAL, "%u:%zu: unknown command '%.*s' (expected 'shot NAME')",
		               lineno, i + 1, (int)shown, line + i);
	}
	size_t n0 = w;
	while (n0 < len && (line[n0] == ' ' || line[n0] == '\t'))
		n0++;
	if (n0 == len)
		return set_err(err, err_size, -EINVAL, "%u:%zu: 'shot' needs a NAME", lineno, n0 + 1);
	if (line[n0] == '.')
		return set_err(err, err_size, -EINVAL, "%u:%zu: a shot name must not start with '.'", lineno,
		               n0 + 1);
	size_t n1 = n0;
	while (n1 < len && line[n1] != ' ' && line[n1] != '\t') {
		if (!name_char(line[n1]))
			return set_err(err, err_size, -EINVAL,
			               "%u:%zu: a shot name is letters, digits, '.', '_' and '-' only", lineno,
			               n1 + 1);
		n1++;
	}
	if (n1 - n0 > FOREST_SHOT_NAME_MAX)
		return set_err(err, err_size, -EINVAL, "%u:%zu: a shot name is at most %d characters", lineno,
		               n0 + 1, FOREST_SHOT_NAME_MAX);
	size_t t = n1;
	while (t < len && (line[t] == ' ' || line[t] == '\t'))
		t++;
	if (t != len)
		return set_err(err, err_size, -EINVAL, "%u:%zu: unexpected text after the shot name", lineno,
		               t + 1);
	out->kind = FOREST_CONTROL_SHOT;
	memcpy(out->name, line + n0, n1 - n0);
	out->name[n1 - n0] = '\0';
	return 0;
}

/* ---- PNG ---- */

struct png_failure {
	char msg[256];
};

static void png_error_fn(png_structp png, png_const_charp msg)
{
	struct png_failure *f = png_get_error_ptr(png);
	snprintf(f->msg, sizeof f->msg, "%s", msg);
	png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* libpng's error path longjmps: everything a longjmp could clobber lives
 * in the caller, passed in. */
static int encode(FILE *f, const uint8_t *px, uint32_t width, uint32_t height,
                  enum rxvk_format format, uint8_t *row, struct png_failure *fail)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, fail, png_error_fn, png_warning_fn);
	if (!png) {
		snprintf(fail->msg, sizeof fail->msg, "out of memory");
		return -ENOMEM;
	}
	png_infop info = png_create_info_struct(png);
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		snprintf(fail->msg, sizeof fail->msg, "out of memory");
		return -ENOMEM;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return -EIO;
	}
	png_init_io(png, f);
	png_set_compression_level(png, 1);
	png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (uint32_t y = 0; y < height; y++) {
		const uint8_t *src = px + (size_t)y * width * 4;
		if (format == RXVK_FORMAT_BGRA8) {
			for (uint32_t x = 0; x < width; x++) {
				row[x * 4 + 0] = src[x * 4 + 2];
				row[x * 4 + 1] = src[x * 4 + 1];
				row[x * 4 + 2] = src[x * 4 + 0];
				row[x * 4 + 3] = src[x * 4 + 3];
			}
			png_write_row(png, row);
		} else {
			png_write_row(png, src);
		}
	}
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return 0;
}

int forest_png_write(const char *path, const uint8_t *px, uint32_t width, uint32_t height,
                     enum rxvk_format format, char *err, size_t err_size)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 5);
	uint8_t *row = malloc((size_t)width * 4);
	if (!tmp || !row) {
		free(tmp);
		free(row);
		return set_err(err, err_size, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	int rc = 0;
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		rc = set_err(err, err_size, -errno, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	struct png_failure fail = { "" };
	rc = encode(f, px, width, height, format, row, &fail);
	if (rc < 0) {
		fclose(f);
		unlink(tmp);
		rc = set_err(err, err_size, rc, "cannot write '%s': %s", tmp, fail.msg);
		goto out;
	}
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		rc = set_err(err, err_size, -errno ? -errno : -EIO, "cannot write '%s': %s", tmp,
		             strerror(errno ? errno : EIO));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) != 0) {
		rc = set_err(err, err_size, -errno, "cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		rc = set_err(err, err_size, -errno, "cannot rename '%s' to '%s': %s", tmp, path,
		             strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	free(row);
	return rc;
}
