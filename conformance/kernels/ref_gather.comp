#version 450
#extension GL_GOOGLE_include_directive : require
// gathered[k] = table[index[k]] where `table` is a segment reference: a Heap range of the bound
// window or a Heap far segment of 4-byte records. One source for both placements: conformance
// lists it with a far variant, which the engine runs when the stage binds a far segment.
#include "test_args.h"
#define WEFT_ARGS TEST_REF_GATHER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

uint table_word(uint w) {
#ifdef WEFT_FAR_ACCESS
  if (weft_ref_is_far(pc.args.table)) return weft_far_u(weft_ref_far_heap(pc.args.table), w, 0u);
#endif
  return heap_u[pc.args.table + w];
}

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k < pc.args.count) globals_u[pc.args.gathered + k] = table_word(globals_u[pc.args.index + k]);
}
