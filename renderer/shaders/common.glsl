// Shared by every built-in program: guest memory is reached through buffer
// device addresses in the push constants, so one program can read and write
// any guest range (in place or in its mirror) without descriptors.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(push_constant) uniform Op {
	uint64_t read0;  // device address of read[0], 0 if unused
	uint64_t read1;  // device address of read[1], 0 if unused
	uint64_t write;  // device address of write, 0 if unused
	uint params[8];
	uint count;
} op;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vec4s { vec4 v[]; };

// A loop the compiler cannot drop: the cost knob of every program.
uint busy(uint seed, uint iterations)
{
	uint x = seed;
	for (uint i = 0u; i < iterations; ++i)
		x = x * 1664525u + 1013904223u;
	return x;
}
