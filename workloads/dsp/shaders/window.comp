#version 450
#extension GL_GOOGLE_include_directive : require
// Analysis window of one channel: frame[n] = w[n] * (n < H ? history[n] : input[n - H]) as a
// complex value (imaginary 0), then the new hop becomes the history of the next frame.
// Invocation n < H reads history[n] before it writes it, and no other invocation touches that
// word, so the shift needs no barrier.
// user: [0] history (Globals, H floats), [1] input (Globals, H floats), [2] window (Heap, N
//       floats), [3] frame (Globals, 2N floats, interleaved re/im), [4] N.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint hist = pc.user[0], inp = pc.user[1], win = pc.user[2], frame = pc.user[3], N = pc.user[4];
  const uint H = N / 2u;
  for (uint n = gl_GlobalInvocationID.x; n < N; n += gl_NumWorkGroups.x * 64u) {
    float x;
    if (n < H) {
      x = globals_f[hist + n];
      globals_f[hist + n] = globals_f[inp + n];
    } else {
      x = globals_f[inp + n - H];
    }
    globals_f[frame + 2u * n] = x * heap_f[win + n];
    globals_f[frame + 2u * n + 1u] = 0.0;
  }
}
