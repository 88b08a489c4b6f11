// Element encodings and the packed layout described in dtype.h.
#include "dtype.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <weft/error.h>

namespace weft::volumetric {

namespace {

struct TypeInfo {
  const char* name;
  uint32_t bits;
  uint32_t scale_floats;
};
constexpr TypeInfo kTypes[kDTypeCount] = {
    {"f64", 64, 0},  {"f32", 32, 0},     {"f16", 16, 0},     {"bf16", 16, 0}, {"fp8_e4m3", 8, 1}, {"fp8_e5m2", 8, 1},
    {"int64", 64, 1}, {"int32", 32, 1},  {"int16", 16, 1},   {"int8", 8, 1},  {"uint64", 64, 2},  {"uint32", 32, 2},
    {"uint16", 16, 2}, {"uint8", 8, 2},  {"int4", 4, 1},     {"uint4", 4, 2}, {"fp4_e2m1", 4, 1}, {"int2", 2, 1},
    {"uint2", 2, 2},  {"ternary", 2, 1}, {"binary", 1, 1},
};

const TypeInfo& info(DType t) {
  const uint32_t i = uint32_t(t);
  if (i >= kDTypeCount) fail(ErrorCode::BadInput, "volumetric: numeric type id " + std::to_string(i) + " out of range");
  return kTypes[i];
}

// A minifloat with `eb` exponent bits, `mb` mantissa bits and bias `bias`; `max_code` is the
// code of the largest finite magnitude. Round to nearest even, saturating, zero keeps its sign.
uint32_t encode_minifloat(float v, int eb, int mb, int bias, uint32_t max_code) {
  const uint32_t sign = std::signbit(v) ? 1u << (eb + mb) : 0u;
  const double a = std::fabs(double(v));
  if (a == 0) return sign;
  const int emin = 1 - bias;  // exponent of the smallest normal
  uint32_t code;
  if (a < std::ldexp(1.0, emin)) {
    // Subnormal: a multiple of 2^(emin - mb); rounding up to 2^mb gives the smallest normal,
    // whose code is exactly 2^mb too.
    code = uint32_t(std::nearbyint(std::ldexp(a, mb - emin)));
  } else {
    int e;
    const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    e -= 1;                               // a = (2m) * 2^e, 2m in [1, 2)
    double q = std::nearbyint((2 * m - 1) * std::ldexp(1.0, mb));
    if (q == std::ldexp(1.0, mb)) {
      q = 0;
      e += 1;
    }
    const int E = e + bias;
    const uint64_t c = (uint64_t(std::max(E, 0)) << mb) | uint64_t(q);
    code = c > max_code || E >= (1 << eb) ? max_code : uint32_t(c);
  }
  return sign | std::min(code, max_code);
}

double decode_minifloat(uint32_t code, int eb, int mb, int bias) {
  const bool neg = (code >> (eb + mb)) & 1u;
  const uint32_t E = (code >> mb) & ((1u << eb) - 1), M = code & ((1u << mb) - 1);
  const double mag = E == 0 ? std::ldexp(double(M), 1 - bias - mb) : std::ldexp(1.0 + std::ldexp(double(M), -mb), int(E) - bias);
  return neg ? -mag : mag;
}

uint32_t f32_bits(float v) { return std::bit_cast<uint32_t>(v); }

// Bits [bit, bit + n) of a row's words (n <= 32, never straddling a word: n divides 32).
uint32_t get_bits(const uint32_t* row, uint64_t bit, uint32_t n) {
  const uint32_t w = row[bit / 32], sh = uint32_t(bit % 32);
  return n == 32 ? w : (w >> sh) & ((1u << n) - 1);
}
void put_bits(uint32_t* row, uint64_t bit, uint32_t n, uint32_t v) {
  uint32_t& w = row[bit / 32];
  const uint32_t sh = uint32_t(bit % 32);
  if (n == 32) {
    w = v;
    return;
  }
  const uint32_t mask = ((1u << n) - 1) << sh;
  w = (w & ~mask) | ((v << sh) & mask);
}

int64_t sign_extend(uint64_t v, uint32_t bits) {
  if (bits == 64) return int64_t(v);
  const uint64_t m = 1ull << (bits - 1);
  return int64_t((v ^ m) - m);
}

}  // namespace

const char* dtype_name(DType t) { return info(t).name; }
uint32_t dtype_bits(DType t) { return info(t).bits; }
uint32_t dtype_scale_floats(DType t) { return info(t).scale_floats; }
bool dtype_is_signed_int(DType t) {
  return t == DType::I64 || t == DType::I32 || t == DType::I16 || t == DType::I8 || t == DType::I4 || t == DType::I2;
}
bool dtype_is_unsigned_int(DType t) {
  return t == DType::U64 || t == DType::U32 || t == DType::U16 || t == DType::U8 || t == DType::U4 || t == DType::U2;
}
std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (uint32_t i = 0; i < kDTypeCount; ++i) v.push_back(DType(i));
  return v;
}

