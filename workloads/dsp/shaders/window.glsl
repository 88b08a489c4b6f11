// Analysis window of one channel: frame[n] = w[n] * (n < H ? history[n] : input[n - H]) as a
// complex value (imaginary 0 for real input), then the new hop becomes the history of the next
// frame. WEFT_DSP_COMPLEX: samples are complex (history and input hold 2H interleaved floats).
// Invocation n < H reads history[n] before it writes it, and no other invocation touches that
// word, so the shift needs no barrier.
// user: [0] history (Globals, H samples), [1] input (Globals, H samples), [2] window (Heap, N
//       floats), [3] frame (Globals, 2N floats, interleaved re/im), [4] N.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint hist = pc.user[0], inp = pc.user[1], win = pc.user[2], frame = pc.user[3], N = pc.user[4];
  const uint H = N / 2u;
  for (uint n = gl_GlobalInvocationID.x; n < N; n += gl_NumWorkGroups.x * 64u) {
#ifdef WEFT_DSP_COMPLEX
    vec2 x;
    if (n < H) {
      x = vec2(globals_f[hist + 2u * n], globals_f[hist + 2u * n + 1u]);
      globals_f[hist + 2u * n] = globals_f[inp + 2u * n];
      globals_f[hist + 2u * n + 1u] = globals_f[inp + 2u * n + 1u];
    } else {
      x = vec2(globals_f[inp + 2u * (n - H)], globals_f[inp + 2u * (n - H) + 1u]);
    }
    globals_f[frame + 2u * n] = x.x * heap_f[win + n];
    globals_f[frame + 2u * n + 1u] = x.y * heap_f[win + n];
#else
    float x;
    if (n < H) {
      x = globals_f[hist + n];
      globals_f[hist + n] = globals_f[inp + n];
    } else {
      x = globals_f[inp + n - H];
    }
    globals_f[frame + 2u * n] = x * heap_f[win + n];
    globals_f[frame + 2u * n + 1u] = 0.0;
#endif
  }
}
