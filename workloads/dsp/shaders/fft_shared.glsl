// A whole FFT of one channel in one workgroup: Stockham passes like fft_pass.glsl (same
// twiddle table), radix 8 here, and the frame stays in shared memory between passes, so a
// transform is one dispatch instead of log2 N. The frame needs N x 8 bytes of shared memory:
// N <= 2048 fits the 16 KiB every Vulkan device guarantees (maxComputeSharedMemorySize);
// WEFT_DSP_LARGE sizes the array for N = 4096 (32 KiB), which the program picks only when the
// device reports that much; otherwise the per-pass kernels run. 64 invocations (a channel per
// workgroup; 64 measured faster than 128 on lavapipe and fills a wave on any vendor); barriers
// only, no subgroup operations.
// Each pass: every invocation reads its butterflies into registers, barrier, writes them back
// in Stockham order, barrier (one shared buffer serves as both ping and pong). N >= 512 and 64
// invocations, so every invocation has at least one butterfly per pass.
// WEFT_DSP_INVERSE conjugates the twiddles (unnormalized inverse).
#include "dsp_args.h"
#define WEFT_ARGS DSP_FFT_SHARED_ARGS
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

// Multiplication by -i (forward) or +i (inverse): a quarter turn.
vec2 quarter_turn(vec2 v) {
#ifdef WEFT_DSP_INVERSE
  return vec2(-v.y, v.x);
#else
  return vec2(v.y, -v.x);
#endif
}

// In-place 4-point DFT (forward, or inverse with WEFT_DSP_INVERSE).
void dft4(inout vec2 a, inout vec2 b, inout vec2 c, inout vec2 d) {
  const vec2 t0 = a + c, t1 = a - c, t2 = b + d, t3 = quarter_turn(b - d);
  a = t0 + t2;
  b = t1 + t3;
  c = t0 - t2;
  d = t1 - t3;
}

void main() {
  const uint channel_offset = gl_WorkGroupID.y * pc.args.channel_stride;
  const uint src = pc.args.src + channel_offset, dst = pc.args.dst + channel_offset, tw = pc.args.twiddles, N = pc.args.n;
  const uint t = gl_LocalInvocationIndex, half_n = N / 2u;
  for (uint i = t; i < N; i += WG) s[i] = vec2(globals_f[src + 2u * i], globals_f[src + 2u * i + 1u]);
  barrier();
  // Stockham passes of radix 8 while eight fit, then one of radix 4 or 2 for what is left
  // (log2 N mod 3): a third of radix 2's passes and barriers. Pass of radix R with span ns:
  // butterfly j (k = j mod ns) reads s[j + r N/R] (r < R), twiddles them by w^(r k N / (R ns)),
  // takes their R-point DFT and writes s[R (j - k) + k + r ns].
  vec2 v[MAX_N / WG];
  uint ns = 1u;
  for (; 8u * ns <= N; ns *= 8u) {
    const uint eighth = N / 8u, stride = N / (8u * ns);
    for (uint q = 0u; q < eighth / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      vec2 x[8];
      x[0] = s[j];
      for (uint r = 1u; r < 8u; ++r) x[r] = cmul(s[j + r * eighth], twiddle(tw, r * k * stride, half_n));
      // 8 points = two 4-point DFTs (even, odd) joined by w8^r (w8 = e^-i pi/4, conjugated inverse).
      dft4(x[0], x[2], x[4], x[6]);
      dft4(x[1], x[3], x[5], x[7]);
      const float h = 0.70710678118654752;
#ifdef WEFT_DSP_INVERSE
      const vec2 w1 = vec2(h, h), w3 = vec2(-h, h);
#else
      const vec2 w1 = vec2(h, -h), w3 = vec2(-h, -h);
#endif
      const vec2 o0 = x[1], o1 = cmul(x[3], w1), o2 = quarter_turn(x[5]), o3 = cmul(x[7], w3);
      v[8u * q + 0u] = x[0] + o0;
      v[8u * q + 4u] = x[0] - o0;
      v[8u * q + 1u] = x[2] + o1;
      v[8u * q + 5u] = x[2] - o1;
      v[8u * q + 2u] = x[4] + o2;
      v[8u * q + 6u] = x[4] - o2;
      v[8u * q + 3u] = x[6] + o3;
      v[8u * q + 7u] = x[6] - o3;
    }
    barrier();
    for (uint q = 0u; q < eighth / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 8u + k;
      for (uint r = 0u; r < 8u; ++r) s[o + r * ns] = v[8u * q + r];
    }
    barrier();
  }
  if (4u * ns == N) {  // the last pass, radix 4
    const uint quarter = N / 4u, stride = 1u;
    for (uint q = 0u; q < quarter / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      vec2 a = s[j], b = cmul(s[j + quarter], twiddle(tw, k * stride, half_n));
      vec2 c = cmul(s[j + 2u * quarter], twiddle(tw, 2u * k * stride, half_n));
      vec2 d = cmul(s[j + 3u * quarter], twiddle(tw, 3u * k * stride, half_n));
      dft4(a, b, c, d);
      v[4u * q] = a;
      v[4u * q + 1u] = b;
      v[4u * q + 2u] = c;
      v[4u * q + 3u] = d;
    }
    barrier();
    for (uint q = 0u; q < quarter / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 4u + k;
      for (uint r = 0u; r < 4u; ++r) s[o + r * ns] = v[4u * q + r];
    }
    barrier();
  } else if (2u * ns == N) {  // the last pass, radix 2
    for (uint q = 0u; q < half_n / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u);
      v[2u * q] = s[j];
      v[2u * q + 1u] = cmul(s[j + half_n], twiddle(tw, k, half_n));
    }
    barrier();
    for (uint q = 0u; q < half_n / WG; ++q) {
      const uint j = t + q * WG, k = j & (ns - 1u), o = (j - k) * 2u + k;
      s[o] = v[2u * q] + v[2u * q + 1u];
      s[o + ns] = v[2u * q] - v[2u * q + 1u];
    }
    barrier();
  }
  for (uint i = t; i < N; i += WG) {
    globals_f[dst + 2u * i] = s[i].x;
    globals_f[dst + 2u * i + 1u] = s[i].y;
  }
}
