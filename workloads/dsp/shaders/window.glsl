// Analysis window of one channel: frame[n] = w[n] * (n < H ? history[n] : input[n - H]) as a
// complex value (imaginary 0 for real input), then the new hop becomes the history of the next
// frame. WEFT_DSP_COMPLEX: samples are complex (history and input hold 2H interleaved floats).
// Invocation n < H reads history[n] before it writes it, and no other invocation touches that
// word, so the shift needs no barrier.
#include "dsp_args.h"
#define WEFT_ARGS DSP_WINDOW_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint hist = pc.args.history, inp = pc.args.hop, win = pc.args.window, frame = pc.args.frame, N = pc.args.n;
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
