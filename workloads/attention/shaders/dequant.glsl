// Reading ggml weight encodings straight from 32-bit words (no 8/16-bit storage needed).
// Offsets are BYTE offsets into the weights' words. Q8_0/Q4_0 blocks are 34/18 bytes, so a block
// starts on a 2-byte boundary and its words may straddle two words; the helpers below splice them.
// Where the words are (open_weights, once in main, gives the tensor's first byte):
//   default      Heap through the bound window: the tensor starts at Heap word pc.args.w.
//   FAR_WEIGHTS  the far variant (WEFT_FAR_ACCESS): the tensor is a Heap far segment of its own
//                (records of one word), named by the reference argument; it starts at byte 0,
//                so byte offsets stay below 4 GiB whatever the model's size.
//   F32: 4 bytes per element.  F16, BF16: 2 bytes per element.
//   Q8_0: f16 scale d + 32 int8 q:            x[k] = q[k] * d
//   Q4_0: f16 scale d + 16 bytes of nibbles:  x[k] = (nibble - 8) * d, low nibbles are k = 0..15
//   Q4_1, Q5_0, Q5_1 and the K-quants (super-blocks of 256): see quant.h/.cpp, whose decoders
//   these mirror sub-block by sub-block (dequant32).
// WTYPE picks the encoding by its ggml type id: 0 F32, 1 F16, 30 BF16, 8 Q8_0, 2 Q4_0, 3 Q4_1,
// 6 Q5_0, 7 Q5_1, 10 Q2_K, 11 Q3_K, 12 Q4_K, 13 Q5_K, 14 Q6_K.
#ifndef ATTENTION_DEQUANT_GLSL
#define ATTENTION_DEQUANT_GLSL

#ifndef WTYPE
#error "define WTYPE (a ggml type id)"
#endif

#ifdef FAR_WEIGHTS
WeftFar weights_far;  // opened once: each word read then costs only its chunk's address
uint open_weights(uint ref) {  // the far variant runs only when the weights are far
  weights_far = weft_ref_far_heap(ref);
  return 0u;
}
uint weight_word(uint i) { return weft_far_u(weights_far, i, 0u); }
#else
uint open_weights(uint arg) { return arg * 4u; }
uint weight_word(uint i) { return heap_u[i]; }
#endif

uint weight_byte(uint b) { return (weight_word(b >> 2) >> ((b & 3u) * 8u)) & 0xFFu; }
// 16 bits at a 2-byte-aligned byte offset.
uint weight_u16(uint b) { const uint w = weight_word(b >> 2); return (b & 2u) != 0u ? w >> 16 : w & 0xFFFFu; }
// 32 bits at a 2-byte-aligned byte offset.
uint weight_u32_2(uint b) {
  const uint i = b >> 2;
  return (b & 2u) == 0u ? weight_word(i) : (weight_word(i) >> 16) | (weight_word(i + 1u) << 16);
}
float weight_half(uint b) { return unpackHalf2x16(weight_u16(b)).x; }
float weight_f32(uint i) { return uintBitsToFloat(weight_word(i)); }  // word i, not byte

#if WTYPE == 0
const uint BLOCK_ELEMS = 1u, BLOCK_BYTES = 4u;
#elif WTYPE == 1
const uint BLOCK_ELEMS = 1u, BLOCK_BYTES = 2u;
#elif WTYPE == 8
const uint BLOCK_ELEMS = 32u, BLOCK_BYTES = 34u;
#elif WTYPE == 2
const uint BLOCK_ELEMS = 32u, BLOCK_BYTES = 18u;
#elif WTYPE == 30
const uint BLOCK_ELEMS = 1u, BLOCK_BYTES = 2u;
#elif WTYPE == 3
const uint BLOCK_ELEMS = 32u, BLOCK_BYTES = 20u;
#elif WTYPE == 6
const uint BLOCK_ELEMS = 32u, BLOCK_BYTES = 22u;
#elif WTYPE == 7
const uint BLOCK_ELEMS = 32u, BLOCK_BYTES = 24u;
#elif WTYPE == 10
const uint BLOCK_ELEMS = 256u, BLOCK_BYTES = 84u;
#elif WTYPE == 11
const uint BLOCK_ELEMS = 256u, BLOCK_BYTES = 110u;
#elif WTYPE == 12
const uint BLOCK_ELEMS = 256u, BLOCK_BYTES = 144u;
#elif WTYPE == 13
const uint BLOCK_ELEMS = 256u, BLOCK_BYTES = 176u;
#elif WTYPE == 14
const uint BLOCK_ELEMS = 256u, BLOCK_BYTES = 210u;
#else
#error "unsupported WTYPE"
#endif

