// The 21 numeric types of a volumetric network and their packed storage (Vulkan-free).
//
// An f32 master matrix (rows x cols, row-major) is the source of truth; pack() turns it into a
// packed version and unpack() gives f32 back. The packed layout is what the device kernels read
// from Heap as 32-bit words, so it is defined bit by bit here:
//
//   * every row starts on a word boundary; element c of a row sits at bit c*bits of the row's
//     words, little-endian inside a word (element 0 in the lowest bits). 64-bit types take two
//     words per element, low word first.
//   * scales are per block of kBlock (32) columns of a row (the last block of a row may be
//     shorter), stored as f32 after each other in `scales`, block-major within a row:
//       f64, f32, f16, bf16                 no scale (direct encodings, round to nearest even)
//       fp8 e4m3, fp8 e5m2, fp4 e2m1        1 scale: s = maxabs / largest finite; code = enc(v / s)
//       int64/32/16/8/4/2                   1 scale: s = maxabs / qmax, qmax = 2^(k-1) - 1;
//                                           q = clamp(round(v / s), -qmax, qmax) two's complement
//       uint64/32/16/8/4/2                  2 floats (s, lo): s = (max - min) / (2^k - 1), lo = min;
//                                           q = round((v - lo) / s); value = lo + q * s
//       ternary                             1 scale: a = mean |v|; q = clamp(round(v / a), -1, 1);
//                                           code 0 -> 0, 1 -> +1, 2 -> -1 (3 reads as 0)
//       binary                              1 scale: a = mean |v|; bit 1 -> +a, bit 0 -> -a
//     A block of zeros has scale 0 and decodes to zeros.
//   * minifloats saturate: finite values beyond the largest finite encode as the largest finite
//     (weights are quantised, not overflowed); fp8 e4m3 is the OCP "FN" variant (no infinities,
//     S.1111.111 is NaN, max 448); e5m2 is IEEE-like (max 57344); fp4 e2m1 has no inf/NaN (max 6).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::volumetric {

enum class DType : uint32_t {
  F64 = 0, F32, F16, BF16, FP8E4M3, FP8E5M2,
  I64, I32, I16, I8, U64, U32, U16, U8,
  I4, U4, FP4, I2, U2, Ternary, Binary,
};
inline constexpr uint32_t kDTypeCount = 21;
inline constexpr uint32_t kBlock = 32;  // columns per scale block

const char* dtype_name(DType t);
// BadInput naming the text when it is not one of the names dtype_name gives.
DType parse_dtype(const std::string& name);
uint32_t dtype_bits(DType t);        // storage bits per element
uint32_t dtype_scale_floats(DType t);  // f32 words per block of kBlock columns (0, 1 or 2)
bool dtype_is_signed_int(DType t);
bool dtype_is_unsigned_int(DType t);
std::vector<DType> all_dtypes();

// ---- element encodings (exposed for bit-level tests) ----
uint16_t f32_to_f16(float v);   // round to nearest even, saturating to +-65504, NaN kept
float f16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float v);  // round to nearest even, NaN kept quiet
float bf16_to_f32(uint16_t h);
uint8_t f32_to_e4m3(float v);
float e4m3_to_f32(uint8_t c);
uint8_t f32_to_e5m2(float v);
float e5m2_to_f32(uint8_t c);
uint8_t f32_to_e2m1(float v);  // 4-bit code in the low nibble
float e2m1_to_f32(uint8_t c);
float dtype_max_finite(DType t);  // for the minifloats

struct Packed {
  DType dtype = DType::F32;
  uint32_t rows = 0, cols = 0;
  uint32_t row_words = 0;        // 32-bit words per row
  std::vector<uint32_t> words;   // rows * row_words
  std::vector<float> scales;     // rows * blocks_per_row * dtype_scale_floats
  uint32_t blocks_per_row() const { return (cols + kBlock - 1) / kBlock; }
  uint64_t bytes() const { return uint64_t(words.size()) * 4 + uint64_t(scales.size()) * 4; }
  bool operator==(const Packed&) const = default;
};

// BadInput when master.size() != rows * cols or a value is not finite.
Packed pack(const std::vector<float>& master, uint32_t rows, uint32_t cols, DType t);
std::vector<float> unpack(const Packed& p);
// One element, decoded exactly as unpack does (the device kernels mirror this).
float unpack_at(const Packed& p, uint32_t row, uint32_t col);

}  // namespace weft::volumetric
