#version 460
// rxvk.spin.v1: spends params[0] iterations, then writes params[1]: a writer
// whose cost is known, for tests and benchmarks.
#include "common.glsl"
layout(local_size_x = 1) in;

void main()
{
	Words w = Words(op.write);
	w.v[1] = busy(op.params[1], op.params[0]);
	memoryBarrierBuffer();
	w.v[0] = op.params[1];
}