// The types decoded 32 elements at a time (every block type but Q8_0 and Q4_0, which have
// hand-unrolled paths below).
#if WTYPE == 3 || WTYPE == 6 || WTYPE == 7 || (WTYPE >= 10 && WTYPE <= 14)
#define DEQUANT32

// 32 bytes from a 2-byte-aligned byte offset, as 8 words.
void load32(uint b, out uint w[8]) {
  for (uint i = 0u; i < 8u; ++i) w[i] = weight_u32_2(b + 4u * i);
}
uint byte_in(uint w[8], uint i) { return (w[i >> 2] >> ((i & 3u) * 8u)) & 0xFFu; }

// Q4_K / Q5_K: the 6-bit scale and min of sub-block j from the 12 packed bytes at `p`.
void scale_min_k4(uint p, uint j, out float sc, out float m) {
  if (j < 4u) {
    sc = float(weight_byte(p + j) & 63u);
    m = float(weight_byte(p + j + 4u) & 63u);
  } else {
    const uint b = weight_byte(p + j + 4u);
    sc = float((b & 15u) | ((weight_byte(p + j - 4u) >> 6) << 4));
    m = float((b >> 4) | ((weight_byte(p + j) >> 6) << 4));
  }
}
// Q4_K / Q5_K: all eight (scale, min) pairs from the 12 packed bytes at `p`, three words read.
void scales_mins_k4(uint p, out float sc[8], out float m[8]) {
  const uint w0 = weight_u32_2(p), w1 = weight_u32_2(p + 4u), w2 = weight_u32_2(p + 8u);
  for (uint j = 0u; j < 4u; ++j) {
    const uint a = (w0 >> (8u * j)) & 0xFFu, b = (w1 >> (8u * j)) & 0xFFu, c = (w2 >> (8u * j)) & 0xFFu;
    sc[j] = float(a & 63u);
    m[j] = float(b & 63u);
    sc[j + 4u] = float((c & 15u) | ((a >> 6) << 4));
    m[j + 4u] = float((c >> 4) | ((b >> 6) << 4));
  }
}

// Q3_K: signed scale k of the 12 packed bytes at `p`.
float q3_scale(uint p, uint k) {
  const uint low = k < 8u ? weight_byte(p + k) & 15u : weight_byte(p + k - 8u) >> 4;
  const uint high = (weight_byte(p + 8u + (k & 3u)) >> (2u * (k >> 2))) & 3u;
  return float(int(low | (high << 4)) - 32);
}

