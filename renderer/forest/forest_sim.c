/* forest_sim: the simulation the main thread steps once a frame: walking,
 * panning, jumping and talking from the sampled pad state, in integers
 * (millimetres, 1/65536 turns), so a route gives the same camera path on
 * every machine and in every arm.  Also the pad layout's code tables.  It
 * does not read devices (forest_pad.c) nor draw (forest_frame.c). */
#include "forest.h"

#include <math.h>

static const uint16_t button_codes[FOREST_BUTTON_COUNT] = {
	BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR,
	BTN_SELECT, BTN_START, BTN_MODE, BTN_THUMBL, BTN_THUMBR,
};

static const uint16_t axis_codes[FOREST_AXIS_COUNT] = {
	ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ, ABS_HAT0X, ABS_HAT0Y,
};

int forest_button_index(uint16_t code)
{
	for (int i = 0; i < FOREST_BUTTON_COUNT; i++)
		if (button_codes[i] == code)
			return i;
	return -1;
}

int forest_axis_index(uint16_t code)
{
	for (int i = 0; i < FOREST_AXIS_COUNT; i++)
		if (axis_codes[i] == code)
			return i;
	return -1;
}

void forest_sim_init(struct forest_sim *s)
{
	*s = (struct forest_sim){ 0 };
}

/* A stick value with the dead zone taken out (the scale is unchanged, so a
 * full push still gives the full step). */
static int32_t stick(int32_t v)
{
	if (v > FOREST_STICK_MAX)
		v = FOREST_STICK_MAX;
	if (v < -FOREST_STICK_MAX)
		v = -FOREST_STICK_MAX;
	return v > -FOREST_DEADZONE && v < FOREST_DEADZONE ? 0 : v;
}

void forest_sim_step(struct forest_sim *s, const struct forest_pad_state *pad)
{
	int32_t lx = stick(pad->axis[FOREST_AXIS_LX]), ly = stick(pad->axis[FOREST_AXIS_LY]);
	int32_t rx = stick(pad->axis[FOREST_AXIS_RX]), ry = stick(pad->axis[FOREST_AXIS_RY]);

	/* pan first, so a walk in the same frame goes where the camera looks */
	s->yaw = (int32_t)(((uint32_t)s->yaw + (uint32_t)(rx * FOREST_PAN_UNITS / FOREST_STICK_MAX)) & 0xffffu);
	s->pitch -= ry * FOREST_PAN_UNITS / 2 / FOREST_STICK_MAX;
	if (s->pitch > FOREST_PITCH_MAX)
		s->pitch = FOREST_PITCH_MAX;
	if (s->pitch < -FOREST_PITCH_MAX)
		s->pitch = -FOREST_PITCH_MAX;

	int64_t forward = -(int64_t)ly * FOREST_WALK_MM / FOREST_STICK_MAX;
	int64_t strafe = (int64_t)lx * FOREST_WALK_MM / FOREST_STICK_MAX;
	if (forward || strafe) {
		double a = (double)s->yaw * (2.0 * M_PI / 65536.0);
		double sn = sin(a), cs = cos(a);
		/* yaw 0 looks towards -z; right is +x */
		s->x_mm += llround((double)forward * sn + (double)strafe * cs);
		s->z_mm += llround(-(double)forward * cs + (double)strafe * sn);
	}
	int64_t edge_mm = (int64_t)(FOREST_WORLD_M * 500.0f) - 2000;
	if (s->x_mm > edge_mm)
		s->x_mm = edge_mm;
	if (s->x_mm < -edge_mm)
		s->x_mm = -edge_mm;
	if (s->z_mm > edge_mm)
		s->z_mm = edge_mm;
	if (s->z_mm < -edge_mm)
		s->z_mm = -edge_mm;

	uint32_t pressed = pad->buttons & ~s->buttons;
	if (pressed & (1u << FOREST_BUTTON_A) && s->jump_mm == 0 && s->jump_speed_mm == 0) {
		s->jump_speed_mm = FOREST_JUMP_MM;
		s->jumps++;
	}
	if (pressed & (1u << FOREST_BUTTON_B)) {
		s->talking = !s->talking;
		s->talks++;
	}
	if (s->jump_mm > 0 || s->jump_speed_mm > 0) {
		s->jump_mm += s->jump_speed_mm;
		s->jump_speed_mm -= FOREST_GRAVITY_MM;
		if (s->jump_mm <= 0) {
			s->jump_mm = 0;
			s->jump_speed_mm = 0;
		}
	}
	s->buttons = pad->buttons;
	s->frame++;
}

void forest_sim_camera(const struct forest_sim *s, const struct forest_world *w,
                       struct forest_camera *out)
{
	float x = (float)s->x_mm / 1000.0f, z = (float)s->z_mm / 1000.0f;
	*out = (struct forest_camera){
		.frame = s->frame,
		.x = x,
		.y = forest_world_ground_m(w, x, z) + (float)(FOREST_EYE_MM + s->jump_mm) / 1000.0f,
		.z = z,
		.yaw = (float)((double)s->yaw * (2.0 * M_PI / 65536.0)),
		.pitch = (float)((double)s->pitch * (2.0 * M_PI / 65536.0)),
		.talking = s->talking,
	};
}
