// Decoding packed weights (see dtype.h for the layout) from PARAM_U / PARAM_F (Heap, or Globals
// for training). WDTYPE (the DType enum value) selects the type; the build makes one variant of
// each kernel that includes this per type.
//   code_value(row, c)   the unscaled value q of element c of the row at word `row`
//   BITS, SCALE_FLOATS   storage bits per element, f32 scale words per block of kBlock columns
#ifndef VOLUMETRIC_PACKED_GLSL
#define VOLUMETRIC_PACKED_GLSL
#ifndef WDTYPE
#error "define WDTYPE (weft::volumetric::DType value)"
#endif

#define T_F64 0
#define T_F32 1
#define T_F16 2
#define T_BF16 3
#define T_E4M3 4
#define T_E5M2 5
#define T_I64 6
#define T_I32 7
#define T_I16 8
#define T_I8 9
#define T_U64 10
#define T_U32 11
#define T_U16 12
#define T_U8 13
#define T_I4 14
#define T_U4 15
#define T_FP4 16
#define T_I2 17
#define T_U2 18
#define T_TERNARY 19
#define T_BINARY 20

#if WDTYPE == T_F64 || WDTYPE == T_I64 || WDTYPE == T_U64
#define BITS 64
#elif WDTYPE == T_F32 || WDTYPE == T_I32 || WDTYPE == T_U32
#define BITS 32
#elif WDTYPE == T_F16 || WDTYPE == T_BF16 || WDTYPE == T_I16 || WDTYPE == T_U16
#define BITS 16
#elif WDTYPE == T_E4M3 || WDTYPE == T_E5M2 || WDTYPE == T_I8 || WDTYPE == T_U8
#define BITS 8
#elif WDTYPE == T_I4 || WDTYPE == T_U4 || WDTYPE == T_FP4
#define BITS 4
#elif WDTYPE == T_I2 || WDTYPE == T_U2 || WDTYPE == T_TERNARY
#define BITS 2
#else
#define BITS 1
#endif

#if WDTYPE <= T_BF16
#define SCALE_FLOATS 0
#elif WDTYPE == T_U64 || WDTYPE == T_U32 || WDTYPE == T_U16 || WDTYPE == T_U8 || WDTYPE == T_U4 || WDTYPE == T_U2
#define SCALE_FLOATS 2
#else
#define SCALE_FLOATS 1
#endif

const uint kBlock = 32u;

// Minifloat without inf/NaN codes in use (weights saturate when packed): e exponent bits,
// m mantissa bits, bias.
float minifloat(uint code, uint e_bits, uint m_bits, int bias) {
  const uint e = (code >> m_bits) & ((1u << e_bits) - 1u), m = code & ((1u << m_bits) - 1u);
  const float mag = e == 0u ? ldexp(float(m), 1 - bias - int(m_bits)) : ldexp(float(m | (1u << m_bits)), int(e) - bias - int(m_bits));
  return ((code >> (e_bits + m_bits)) & 1u) != 0u ? -mag : mag;
}

// The unscaled value of element c of the row starting at Heap word `row`.
float code_value(uint row, uint c) {
#if BITS == 64
  const uint lo = PARAM_U[row + 2u * c], hi = PARAM_U[row + 2u * c + 1u];
#if WDTYPE == T_F64
  // Sign, 11-bit exponent, 52-bit mantissa: 20 bits in hi, 32 in lo.
  const uint e = (hi >> 20) & 0x7FFu;
  if (e == 0u) return 0.0;  // f64 subnormals are far below f32's range
  const float mant = 1.0 + float(hi & 0xFFFFFu) * exp2(-20.0) + float(lo) * exp2(-52.0);
  const float mag = ldexp(mant, clamp(int(e) - 1023, -150, 128));
  return (hi >> 31) != 0u ? -mag : mag;
#elif WDTYPE == T_I64
  return float(int(hi)) * 4294967296.0 + float(lo);
#else
  return float(hi) * 4294967296.0 + float(lo);
#endif
#else
  const uint bit = c * uint(BITS);
  uint code = PARAM_U[row + (bit >> 5)] >> (bit & 31u);
#if BITS < 32
  code &= (1u << uint(BITS)) - 1u;
#endif
#if WDTYPE == T_F32
  return uintBitsToFloat(code);
#elif WDTYPE == T_F16
  return unpackHalf2x16(code).x;
#elif WDTYPE == T_BF16
  return uintBitsToFloat(code << 16);
#elif WDTYPE == T_E4M3
  return minifloat(code, 4u, 3u, 7);
#elif WDTYPE == T_E5M2
  return minifloat(code, 5u, 2u, 15);
#elif WDTYPE == T_FP4
  return minifloat(code, 2u, 1u, 1);
#elif WDTYPE == T_I32 || WDTYPE == T_I16 || WDTYPE == T_I8 || WDTYPE == T_I4 || WDTYPE == T_I2
  return float(bitfieldExtract(int(code), 0, int(BITS)));
#elif WDTYPE == T_TERNARY
  return code == 1u ? 1.0 : code == 2u ? -1.0 : 0.0;
#elif WDTYPE == T_BINARY
  return code != 0u ? 1.0 : -1.0;
#else
  return float(code);  // unsigned, affine
#endif
#endif
}


// The decoded weight (q times its block's scale; lo + q * s for unsigned types) of element c in
// row r of a matrix with `blocks` blocks per row: what the CPU's unpack_at gives.
float weight_at(uint W, uint S, uint row_words, uint blocks, uint r, uint c) {
  const float q = code_value(W + r * row_words, c);
  const uint blk = r * blocks + c / kBlock;
#if SCALE_FLOATS == 0
  return q;
#elif SCALE_FLOATS == 1
  return PARAM_F[S + blk] * q;
#else
  return PARAM_F[S + 2u * blk + 1u] + PARAM_F[S + 2u * blk] * q;
#endif
}

#endif
