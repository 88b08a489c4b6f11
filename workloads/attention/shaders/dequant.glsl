// Reading ggml weight encodings straight from 32-bit words (no 8/16-bit storage needed).
// Offsets are BYTE offsets into the weights' words. Q8_0/Q4_0 blocks are 34/18 bytes, so a block
// starts on a 2-byte boundary and its words may straddle two words; the helpers below splice them.
// Where the words are (open_weights, once in main, gives the tensor's first byte):
//   default      Heap through the bound window: the tensor starts at Heap word pc.args.w.
//   FAR_WEIGHTS  the tensor is a Heap far segment of its own (records of one word; the kernel
//                defines WEFT_FAR_ACCESS and takes a far argument): it starts at byte 0, so
//                byte offsets stay below 4 GiB whatever the model's size.
//   F32: 4 bytes per element.  F16: 2 bytes per element.
//   Q8_0: f16 scale d + 32 int8 q:            x[k] = q[k] * d
//   Q4_0: f16 scale d + 16 bytes of nibbles:  x[k] = (nibble - 8) * d, low nibbles are k = 0..15
// WTYPE picks the encoding: 0 F32, 1 F16, 8 Q8_0, 2 Q4_0 (the ggml type ids).
#ifndef ATTENTION_DEQUANT_GLSL
#define ATTENTION_DEQUANT_GLSL

#ifndef WTYPE
#error "define WTYPE (ggml type id: 0 F32, 1 F16, 2 Q4_0, 8 Q8_0)"
#endif

#ifdef FAR_WEIGHTS
WeftFar weights_far;  // opened once: each word read then costs only its chunk's address
uint open_weights(uint arg) {
  weights_far = weft_far_heap(arg);
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
#else
#error "unsupported WTYPE"
#endif

uint row_bytes(uint cols) { return cols / BLOCK_ELEMS * BLOCK_BYTES; }

// Element k of the row starting at byte `row`.
float weight_at(uint row, uint k) {
#if WTYPE == 0
  return weight_f32((row >> 2) + k);
#elif WTYPE == 1
  return weight_half(row + 2u * k);
#elif WTYPE == 8
  const uint blk = row + (k >> 5) * 34u, j = k & 31u;
  return weight_half(blk) * float(bitfieldExtract(int(weight_byte(blk + 2u + j)), 0, 8));
#else
  const uint blk = row + (k >> 5) * 18u, j = k & 31u;
  const uint byte = weight_byte(blk + 2u + (j & 15u));
  return weight_half(blk) * (float(j < 16u ? byte & 15u : byte >> 4) - 8.0);
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
#elif WTYPE == 1
  const float w = weight_half(row + 2u * b);
  for (uint i = 0u; i < nt; ++i) acc[i] += w * globals_f[x + i * xs + b];
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