// Elements 32 s .. 32 s + 31 of the block at byte `blk`.
void dequant32(uint blk, uint s, out float v[32]) {
  uint q[8];
#if WTYPE == 3  // Q4_1: d, m, nibbles
  const float d = weight_half(blk), m = weight_half(blk + 2u);
  load32(blk + 4u, q);  // 16 bytes used
  for (uint k = 0u; k < 16u; ++k) {
    const uint b = byte_in(q, k);
    precise float lo = float(b & 15u) * d + m, hi = float(b >> 4) * d + m;
    v[k] = lo;
    v[k + 16u] = hi;
  }
#elif WTYPE == 6 || WTYPE == 7  // Q5_0: d, qh, nibbles; Q5_1: d, m, qh, nibbles
  const float d = weight_half(blk);
#if WTYPE == 6
  const uint qh = weight_u32_2(blk + 2u), qs = blk + 6u;
#else
  const float m = weight_half(blk + 2u);
  const uint qh = weight_u32_2(blk + 4u), qs = blk + 8u;
#endif
  for (uint w = 0u; w < 4u; ++w) q[w] = weight_u32_2(qs + 4u * w);
  for (uint k = 0u; k < 16u; ++k) {
    const uint b = byte_in(q, k);
    const float lo = float((b & 15u) | (((qh >> k) & 1u) << 4)), hi = float((b >> 4) | (((qh >> (k + 16u)) & 1u) << 4));
#if WTYPE == 6
    v[k] = (lo - 16.0) * d;
    v[k + 16u] = (hi - 16.0) * d;
#else
    precise float a = lo * d + m, c = hi * d + m;  // as the CPU decoder rounds: no fused multiply-add
    v[k] = a;
    v[k + 16u] = c;
#endif
  }
#elif WTYPE == 10  // Q2_K: scales[16], qs[64], d, dmin
  const float d = weight_half(blk + 80u), dmin = weight_half(blk + 82u);
  const uint n = s >> 2, shift = 2u * (s & 3u);
  load32(blk + 16u + 32u * n, q);
  for (uint h = 0u; h < 2u; ++h) {
    const uint sc = weight_byte(blk + 2u * s + h);
    const float dl = d * float(sc & 15u), ml = dmin * float(sc >> 4);
    for (uint l = 16u * h; l < 16u * h + 16u; ++l) {
      precise float r = dl * float((byte_in(q, l) >> shift) & 3u) - ml;
      v[l] = r;
    }
  }
#elif WTYPE == 11  // Q3_K: hmask[32], qs[64], scales[12], d
  const float d = weight_half(blk + 108u);
  const uint n = s >> 2, shift = 2u * (s & 3u);
  uint hm[8];
  load32(blk, hm);
  load32(blk + 32u + 32u * n, q);
  for (uint h = 0u; h < 2u; ++h) {
    const float dl = d * q3_scale(blk + 96u, 2u * s + h);
    for (uint l = 16u * h; l < 16u * h + 16u; ++l)
      v[l] = dl * float(int((byte_in(q, l) >> shift) & 3u) - (((byte_in(hm, l) >> s) & 1u) != 0u ? 0 : 4));
  }
#elif WTYPE == 12 || WTYPE == 13  // Q4_K: d, dmin, scales[12], qs[128]; Q5_K: qh[32] before qs
  float sc, m;
  scale_min_k4(blk + 4u, s, sc, m);
  const float d = weight_half(blk) * sc, dm = weight_half(blk + 2u) * m;
#if WTYPE == 12
  load32(blk + 16u + 32u * (s >> 1), q);
#else
  uint qh[8];
  load32(blk + 16u, qh);
  load32(blk + 48u + 32u * (s >> 1), q);
#endif
  for (uint l = 0u; l < 32u; ++l) {
    uint x = (s & 1u) != 0u ? byte_in(q, l) >> 4 : byte_in(q, l) & 15u;
#if WTYPE == 13
    x |= ((byte_in(qh, l) >> s) & 1u) << 4;
#endif
    precise float r = d * float(x) - dm;
    v[l] = r;
  }
#else  // Q6_K: ql[128], qh[64], scales[16] (int8), d
  const float d = weight_half(blk + 208u);
  const uint n = s >> 2, j = s & 3u;
  uint qh[8];
  load32(blk + 64u * n + 32u * (j & 1u), q);
  load32(blk + 128u + 32u * n, qh);
  for (uint h = 0u; h < 2u; ++h) {
    const float dl = d * float(bitfieldExtract(int(weight_byte(blk + 192u + 8u * n + h + 2u * j)), 0, 8));
    for (uint l = 16u * h; l < 16u * h + 16u; ++l) {
      const uint low = j < 2u ? byte_in(q, l) & 15u : byte_in(q, l) >> 4;
      v[l] = dl * float(int(low | (((byte_in(qh, l) >> (2u * j)) & 3u) << 4)) - 32);
    }
  }
#endif
}
#endif

uint row_bytes(uint cols) { return cols / BLOCK_ELEMS * BLOCK_BYTES; }

