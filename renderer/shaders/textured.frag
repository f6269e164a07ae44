#version 460
#include "common.glsl"

layout(location = 0) out vec4 result;

vec4 texel(uint64_t base, uvec2 p)
{
	uint pitch_words = op.params[2] / 4u;
	uint w = Words(base).v[p.y * pitch_words + p.x];
	vec4 c = unpackUnorm4x8(w);
	return op.params[3] == 2u ? c.zyxw : c; // RXVK_FORMAT_BGRA8: bytes B, G, R, A
}

void main()
{
	uvec2 size = uvec2(op.params[0], op.params[1]);
	uvec2 origin = uvec2(op.params[5] & 0xffffu, op.params[5] >> 16);
	uvec2 extent = uvec2(op.params[6] & 0xffffu, op.params[6] >> 16);
	vec2 rel = (gl_FragCoord.xy - vec2(origin)) / vec2(max(extent, uvec2(1)));
	uvec2 p = min(uvec2(rel * vec2(size)), size - 1u);
	vec4 c = texel(op.read0, p);
	if (op.read1 != 0ul) {
		float weight = uintBitsToFloat(op.params[4]);
		c = mix(c, texel(op.read1, p), weight);
	}
	result = c;
}
