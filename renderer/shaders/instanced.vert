#version 460
// rxvk.instanced.v1: one quad per instance (x, y, size, packed colour).
#include "common.glsl"

layout(location = 0) out vec4 colour;

const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1),
                               vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main()
{
	vec4 inst = Vec4s(op.read0).v[gl_InstanceIndex];
	vec2 c = corners[gl_VertexIndex % 6];
	gl_Position = vec4(inst.xy + c * inst.z, 0.5, 1.0);
	colour = unpackUnorm4x8(floatBitsToUint(inst.w));
}
