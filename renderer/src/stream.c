/* stream: the binary encoding of submissions, so a captured workload can
 * be replayed from a file.  "RXVKSTRM", u32 version, then records of u32
 * tag 'SUBM', u32 op count and that many 96-byte ops, little-endian, fields
 * in struct rxvk_op order.  Decoding checks every length and count before
 * trusting it and names the byte where a stream goes wrong. */
#include "rxvk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "RXVKSTRM"
#define TAG_SUBM 0x4d425553u /* 'SUBM' little-endian */
#define OP_SIZE_B 96u
#define MAX_STREAM_OPS (1u << 24)

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

int rxvk_stream_encode(const struct rxvk_op *ops, size_t n_ops, uint8_t **buf, size_t *len)
{
	if (!buf || !len || (!ops && n_ops) || n_ops > MAX_STREAM_OPS)
		return -EINVAL;
	size_t add = 8 + n_ops * OP_SIZE_B + (*len == 0 ? 12 : 0);
	uint8_t *b = realloc(*buf, *len + add);
	if (!b)
		return -ENOMEM;
	uint8_t *p = b + *len;
	if (*len == 0) {
		memcpy(p, MAGIC, 8);
		put32(p + 8, RXVK_OP_FORMAT_VERSION);
		p += 12;
	}
	put32(p, TAG_SUBM);
	put32(p + 4, (uint32_t)n_ops);
	p += 8;
	for (size_t i = 0; i < n_ops; i++, p += OP_SIZE_B) {
		const struct rxvk_op *op = &ops[i];
		put32(p, op->kind);
		put32(p + 4, op->count);
		put64(p + 8, op->program);
		for (int k = 0; k < 2; k++) {
			put64(p + 16 + 16 * k, op->read[k].addr);
			put64(p + 24 + 16 * k, op->read[k].size_B);
		}
		put64(p + 48, op->write.addr);
		put64(p + 56, op->write.size_B);
		for (int k = 0; k < RXVK_OP_PARAMS; k++)
			put32(p + 64 + 4 * k, op->params[k]);
	}
	*buf = b;
	*len += add;
	return 0;
}

void rxvk_stream_free(struct rxvk_stream_sub *subs, size_t n_subs)
{
	if (!subs)
		return;
	for (size_t i = 0; i < n_subs; i++)
		free(subs[i].ops);
	free(subs);
}

#define FAIL(at, ...)                                                       \
	do {                                                                \
		if (error && error_size) {                                  \
			int n_ = snprintf(error, error_size, "byte %zu: ", (size_t)(at)); \
			if (n_ > 0 && (size_t)n_ < error_size)              \
				snprintf(error + n_, error_size - (size_t)n_, __VA_ARGS__); \
		}                                                           \
		rc = -EINVAL;                                               \
		goto fail;                                                  \
	} while (0)

int rxvk_stream_decode(const uint8_t *buf, size_t len, struct rxvk_stream_sub **out_subs,
                       size_t *out_n, char *error, size_t error_size)
{
	struct rxvk_stream_sub *subs = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	if (!buf && len)
		return -EINVAL;
	if (len < 12 || memcmp(buf, MAGIC, 8) != 0)
		FAIL(0, "not an rxvk stream (no RXVKSTRM header)");
	uint32_t version = get32(buf + 8);
	if (version != RXVK_OP_FORMAT_VERSION)
		FAIL(8, "stream version %u, this build reads %u", version, RXVK_OP_FORMAT_VERSION);
	size_t at = 12;
	while (at < len) {
		if (len - at < 8)
			FAIL(at, "truncated record header (%zu bytes left)", len - at);
		uint32_t tag = get32(buf + at), count = get32(buf + at + 4);
		if (tag != TAG_SUBM)
			FAIL(at, "unknown record tag 0x%08x", tag);
		if (count > MAX_STREAM_OPS)
			FAIL(at + 4, "submission of %u ops (at most %u)", count, MAX_STREAM_OPS);
		if ((len - at - 8) / OP_SIZE_B < count)
			FAIL(at + 4, "submission of %u ops is truncated", count);
		if (n == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct rxvk_stream_sub *s = realloc(subs, c * sizeof *s);
			if (!s) {
				rc = -ENOMEM;
				goto fail;
			}
			subs = s;
			cap = c;
		}
		struct rxvk_op *ops = count ? calloc(count, sizeof *ops) : NULL;
		if (count && !ops) {
			rc = -ENOMEM;
			goto fail;
		}
		subs[n++] = (struct rxvk_stream_sub){ ops, count };
		const uint8_t *p = buf + at + 8;
		for (uint32_t i = 0; i < count; i++, p += OP_SIZE_B) {
			struct rxvk_op *op = &ops[i];
			op->kind = get32(p);
			if (op->kind < RXVK_OP_SET_TARGET || op->kind >= RXVK_OP_KIND_COUNT_)
				FAIL(p - buf, "op %u has unknown kind %u", i, op->kind);
			op->count = get32(p + 4);
			op->program = get64(p + 8);
			for (int k = 0; k < 2; k++) {
				op->read[k].addr = get64(p + 16 + 16 * k);
				op->read[k].size_B = get64(p + 24 + 16 * k);
			}
			op->write.addr = get64(p + 48);
			op->write.size_B = get64(p + 56);
			for (int k = 0; k < RXVK_OP_PARAMS; k++)
				op->params[k] = get32(p + 64 + 4 * k);
		}
		at += 8 + (size_t)count * OP_SIZE_B;
	}
	*out_subs = subs;
	*out_n = n;
	return 0;
fail:
	rxvk_stream_free(subs, n);
	return rc;
}
