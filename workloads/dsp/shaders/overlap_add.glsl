// Overlap-add and output of one channel (one workgroup, so it can reduce the message):
//   y[n] = gain * (Re(x[n]) / N + tail[n]) -> R30[n],   tail[n] = Re(x[n + H]) / N,   n < H
// WEFT_DSP_COMPLEX: the whole complex x is kept (R30 and tail hold 2H interleaved floats) and the
// peak is the largest magnitude |y[n]|.
// gain is a control word, not a push constant: the clipping rule lowers it between frames and
// the program keeps Control across replays. Metrics: norm = ||y||2, max_abs = peak, status =
// clipped (16) when peak > threshold, counters[0] = frames processed (a Globals word, integer),
// counters[1] = f32 bits of the gain applied, ticks = this stage's device ticks.
// 1/N is exact in f32 for a power of two. 128 invocations: the guaranteed workgroup limit.
#include "dsp_args.h"
#define WEFT_ARGS DSP_OVERLAP_ADD_ARGS
#include "weft.glsl"

layout(local_size_x = 128) in;
shared float s_max[128];
shared float s_sum[128];

void main() {
  const uvec2 start = weft_clock();
  const uint x = pc.args.x, tail = pc.args.tail, N = pc.args.n, counter = pc.args.frames;
  const uint H = N / 2u, t = gl_LocalInvocationIndex;
  const float gain = weft_control_f(pc.args.gain), inv_n = 1.0 / float(N), threshold = pc.args.threshold;
  float mx = 0.0, sum = 0.0;
  for (uint n = t; n < H; n += 128u) {
#ifdef WEFT_DSP_COMPLEX
    const vec2 y = gain * (vec2(globals_f[x + 2u * n], globals_f[x + 2u * n + 1u]) * inv_n +
                           vec2(globals_f[tail + 2u * n], globals_f[tail + 2u * n + 1u]));
    globals_f[tail + 2u * n] = globals_f[x + 2u * (n + H)] * inv_n;
    globals_f[tail + 2u * n + 1u] = globals_f[x + 2u * (n + H) + 1u] * inv_n;
    weft_outbox_f(2u * n, y.x);
    weft_outbox_f(2u * n + 1u, y.y);
    mx = max(mx, length(y));
    sum += dot(y, y);
#else
    const float y = gain * (globals_f[x + 2u * n] * inv_n + globals_f[tail + n]);
    globals_f[tail + n] = globals_f[x + 2u * (n + H)] * inv_n;
    weft_outbox_f(n, y);
    mx = max(mx, abs(y));
    sum += y * y;
#endif
  }
  s_max[t] = mx;
  s_sum[t] = sum;
  barrier();
  for (uint k = 64u; k > 0u; k >>= 1) {
    if (t < k) {
      s_max[t] = max(s_max[t], s_max[t + k]);
      s_sum[t] += s_sum[t + k];
    }
    barrier();
  }
  if (t == 0u) {
    const uint frames = globals_u[counter] + 1u;
    globals_u[counter] = frames;
    const uint me = pc.header.instance;
    metrics[me].counters[0] = frames;
    metrics[me].counters[1] = floatBitsToUint(gain);
    const bool clipped = s_max[0] > threshold;
    weft_message_write(sqrt(s_sum[0]), s_max[0], clipped ? WEFT_STATUS_WORKLOAD_FIRST : WEFT_STATUS_OK, weft_ticks_since(start));
  }
}
