#version 460
// rxvk.cull.v1: the "culling" shape: reads instance spheres, writes a result
// block (header, camera, one visibility word per instance).
#include "common.glsl"
layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Result {
	uint frame;
	uint total;
	uint reserved0;
	uint reserved1;
	vec4 camera;
	uint visible[];
};

void main()
{
	uint i = gl_GlobalInvocationID.x;
	uint total = op.params[0];
	vec3 cam = uintBitsToFloat(uvec3(op.params[1], op.params[2], op.params[3]));
	float dist = uintBitsToFloat(op.params[4]);
	Result res = Result(op.write);
	if (i == 0u) {
		res.frame = op.params[6];
		res.total = total;
		res.reserved0 = 0u;
		res.reserved1 = 0u;
		res.camera = vec4(cam, dist);
	}
	if (i >= total)
		return;
	vec4 s = Vec4s(op.read0).v[i];
	float d = length(s.xyz - cam) - s.w;
	uint x = busy(i + 1u, op.params[5]);
	// x is never 0 for these seeds in practice; the test keeps the loop alive
	res.visible[i] = (d < dist ? 1u : 0u) | (x == 0u && op.params[5] > 0u ? 2u : 0u);
}
