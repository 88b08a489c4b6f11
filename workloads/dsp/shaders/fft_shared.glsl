// A whole FFT of one channel in one workgroup: Stockham passes like fft_pass.glsl (same
// twiddle table), radix 4 here, and the frame stays in shared memory between passes, so a
// transform is one dispatch instead of log2 N. The frame needs N x 8 bytes of shared memory:
// N <= 2048 fits the 16 KiB every Vulkan device guarantees (maxComputeSharedMemorySize);
// WEFT_DSP_LARGE sizes the array for N = 4096 (32 KiB), which the program picks only when the
// device reports that much; otherwise the per-pass kernels run. 64 invocations (a channel per
// workgroup; 64 measured faster than 128 on lavapipe and fills a wave on any vendor); barriers
// only, no subgroup operations.
// Each pass: every invocation reads its butterflies into registers, barrier, writes them back
// in Stockham order, barrier (one shared buffer serves as both ping and pong). N >= 512, so
// every invocation has at least one radix-4 butterfly per pass.
// WEFT_DSP_INVERSE conjugates the twiddles (unnormalized inverse).
// user: [0] src, [1] dst (Globals, 2N floats each), [2] twiddles (Heap, N/2 complex), [3] N,
//       [4] channel stride (words): workgroup y transforms channel y (batched channels), whose
//       src and dst sit that many words after channel 0's.
#include "weft.glsl"

#define WG 64u
#ifdef WEFT_DSP_LARGE
#define MAX_N 4096u
#else
#define MAX_N 2048u
#endif
layout(local_size_x = 64) in;
shared vec2 s[MAX_N];

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// exp(-2 pi i m / N) for m < N from the half table (w(m + N/2) = -w(m)); conjugated for the inverse.
vec2 twiddle(uint tw, uint m, uint half_n) {
  const uint i = m < half_n ? m : m - half_n;
  vec2 w = vec2(heap_f[tw + 2u * i], heap_f[tw + 2u * i + 1u]);
  if (m >= half_n) w = -w;
#ifdef WEFT_DSP_INVERSE
  w.y = -w.y;
#endif
  return w;
}

// Multiplication by -i (forward) or +i (inverse): the radix-4 butterfly's quarter turn.
vec2 quarter_turn(vec2 v) {
#ifdef WEFT_DSP_INVERSE
  return vec2(-v.y, v.x);
#else
  return vec2(v.y, -v.x);
#endif
}

void main() {
  const uint channel_offset = gl_WorkGroupID.y * pc.user[4];
  const uint src = pc.user[0] + channel_offset, dst = pc.user[1] + channel_offset, tw = pc.user[2], N = pc.user[3];
  const uint t = gl_LocalInvocationIndex, half_n = N / 2u, quarter = N / 4u;
  for (uint i = t; i < N; i += WG) s[i] = vec2(globals_f[src + 2u * i], globals_f[src + 2u * i + 1u]);
  barrier();
  // Radix-4 Stockham passes while four fit (half the passes and barriers of radix 2), then one
  // radix-2 pass when log2 N is odd. Pass with span ns: butterfly j (k = j mod ns) reads
  // s[j + r N/4] (r = 0..3), twiddles them by w^(r k N / 4ns) and writes s[4(j - k) + k + r ns].
  vec2 v[MAX_N / 4u / WG][4];
  uint ns = 1u;
  for (; 4u * ns <= N; ns *= 4u) {
    const uint stride = N / (4u * ns);
    for (uint q = 0u; q < quarter / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      const vec2 x0 = s[j];
      const vec2 x1 = cmul(s[j + quarter], twiddle(tw, k * stride, half_n));
      const vec2 x2 = cmul(s[j + 2u * quarter], twiddle(tw, 2u * k * stride, half_n));
      const vec2 x3 = cmul(s[j + 3u * quarter], twiddle(tw, 3u * k * stride, half_n));
      const vec2 a0 = x0 + x2, a1 = x0 - x2, a2 = x1 + x3, a3 = quarter_turn(x1 - x3);
      v[q][0] = a0 + a2;
      v[q][1] = a1 + a3;
      v[q][2] = a0 - a2;
      v[q][3] = a1 - a3;
    }
    barrier();
    for (uint q = 0u; q < quarter / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 4u + k;
      for (uint r = 0u; r < 4u; ++r) s[o + r * ns] = v[q][r];
    }
    barrier();
  }
  if (ns < N) {  // ns = N / 2: the last radix-2 pass
    for (uint q = 0u; q < half_n / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      v[q / 2u][2u * (q & 1u)] = s[j];
      v[q / 2u][2u * (q & 1u) + 1u] = cmul(s[j + half_n], twiddle(tw, k, half_n));
    }
    barrier();
    for (uint q = 0u; q < half_n / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 2u + k;
      const vec2 a = v[q / 2u][2u * (q & 1u)], b = v[q / 2u][2u * (q & 1u) + 1u];
      s[o] = a + b;
      s[o + ns] = a - b;
    }
    barrier();
  }
  for (uint i = t; i < N; i += WG) {
    globals_f[dst + 2u * i] = s[i].x;
    globals_f[dst + 2u * i + 1u] = s[i].y;
  }
}
