/* forest_world: the static scene a seed makes: a ground height field, the
 * 8 x 8 regions, their tiles, grass, rocks and trees (the culling input),
 * and the characters that wander on fixed circles.  Everything comes from
 * one splitmix64 stream, so a seed always gives the same world.  It owns no
 * guest memory: the game copies the spheres there. */
#include "forest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TILE_M 4.0f
#define TILES_SIDE (int)(FOREST_WORLD_M / FOREST_REGIONS_SIDE / TILE_M) /* per region */
#define HEIGHT_CELLS 64
#define HEIGHT_MAX_M 6.0f

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static float unit(uint64_t *s)
{
	return (float)(splitmix(s) >> 40) / (float)(1u << 24);
}

static uint32_t rgba(unsigned r, unsigned g, unsigned b)
{
	return (r & 0xffu) | (g & 0xffu) << 8 | (b & 0xffu) << 16 | 0xffu << 24;
}

static unsigned jitter(uint64_t *s, unsigned c, unsigned spread)
{
	int v = (int)c + (int)(unit(s) * (float)(2 * spread + 1)) - (int)spread;
	return (unsigned)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Value noise: a few octaves of random lattices, smoothly interpolated. */
static void make_heights(struct forest_world *w, uint64_t *rng)
{
	uint32_t n = w->grid + 1;
	memset(w->height, 0, (size_t)n * n * sizeof *w->height);
	float amplitude = HEIGHT_MAX_M / 2.0f;
	for (uint32_t cells = 4; cells <= 32; cells *= 2, amplitude /= 2.0f) {
		uint32_t ln = cells + 1;
		float *lattice = malloc((size_t)ln * ln * sizeof *lattice);
		if (!lattice)
			return;
		for (uint32_t i = 0; i < ln * ln; i++)
			lattice[i] = unit(rng);
		for (uint32_t y = 0; y < n; y++)
			for (uint32_t x = 0; x < n; x++) {
				float fx = (float)x * (float)cells / (float)w->grid;
				float fy = (float)y * (float)cells / (float)w->grid;
				uint32_t ix = (uint32_t)fx < cells ? (uint32_t)fx : cells - 1;
				uint32_t iy = (uint32_t)fy < cells ? (uint32_t)fy : cells - 1;
				float tx = fx - (float)ix, ty = fy - (float)iy;
				tx = tx * tx * (3 - 2 * tx);
				ty = ty * ty * (3 - 2 * ty);
				float a = lattice[iy * ln + ix], b = lattice[iy * ln + ix + 1];
				float c = lattice[(iy + 1) * ln + ix], d = lattice[(iy + 1) * ln + ix + 1];
				float v = (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
				w->height[y * n + x] += v * amplitude;
			}
		free(lattice);
	}
}

float forest_world_ground_m(const struct forest_world *w, float x, float z)
{
	float half = FOREST_WORLD_M / 2.0f;
	float fx = (x + half) / FOREST_WORLD_M * (float)w->grid;
	float fz = (z + half) / FOREST_WORLD_M * (float)w->grid;
	if (fx < 0)
		fx = 0;
	if (fz < 0)
		fz = 0;
	if (fx > (float)w->grid)
		fx = (float)w->grid;
	if (fz > (float)w->grid)
		fz = (float)w->grid;
	uint32_t ix = (uint32_t)fx < w->grid ? (uint32_t)fx : w->grid - 1;
	uint32_t iz = (uint32_t)fz < w->grid ? (uint32_t)fz : w->grid - 1;
	float tx = fx - (float)ix, tz = fz - (float)iz;
	uint32_t n = w->grid + 1;
	float a = w->height[iz * n + ix], b = w->height[iz * n + ix + 1];
	float c = w->height[(iz + 1) * n + ix], d = w->height[(iz + 1) * n + ix + 1];
	float top = a + (b - a) * tx, bottom = c + (d - c) * tx;
	return top + (bottom - top) * tz;
}

void forest_world_character(const struct forest_world *w, uint32_t c, uint64_t frame, float out[3])
{
	const float *h = &w->character_home[c * 4];
	/* one turn every 1200 to 2400 frames, direction by index */
	float speed = (c % 2 ? 1.0f : -1.0f) * (0.0026f + 0.0026f * h[3] / 6.2831853f);
	float a = h[3] + speed * (float)(frame % 2400000);
	out[0] = h[0] + h[2] * cosf(a);
	out[2] = h[1] + h[2] * sinf(a);
	out[1] = forest_world_ground_m(w, out[0], out[2]);
}

static uint32_t count_for(double scale, unsigned base)
{
	double n = (double)base * scale;
	return n < 1.0 ? 1u : (uint32_t)n;
}

int forest_world_create(uint64_t seed, double scale, struct forest_world **out)
{
	struct forest_world *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	w->seed = seed;
	w->scale = scale;
	w->grid = HEIGHT_CELLS;
	w->height = malloc((size_t)(w->grid + 1) * (w->grid + 1) * sizeof *w->height);
	uint32_t grass = count_for(scale, 120), rocks = count_for(scale, 10), trees = count_for(scale, 40);
	uint32_t tiles = TILES_SIDE * TILES_SIDE;
	uint32_t per_region = tiles + grass + rocks + trees;
	w->n_instances = FOREST_REGIONS + FOREST_REGIONS * per_region;
	w->spheres = malloc((size_t)w->n_instances * 4 * sizeof *w->spheres);
	w->colour = malloc((size_t)w->n_instances * sizeof *w->colour);
	w->kind = malloc(w->n_instances);
	w->n_characters = count_for(scale, 8);
	w->character_home = malloc((size_t)w->n_characters * 4 * sizeof(float));
	w->character_colour = malloc((size_t)w->n_characters * sizeof(uint32_t));
	if (!w->height || !w->spheres || !w->colour || !w->kind || !w->character_home ||
	    !w->character_colour) {
		forest_world_destroy(w);
		return -ENOMEM;
	}
	uint64_t rng = seed ^ 0x666f72657374ull; /* "forest" */
	make_heights(w, &rng);

	float half = FOREST_WORLD_M / 2.0f, region_m = FOREST_WORLD_M / FOREST_REGIONS_SIDE;
	uint32_t next = FOREST_REGIONS;
	for (uint32_t r = 0; r < FOREST_REGIONS; r++) {
		float x0 = -half + (float)(r % FOREST_REGIONS_SIDE) * region_m;
		float z0 = -half + (float)(r / FOREST_REGIONS_SIDE) * region_m;
		float cx = x0 + region_m / 2, cz = z0 + region_m / 2;
		float *rs = &w->spheres[r * 4];
		rs[0] = cx;
		rs[1] = forest_world_ground_m(w, cx, cz);
		rs[2] = cz;
		rs[3] = region_m * 0.7072f + 8.0f; /* half diagonal, trees and hills */
		w->colour[r] = 0;
		w->kind[r] = FOREST_KIND_REGION;
		w->region_first[r] = next;
		for (uint32_t t = 0; t < tiles; t++, next++) {
			float x = x0 + ((float)(t % TILES_SIDE) + 0.5f) * TILE_M;
			float z = z0 + ((float)(t / TILES_SIDE) + 0.5f) * TILE_M;
			float y = forest_world_ground_m(w, x, z);
			float *s = &w->spheres[next * 4];
			s[0] = x, s[1] = y, s[2] = z, s[3] = TILE_M * 0.7072f;
			unsigned shade = (unsigned)(y / HEIGHT_MAX_M * 60.0f);
			w->colour[next] = rgba(jitter(&rng, 70 + shade, 8), jitter(&rng, 96 + shade / 2, 8),
			                       jitter(&rng, 48, 6));
			w->kind[next] = FOREST_KIND_TILE;
		}
		for (uint32_t i = 0; i < grass + rocks + trees; i++, next++) {
			float x = x0 + unit(&rng) * region_m, z = z0 + unit(&rng) * region_m;
			float y = forest_world_ground_m(w, x, z);
			float *s = &w->spheres[next * 4];
			s[0] = x, s[2] = z;
			if (i < grass) {
				s[3] = 0.25f + 0.2f * unit(&rng);
				s[1] = y + s[3];
				w->colour[next] = rgba(jitter(&rng, 80, 20), jitter(&rng, 170, 30), jitter(&rng, 60, 15));
				w->kind[next] = FOREST_KIND_GRASS;
			} else if (i < grass + rocks) {
				s[3] = 0.4f + 0.6f * unit(&rng);
				s[1] = y + s[3] * 0.6f;
				unsigned g = jitter(&rng, 128, 20);
				w->colour[next] = rgba(g, g, jitter(&rng, g, 6));
				w->kind[next] = FOREST_KIND_ROCK;
			} else {
				s[3] = 1.8f + 2.2f * unit(&rng);
				s[1] = y + s[3] * 1.4f;
				w->colour[next] = rgba(jitter(&rng, 30, 10), jitter(&rng, 95, 25), jitter(&rng, 40, 12));
				w->kind[next] = FOREST_KIND_TREE;
			}
		}
	}
	w->region_first[FOREST_REGIONS] = next;
	static const uint32_t palette[] = { 0xff3030e0u, 0xffe05030u, 0xff30d0f0u, 0xffe030c0u,
	                                    0xff40e0e0u, 0xfff0f0f0u, 0xff2080ffu, 0xffa040ffu };
	for (uint32_t c = 0; c < w->n_characters; c++) {
		float *h = &w->character_home[c * 4];
		h[0] = (unit(&rng) - 0.5f) * (FOREST_WORLD_M - 40.0f);
		h[1] = (unit(&rng) - 0.5f) * (FOREST_WORLD_M - 40.0f);
		h[2] = 3.0f + 6.0f * unit(&rng);
		h[3] = unit(&rng) * 6.2831853f;
		w->character_colour[c] = palette[c % (sizeof palette / sizeof palette[0])];
	}
	/* the first character lives near the start, so a short run sees one */
	if (w->n_characters) {
		w->character_home[0] = 0.0f;
		w->character_home[1] = -14.0f;
		w->character_home[2] = 4.0f;
	}
	*out = w;
	return 0;
}

void forest_world_destroy(struct forest_world *w)
{
	if (!w)
		return;
	free(w->height);
	free(w->spheres);
	free(w->colour);
	free(w->kind);
	free(w->character_home);
	free(w->character_colour);
	free(w);
}
