#version 460
#include "common.glsl"

layout(location = 0) in vec4 colour;
layout(location = 0) out vec4 result;

void main()
{
	float scale = op.params[1] == 0u ? 1.0 : uintBitsToFloat(op.params[1]);
	uint x = busy(uint(gl_FragCoord.x) * 7919u + uint(gl_FragCoord.y), op.params[0]);
	vec4 c = vec4(clamp(colour.rgb * scale, 0.0, 1.0), colour.a);
	if (x == 0u && op.params[0] > 0u)
		c.r = 0.5;
	result = c;
}