// Element k of the row starting at byte `row`.
float weight_at(uint row, uint k) {
#if WTYPE == 0
  return weight_f32((row >> 2) + k);
#elif WTYPE == 1
  return weight_half(row + 2u * k);
#elif WTYPE == 30
  return uintBitsToFloat(weight_u16(row + 2u * k) << 16);
#elif WTYPE == 8
  const uint blk = row + (k >> 5) * 34u, j = k & 31u;
  return weight_half(blk) * float(bitfieldExtract(int(weight_byte(blk + 2u + j)), 0, 8));
#elif WTYPE == 2
  const uint blk = row + (k >> 5) * 18u, j = k & 31u;
  const uint byte = weight_byte(blk + 2u + (j & 15u));
  return weight_half(blk) * (float(j < 16u ? byte & 15u : byte >> 4) - 8.0);
#else
  float v[32];
  dequant32(row + (k / BLOCK_ELEMS) * BLOCK_BYTES, (k % BLOCK_ELEMS) >> 5, v);
  return v[k & 31u];
#endif
}

// Dot products of block `b` of the row at byte `row` with the x vectors of `nt` <= TOKENS
// tokens (Globals words from `x`, `xs` words apart; a block's first element is x[b *
// BLOCK_ELEMS]), added to acc[0 .. nt-1]. The block is read from Heap once for all of them.
#ifndef TOKENS
#define TOKENS 4u
#endif
void block_dots(uint row, uint b, uint x, uint xs, uint nt, inout float acc[TOKENS]) {
#if WTYPE == 0
  const float w = weight_f32((row >> 2) + b);
  for (uint i = 0u; i < nt; ++i) acc[i] += w * globals_f[x + i * xs + b];
#elif WTYPE == 1 || WTYPE == 30
  const float w = weight_at(row, b);
  for (uint i = 0u; i < nt; ++i) acc[i] += w * globals_f[x + i * xs + b];
#elif WTYPE == 12 || WTYPE == 13
  // Q4_K / Q5_K, fused: a pair of sub-blocks shares 32 bytes of nibbles (low: sub-block 2p, high:
  // 2p + 1), and a sub-block's dot is d sc sum(q x) - dmin m sum(x); the words stay in registers.
  const uint blk = row + b * BLOCK_BYTES;
  const float d = weight_half(blk), dmin = weight_half(blk + 2u);
#if WTYPE == 13
  uint qh[8];
  for (uint w = 0u; w < 8u; ++w) qh[w] = weight_u32_2(blk + 16u + 4u * w);
  const uint qs = blk + 48u;
#else
  const uint qs = blk + 16u;
#endif
  float sc[8], mn[8];
  scales_mins_k4(blk + 4u, sc, mn);
  for (uint p = 0u; p < 4u; ++p) {
    const float sc0 = sc[2u * p], m0 = mn[2u * p], sc1 = sc[2u * p + 1u], m1 = mn[2u * p + 1u];
    uint q[8];
    for (uint w = 0u; w < 8u; ++w) q[w] = weight_u32_2(qs + 32u * p + 4u * w);
    for (uint i = 0u; i < nt; ++i) {
      const uint xb = x + i * xs + b * 256u + 64u * p;
      float s0 = 0.0, s1 = 0.0, x0 = 0.0, x1 = 0.0;
      for (uint w = 0u; w < 8u; ++w)
        for (uint j = 0u; j < 4u; ++j) {
          const uint byte = (q[w] >> (8u * j)) & 0xFFu, e = 4u * w + j;
          uint lo = byte & 15u, hi = byte >> 4;
#if WTYPE == 13
          const uint h = (qh[w] >> (8u * j)) >> (2u * p);
          lo |= (h & 1u) << 4;
          hi |= ((h >> 1) & 1u) << 4;
#endif
          const float a = globals_f[xb + e], c = globals_f[xb + 32u + e];
          s0 += float(lo) * a;
          s1 += float(hi) * c;
          x0 += a;
          x1 += c;
        }
      acc[i] += d * (sc0 * s0 + sc1 * s1) - dmin * (m0 * x0 + m1 * x1);
    }
  }
#elif WTYPE == 14
  // Q6_K, fused: per half (128 elements) 64 bytes of low nibbles, 32 of high bit pairs and 8
  // scales; element l of quarter j reads byte l (j even) or l + 32 (j odd) of the nibbles, bits
  // 2j of high byte l, and scale 2j + l / 16. Sums per scale, then d sum(sc s).
  const uint blk = row + b * 210u;
  const float d = weight_half(blk + 208u);
  for (uint n = 0u; n < 2u; ++n) {
    uint ql[16], qh[8];
    for (uint w = 0u; w < 16u; ++w) ql[w] = weight_u32_2(blk + 64u * n + 4u * w);
    for (uint w = 0u; w < 8u; ++w) qh[w] = weight_u32_2(blk + 128u + 32u * n + 4u * w);
    const uint sw0 = weight_u32_2(blk + 192u + 8u * n), sw1 = weight_u32_2(blk + 196u + 8u * n);
    float sc[8];
    for (uint k = 0u; k < 4u; ++k) {
      sc[k] = float(bitfieldExtract(int(sw0), int(8u * k), 8));
      sc[k + 4u] = float(bitfieldExtract(int(sw1), int(8u * k), 8));
    }
    for (uint i = 0u; i < nt; ++i) {
      const uint xb = x + i * xs + b * 256u + 128u * n;
      float s[8];
      for (uint k = 0u; k < 8u; ++k) s[k] = 0.0;
      for (uint w = 0u; w < 8u; ++w)
        for (uint jj = 0u; jj < 4u; ++jj) {
          const uint l = 4u * w + jj, h = w >> 2;
          const uint a = (ql[w] >> (8u * jj)) & 0xFFu, c = (ql[w + 8u] >> (8u * jj)) & 0xFFu, hb = (qh[w] >> (8u * jj)) & 0xFFu;
          s[h] += float(int((a & 15u) | ((hb & 3u) << 4)) - 32) * globals_f[xb + l];
          s[2u + h] += float(int((c & 15u) | (((hb >> 2) & 3u) << 4)) - 32) * globals_f[xb + 32u + l];
          s[4u + h] += float(int((a >> 4) | (((hb >> 4) & 3u) << 4)) - 32) * globals_f[xb + 64u + l];
          s[6u + h] += float(int((c >> 4) | (((hb >> 6) & 3u) << 4)) - 32) * globals_f[xb + 96u + l];
        }
      float sum = 0.0;
      for (uint k = 0u; k < 8u; ++k) sum += sc[k] * s[k];
      acc[i] += d * sum;
    }
  }
#elif defined(DEQUANT32)
  const uint blk = row + b * BLOCK_BYTES;
  for (uint s = 0u; s < BLOCK_ELEMS / 32u; ++s) {
    float v[32];
    dequant32(blk, s, v);
    for (uint i = 0u; i < nt; ++i) {
      const uint xb = x + i * xs + b * BLOCK_ELEMS + 32u * s;
      float sum = 0.0;
      for (uint l = 0u; l < 32u; ++l) sum += v[l] * globals_f[xb + l];
      acc[i] += sum;
    }
  }
#elif WTYPE == 8
  const uint blk = row + b * 34u;
  const float d = weight_half(blk);
  int q[8];
  for (uint w = 0u; w < 8u; ++w) q[w] = int(weight_u32_2(blk + 2u + 4u * w));
  for (uint i = 0u; i < nt; ++i) {
    const uint xb = x + i * xs + b * 32u;
    float sum = 0.0;
    for (uint w = 0u; w < 8u; ++w) {
      const uint e = xb + 4u * w;
      sum += float(bitfieldExtract(q[w], 0, 8)) * globals_f[e] + float(bitfieldExtract(q[w], 8, 8)) * globals_f[e + 1u] +
             float(bitfieldExtract(q[w], 16, 8)) * globals_f[e + 2u] + float(bitfieldExtract(q[w], 24, 8)) * globals_f[e + 3u];
    }
    acc[i] += sum * d;
  }
#else
  const uint blk = row + b * 18u;
  const float d = weight_half(blk);
  uint q[4];
  for (uint w = 0u; w < 4u; ++w) q[w] = weight_u32_2(blk + 2u + 4u * w);
  for (uint i = 0u; i < nt; ++i) {
    const uint xb = x + i * xs + b * 32u;
    float sum = 0.0;
    for (uint w = 0u; w < 4u; ++w)
      for (uint j = 0u; j < 4u; ++j) {
        const uint byte = (q[w] >> (8u * j)) & 0xFFu, e = 4u * w + j;
        sum += (float(byte & 15u) - 8.0) * globals_f[xb + e] + (float(byte >> 4) - 8.0) * globals_f[xb + e + 16u];
      }
    acc[i] += sum * d;
  }
#endif
}

#endif
