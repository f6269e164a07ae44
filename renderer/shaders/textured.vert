#version 460
// rxvk.textured.v1: a rectangle whose texels come from guest memory.
#include "common.glsl"

void main()
{
	const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1),
	                               vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
	gl_Position = vec4(corners[gl_VertexIndex % 6], 0.5, 1.0);
}