DType parse_dtype(const std::string& name) {
  for (uint32_t i = 0; i < kDTypeCount; ++i)
    if (name == kTypes[i].name) return DType(i);
  std::string known;
  for (const TypeInfo& t : kTypes) known += std::string(known.empty() ? "" : ", ") + t.name;
  fail(ErrorCode::BadInput, "unknown numeric type '" + name + "' (known: " + known + ")");
}

uint16_t f32_to_f16(float v) {
  if (std::isnan(v)) return uint16_t(std::signbit(v) ? 0xFE00 : 0x7E00);
  return uint16_t(encode_minifloat(v, 5, 10, 15, 0x7BFF));
}
float f16_to_f32(uint16_t h) {
  const uint32_t E = (h >> 10) & 0x1F;
  if (E == 0x1F) {
    const float inf = (h & 0x3FF) ? NAN : INFINITY;
    return (h & 0x8000) ? -inf : inf;
  }
  return float(decode_minifloat(h, 5, 10, 15));
}
uint16_t f32_to_bf16(float v) {
  const uint32_t b = f32_bits(v);
  if (std::isnan(v)) return uint16_t((b >> 16) | 0x40);
  return uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

uint8_t f32_to_e4m3(float v) {
  if (std::isnan(v)) return 0x7F;
  return uint8_t(encode_minifloat(v, 4, 3, 7, 0x7E));
}
float e4m3_to_f32(uint8_t c) {
  if ((c & 0x7F) == 0x7F) return NAN;
  return float(decode_minifloat(c, 4, 3, 7));
}
uint8_t f32_to_e5m2(float v) {
  if (std::isnan(v)) return 0x7E;
  return uint8_t(encode_minifloat(v, 5, 2, 15, 0x7B));
}
float e5m2_to_f32(uint8_t c) {
  if (((c >> 2) & 0x1F) == 0x1F) {
    const float inf = (c & 3) ? NAN : INFINITY;
    return (c & 0x80) ? -inf : inf;
  }
  return float(decode_minifloat(c, 5, 2, 15));
}
uint8_t f32_to_e2m1(float v) {
  if (std::isnan(v)) return 0;  // no NaN in e2m1; masters are finite (pack refuses NaN)
  return uint8_t(encode_minifloat(v, 2, 1, 1, 0x7));
}
float e2m1_to_f32(uint8_t c) { return float(decode_minifloat(c & 0xF, 2, 1, 1)); }

float dtype_max_finite(DType t) {
  switch (t) {
    case DType::FP8E4M3: return 448.0f;
    case DType::FP8E5M2: return 57344.0f;
    case DType::FP4: return 6.0f;
    case DType::F16: return 65504.0f;
    default: return 3.4028235e38f;
  }
}

Packed pack(const std::vector<float>& master, uint32_t rows, uint32_t cols, DType t) {
  const TypeInfo& ti = info(t);
  if (uint64_t(master.size()) != uint64_t(rows) * cols)
    fail(ErrorCode::BadInput, "volumetric: pack of " + std::to_string(rows) + " x " + std::to_string(cols) + " given " +
                                  std::to_string(master.size()) + " values");
  for (size_t i = 0; i < master.size(); ++i)
    if (!std::isfinite(master[i]))
      fail(ErrorCode::BadInput, "volumetric: weight " + std::to_string(i) + " (row " + std::to_string(i / std::max(cols, 1u)) +
                                    ") is not finite");
  Packed p;
  p.dtype = t;
  p.rows = rows;
  p.cols = cols;
  p.row_words = uint32_t((uint64_t(cols) * ti.bits + 31) / 32);
  p.words.assign(uint64_t(rows) * p.row_words, 0);
  const uint32_t nb = p.blocks_per_row();
  p.scales.assign(uint64_t(rows) * nb * ti.scale_floats, 0.0f);
  const uint32_t bits = ti.bits;
  for (uint32_t r = 0; r < rows; ++r) {
    uint32_t* row = p.words.data() + uint64_t(r) * p.row_words;
    const float* v = master.data() + uint64_t(r) * cols;
    for (uint32_t b = 0; b < nb; ++b) {
      const uint32_t c0 = b * kBlock, c1 = std::min(cols, c0 + kBlock);
      float maxabs = 0, lo = v[c0], hi = v[c0];
      double sumabs = 0;
      for (uint32_t c = c0; c < c1; ++c) {
        maxabs = std::max(maxabs, std::fabs(v[c]));
        lo = std::min(lo, v[c]);
        hi = std::max(hi, v[c]);
        sumabs += std::fabs(double(v[c]));
      }
      float* sc = p.scales.data() + (uint64_t(r) * nb + b) * ti.scale_floats;
      float s = 0;
      if (ti.scale_floats == 1) {
        if (t == DType::Ternary || t == DType::Binary)
          s = float(sumabs / double(c1 - c0));
        else if (dtype_is_signed_int(t))
          s = float((long double)maxabs / (long double)((1ull << (bits - 1)) - 1));
        else
          s = maxabs / dtype_max_finite(t);
        sc[0] = s;
      } else if (ti.scale_floats == 2) {
        s = float(((long double)hi - (long double)lo) / (bits == 64 ? (long double)~0ull : (long double)((1ull << bits) - 1)));
        sc[0] = s;
        sc[1] = lo;
      }
      for (uint32_t c = c0; c < c1; ++c) {
        const float x = v[c];
        const uint64_t bit = uint64_t(c) * bits;
        uint64_t code = 0;
        switch (t) {
          case DType::F64: {
            code = std::bit_cast<uint64_t>(double(x));
            break;
          }
          case DType::F32: code = f32_bits(x); break;
          case DType::F16: code = f32_to_f16(x); break;
          case DType::BF16: code = f32_to_bf16(x); break;
          case DType::FP8E4M3: code = s > 0 ? f32_to_e4m3(x / s) : 0; break;
          case DType::FP8E5M2: code = s > 0 ? f32_to_e5m2(x / s) : 0; break;
          case DType::FP4: code = s > 0 ? f32_to_e2m1(x / s) : 0; break;
          case DType::Ternary: {
            const double q = s > 0 ? std::clamp(std::nearbyint(double(x) / s), -1.0, 1.0) : 0.0;
            code = q > 0 ? 1 : q < 0 ? 2 : 0;
            break;
          }
          case DType::Binary: code = x >= 0 ? 1 : 0; break;
          default:
            if (dtype_is_signed_int(t)) {
              // long double holds 2^63 - 1 and 2^64 - 1 exactly (x87 64-bit mantissa).
              const long double qmax = (long double)((1ull << (bits - 1)) - 1);
              const long double q = s > 0 ? std::clamp(std::nearbyint((long double)x / (long double)s), -qmax, qmax) : 0.0L;
              code = uint64_t(int64_t(q));
              if (bits < 64) code &= (1ull << bits) - 1;
            } else {  // unsigned, affine
              const long double qmax = bits == 64 ? (long double)~0ull : (long double)((1ull << bits) - 1);
              const long double q =
                  s > 0 ? std::clamp(std::nearbyint(((long double)x - (long double)lo) / (long double)s), 0.0L, qmax) : 0.0L;
              code = uint64_t(q);
            }
        }
        if (bits == 64) {
          row[2 * c] = uint32_t(code);
          row[2 * c + 1] = uint32_t(code >> 32);
        } else {
          put_bits(row, bit, bits, uint32_t(code));
        }
      }
    }
  }
  return p;
}

float unpack_at(const Packed& p, uint32_t r, uint32_t c) {
  const TypeInfo& ti = info(p.dtype);
  const uint32_t bits = ti.bits;
  const uint32_t* row = p.words.data() + uint64_t(r) * p.row_words;
  uint64_t code;
  if (bits == 64)
    code = uint64_t(row[2 * c]) | (uint64_t(row[2 * c + 1]) << 32);
  else
    code = get_bits(row, uint64_t(c) * bits, bits);
  const float* sc = p.scales.data() + (uint64_t(r) * p.blocks_per_row() + c / kBlock) * ti.scale_floats;
  const DType t = p.dtype;
  switch (t) {
    case DType::F64: return float(std::bit_cast<double>(code));
    case DType::F32: return std::bit_cast<float>(uint32_t(code));
    case DType::F16: return f16_to_f32(uint16_t(code));
    case DType::BF16: return bf16_to_f32(uint16_t(code));
    case DType::FP8E4M3: return e4m3_to_f32(uint8_t(code)) * sc[0];
    case DType::FP8E5M2: return e5m2_to_f32(uint8_t(code)) * sc[0];
    case DType::FP4: return e2m1_to_f32(uint8_t(code)) * sc[0];
    case DType::Ternary: return code == 1 ? sc[0] : code == 2 ? -sc[0] : 0.0f;
    case DType::Binary: return code ? sc[0] : -sc[0];
    default:
      // Integers decode in double, then round once to f32: the exact value of q * s (and
      // lo + q * s), correctly rounded. The device decodes in f32 (see dense.glsl); the
      // difference is within a few f32 ulps of the weight and is part of the device bound.
      if (dtype_is_signed_int(t)) return float((long double)sign_extend(code, bits) * (long double)sc[0]);
      return float((long double)sc[1] + (long double)code * (long double)sc[0]);
  }
}

std::vector<float> unpack(const Packed& p) {
  std::vector<float> out(uint64_t(p.rows) * p.cols);
  for (uint32_t r = 0; r < p.rows; ++r)
    for (uint32_t c = 0; c < p.cols; ++c) out[uint64_t(r) * p.cols + c] = unpack_at(p, r, c);
  return out;
}

}  // namespace weft::volumetric
