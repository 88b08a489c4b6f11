// A whole FFT of one channel in one workgroup: the same radix-2 Stockham passes as
// fft_pass.glsl (same twiddles, same arithmetic, so the same error), but the frame stays in
// shared memory between passes, so a transform is one dispatch instead of log2 N. The frame
// needs N x 8 bytes of shared memory: N <= 2048 fits the 16 KiB every Vulkan device guarantees
// (maxComputeSharedMemorySize); WEFT_DSP_LARGE sizes the array for N = 4096 (32 KiB), which the
// program picks only when the device reports that much; otherwise the per-pass kernels run. 128 invocations (the
// guaranteed maxComputeWorkGroupInvocations); barriers only, no subgroup operations.
// Each pass: every invocation reads its butterflies into registers, barrier, writes them back
// in Stockham order, barrier (one shared buffer serves as both ping and pong).
// WEFT_DSP_INVERSE conjugates the twiddles (unnormalized inverse).
// user: [0] src, [1] dst (Globals, 2N floats each), [2] twiddles (Heap, N/2 complex), [3] N,
//       [4] channel stride (words): workgroup y transforms channel y (batched channels), whose
//       src and dst sit that many words after channel 0's.
#include "weft.glsl"

#define WG 128u
#ifdef WEFT_DSP_LARGE
#define MAX_N 4096u
#else
#define MAX_N 2048u
#endif
layout(local_size_x = 128) in;
shared vec2 s[MAX_N];

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

void main() {
  const uint channel_offset = gl_WorkGroupID.y * pc.user[4];
  const uint src = pc.user[0] + channel_offset, dst = pc.user[1] + channel_offset, tw = pc.user[2], N = pc.user[3];
  const uint t = gl_LocalInvocationIndex, half_n = N / 2u, per = half_n / WG;
  for (uint i = t; i < N; i += WG) s[i] = vec2(globals_f[src + 2u * i], globals_f[src + 2u * i + 1u]);
  barrier();
  vec2 a[MAX_N / 2u / WG], b[MAX_N / 2u / WG];
  for (uint ns = 1u; ns < N; ns <<= 1) {
    const uint stride = N / (2u * ns);
    for (uint q = 0u; q < per; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      vec2 w = vec2(heap_f[tw + 2u * k * stride], heap_f[tw + 2u * k * stride + 1u]);
#ifdef WEFT_DSP_INVERSE
      w.y = -w.y;
#endif
      a[q] = s[j];
      b[q] = cmul(s[j + half_n], w);
    }
    barrier();
    for (uint q = 0u; q < per; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 2u + k;
      s[o] = a[q] + b[q];
      s[o + ns] = a[q] - b[q];
    }
    barrier();
  }
  for (uint i = t; i < N; i += WG) {
    globals_f[dst + 2u * i] = s[i].x;
    globals_f[dst + 2u * i + 1u] = s[i].y;
  }
}
