// One radix-2 Stockham pass (autosort: natural order in, natural order out, ping-pong buffers)
// over N complex values, one invocation per butterfly j in [0, N/2):
//   k = j mod Ns, a = src[j], b = src[j + N/2] * W^(k N / (2 Ns)),  W = exp(-2 pi i / N)
//   dst[(j - k) * 2 + k] = a + b,  dst[(j - k) * 2 + k + Ns] = a - b
// Ns = 1, 2, 4 ... N/2 over the log2 N passes. Twiddles come from the Heap table
// W^m, m < N/2 (computed in double, rounded once), so no pass accumulates sin/cos error.
// WEFT_DSP_INVERSE conjugates the twiddles (unnormalized inverse; the output stage divides by N).
// No shared memory, no subgroup operations: any device, any subgroup size.
#include "dsp_args.h"
#define WEFT_ARGS DSP_FFT_PASS_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

void main() {
  const uint channel_offset = gl_WorkGroupID.y * pc.args.channel_stride;
  const uint src = pc.args.src + channel_offset, dst = pc.args.dst + channel_offset, tw = pc.args.twiddles, N = pc.args.n;
  const uint Ns = pc.args.ns, stride = pc.args.twiddle_stride;
  const uint half_n = N / 2u;
  for (uint j = gl_GlobalInvocationID.x; j < half_n; j += gl_NumWorkGroups.x * 64u) {
    const uint k = j & (Ns - 1u);
    const vec2 a = vec2(globals_f[src + 2u * j], globals_f[src + 2u * j + 1u]);
    vec2 w = vec2(heap_f[tw + 2u * k * stride], heap_f[tw + 2u * k * stride + 1u]);
#ifdef WEFT_DSP_INVERSE
    w.y = -w.y;
#endif
    const vec2 b = cmul(vec2(globals_f[src + 2u * (j + half_n)], globals_f[src + 2u * (j + half_n) + 1u]), w);
    const uint o = (j - k) * 2u + k;
    const vec2 s = a + b, d = a - b;
    globals_f[dst + 2u * o] = s.x;
    globals_f[dst + 2u * o + 1u] = s.y;
    globals_f[dst + 2u * (o + Ns)] = d.x;
    globals_f[dst + 2u * (o + Ns) + 1u] = d.y;
  }
}
