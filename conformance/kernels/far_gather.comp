#version 450
#extension GL_GOOGLE_include_directive : require
// Gathers words of a Heap far segment at the word indices listed in Globals:
// gathered[k] = table[index[k]], word index = record * record_words + word in the record.
#define WEFT_FAR_ACCESS
#include "test_args.h"
#define WEFT_ARGS TEST_FAR_GATHER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= pc.args.count) return;
  const uint at = globals_u[pc.args.index + k];
  globals_u[pc.args.gathered + k] = weft_far_u(weft_far_heap(pc.args.table), at / pc.args.record_words, at % pc.args.record_words);
}
