// One block codec per ggml weight type, each written from the type's definition (ggml-common.h
// block layouts, the dequantization formulas of ggml-quants.c); see quant.h for the layouts.
// The encoders are Weft's own simple quantizers (scales from each sub-block's range): any valid
// block decodes the same everywhere, so only the decoders must agree with ggml.
#include "quant.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "bits.h"
#include "error.h"
#include "gguf.h"

namespace weft::attention {
namespace {

uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
void put16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v), p[1] = uint8_t(v >> 8); }
void put32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }
float half_at(const uint8_t* p) { return half_to_float(get16(p)); }
// Stores `v` as f16 at p and returns the value the decoder will read back.
float store_half(uint8_t* p, float v) {
  put16(p, float_to_half(v));
  return half_at(p);
}
int clamp_round(float v, int lo, int hi) { return std::clamp(int(std::lround(v)), lo, hi); }

// ---- plain types ----------------------------------------------------------------------------

void decode_f32(const uint8_t* b, float* y) { std::memcpy(y, b, 4); }
void encode_f32(const float* x, uint8_t* b) { std::memcpy(b, x, 4); }
void decode_f16(const uint8_t* b, float* y) { *y = half_at(b); }
void encode_f16(const float* x, uint8_t* b) { put16(b, float_to_half(*x)); }
void decode_bf16(const uint8_t* b, float* y) {
  const uint32_t u = uint32_t(get16(b)) << 16;
  std::memcpy(y, &u, 4);
}
void encode_bf16(const float* x, uint8_t* b) {  // round to nearest even, NaN kept a (quiet) NaN
  uint32_t u;
  std::memcpy(&u, x, 4);
  const uint16_t h = std::isnan(*x) ? uint16_t((u >> 16) | 0x40) : uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
  put16(b, h);
}

// ---- 32-element blocks ----------------------------------------------------------------------
// Element k < 16 is the low nibble of byte k, element 16 + k its high nibble; Q5 types keep
// the fifth bit of element k in bit k of the 32-bit qh.

void decode_q8_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int k = 0; k < 32; ++k) y[k] = float(int8_t(b[2 + k])) * d;
}
void encode_q8_0(const float* x, uint8_t* b) {
  float amax = 0;
  for (int k = 0; k < 32; ++k) amax = std::max(amax, std::fabs(x[k]));
  const float d = amax / 127.0f, id = d ? 1.0f / d : 0.0f;
  put16(b, float_to_half(d));
  for (int k = 0; k < 32; ++k) b[2 + k] = uint8_t(int8_t(std::lround(x[k] * id)));
}

float signed_max(const float* x, int n) {  // the element of largest magnitude, with its sign
  float amax = 0, mx = 0;
  for (int k = 0; k < n; ++k)
    if (std::fabs(x[k]) > amax) amax = std::fabs(x[k]), mx = x[k];
  return mx;
}

void decode_q4_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int k = 0; k < 16; ++k) y[k] = float(int(b[2 + k] & 0xF) - 8) * d, y[k + 16] = float(int(b[2 + k] >> 4) - 8) * d;
}
void encode_q4_0(const float* x, uint8_t* b) {
  const float d = signed_max(x, 32) / -8.0f, id = d ? 1.0f / d : 0.0f;
  put16(b, float_to_half(d));
  for (int k = 0; k < 16; ++k)
    b[2 + k] = uint8_t(std::min(15, int(x[k] * id + 8.5f)) | (std::min(15, int(x[k + 16] * id + 8.5f)) << 4));
}

void decode_q4_1(const uint8_t* b, float* y) {
  const float d = half_at(b), m = half_at(b + 2);
  for (int k = 0; k < 16; ++k) y[k] = float(b[4 + k] & 0xF) * d + m, y[k + 16] = float(b[4 + k] >> 4) * d + m;
}
void encode_q4_1(const float* x, uint8_t* b) {
  const auto [lo, hi] = std::minmax_element(x, x + 32);
  const float m = store_half(b + 2, *lo), d = store_half(b, (*hi - *lo) / 15.0f), id = d ? 1.0f / d : 0.0f;
  for (int k = 0; k < 16; ++k)
    b[4 + k] = uint8_t(clamp_round((x[k] - m) * id, 0, 15) | (clamp_round((x[k + 16] - m) * id, 0, 15) << 4));
}

// Five-bit value k of a Q5 block: nibble plus the qh bit.
int q5_value(const uint8_t* qs, uint32_t qh, int k) {
  const int nibble = k < 16 ? qs[k] & 0xF : qs[k - 16] >> 4;
  return nibble | int((qh >> k) & 1) << 4;
}
void pack_q5(const int* q, uint8_t* qs, uint8_t* qh) {
  uint32_t h = 0;
  for (int k = 0; k < 16; ++k) qs[k] = uint8_t((q[k] & 0xF) | (q[k + 16] & 0xF) << 4);
  for (int k = 0; k < 32; ++k) h |= uint32_t(q[k] >> 4 & 1) << k;
  put32(qh, h);
}

void decode_q5_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int k = 0; k < 32; ++k) y[k] = float(q5_value(b + 6, get32(b + 2), k) - 16) * d;
}
void encode_q5_0(const float* x, uint8_t* b) {
  const float d = signed_max(x, 32) / -16.0f, id = d ? 1.0f / d : 0.0f;
  put16(b, float_to_half(d));
  int q[32];
  for (int k = 0; k < 32; ++k) q[k] = std::min(31, int(x[k] * id + 16.5f));
  pack_q5(q, b + 6, b + 2);
}

void decode_q5_1(const uint8_t* b, float* y) {
  const float d = half_at(b), m = half_at(b + 2);
  for (int k = 0; k < 32; ++k) y[k] = float(q5_value(b + 8, get32(b + 4), k)) * d + m;
}
void encode_q5_1(const float* x, uint8_t* b) {
  const auto [lo, hi] = std::minmax_element(x, x + 32);
  const float m = store_half(b + 2, *lo), d = store_half(b, (*hi - *lo) / 31.0f), id = d ? 1.0f / d : 0.0f;
  int q[32];
  for (int k = 0; k < 32; ++k) q[k] = clamp_round((x[k] - m) * id, 0, 31);
  pack_q5(q, b + 8, b + 4);
}

// ---- 256-element super-blocks (K-quants) ----------------------------------------------------

// Q4_K/Q5_K: eight 6-bit scales and mins packed in 12 bytes (ggml's get_scale_min_k4).
void scale_min_k4(int j, const uint8_t* q, int& sc, int& m) {
  if (j < 4) sc = q[j] & 63, m = q[j + 4] & 63;
  else sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
}
void pack_scale_min_k4(const int* sc, const int* m, uint8_t* q) {
  std::memset(q, 0, 12);
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      q[j] = uint8_t(sc[j]), q[j + 4] = uint8_t(m[j]);
    } else {
      q[j + 4] = uint8_t((sc[j] & 0xF) | (m[j] & 0xF) << 4);
      q[j - 4] |= uint8_t((sc[j] >> 4) << 6);
      q[j] |= uint8_t((m[j] >> 4) << 6);
    }
  }
}

// Scales and mins of `n` sub-blocks of `len` elements each, quantized to `qmax` levels with
// 6-bit (max 63) or 4-bit (max 15) scale/min codes: value = d * sc * q - dmin * m.
struct AffineCodes {
  std::array<int, 16> sc{}, m{};
  float d = 0, dmin = 0;
};
AffineCodes affine_codes(const float* x, int n, int len, int qmax, int code_max) {
  std::array<float, 16> scale{}, min{};
  for (int s = 0; s < n; ++s) {
    const auto [lo, hi] = std::minmax_element(x + s * len, x + (s + 1) * len);
    min[s] = -std::min(0.0f, *lo);
    scale[s] = (*hi + min[s]) / float(qmax);
  }
  AffineCodes c;
  c.d = *std::max_element(scale.begin(), scale.begin() + n) / float(code_max);
  c.dmin = *std::max_element(min.begin(), min.begin() + n) / float(code_max);
  for (int s = 0; s < n; ++s) {
    c.sc[s] = c.d ? clamp_round(scale[s] / c.d, 0, code_max) : 0;
    c.m[s] = c.dmin ? clamp_round(min[s] / c.dmin, 0, code_max) : 0;
  }
  return c;
}
// The level of x once d/dmin have their stored (f16) values.
int affine_level(float x, float d, int sc, float dmin, int m, int qmax) {
  const float step = d * float(sc);
  return step ? clamp_round((x + dmin * float(m)) / step, 0, qmax) : 0;
}

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin. Element e: half
// n = e / 128, j = (e % 128) / 32 picks the 2-bit field, l = e % 32 the byte; sub-block e / 16.
void decode_q2_k(const uint8_t* b, float* y) {
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  for (int e = 0; e < 256; ++e) {
    const int n = e / 128, j = e % 128 / 32, l = e % 32, sc = b[e / 16];
    y[e] = d * float(sc & 0xF) * float(b[16 + 32 * n + l] >> (2 * j) & 3) - dmin * float(sc >> 4);
  }
}
void encode_q2_k(const float* x, uint8_t* b) {
  AffineCodes c = affine_codes(x, 16, 16, 3, 15);
  c.d = store_half(b + 80, c.d), c.dmin = store_half(b + 82, c.dmin);
  std::memset(b, 0, 80);
  for (int s = 0; s < 16; ++s) b[s] = uint8_t(c.sc[s] | c.m[s] << 4);
  for (int e = 0; e < 256; ++e) {
    const int q = affine_level(x[e], c.d, c.sc[e / 16], c.dmin, c.m[e / 16], 3);
    b[16 + 32 * (e / 128) + e % 32] |= uint8_t(q << (2 * (e % 128 / 32)));
  }
}

// Q3_K: hmask[32], qs[64], scales[12] (sixteen 6-bit signed scales + 32), d. Element e keeps
// two bits in qs like Q2_K and its third in bit e / 32 of hmask[e % 32] (set: no -4).
int q3_scale(const uint8_t* s, int k) {
  const int low = k < 8 ? s[k] & 0xF : s[k - 8] >> 4;
  return (low | (s[8 + k % 4] >> (2 * (k / 4)) & 3) << 4) - 32;
}
void decode_q3_k(const uint8_t* b, float* y) {
  const float d = half_at(b + 108);
  for (int e = 0; e < 256; ++e) {
    const int n = e / 128, j = e % 128 / 32, l = e % 32;
    const int q = (b[32 + 32 * n + l] >> (2 * j) & 3) - ((b[l] >> (e / 32) & 1) ? 0 : 4);
    y[e] = d * float(q3_scale(b + 96, e / 16)) * float(q);
  }
}
void encode_q3_k(const float* x, uint8_t* b) {
  // Signed scales put each sub-block's largest magnitude on level -4, the one level without a
  // positive twin; the block's largest scale goes on code -32 the same way.
  std::array<float, 16> scale{};
  float max_scale = 0;
  for (int s = 0; s < 16; ++s) {
    scale[s] = signed_max(x + 16 * s, 16) / -4.0f;
    if (std::fabs(scale[s]) > std::fabs(max_scale)) max_scale = scale[s];
  }
  const float d = store_half(b + 108, max_scale / -32.0f);
  std::memset(b, 0, 108);
  std::array<int, 16> sc{};
  for (int k = 0; k < 16; ++k) {
    sc[k] = d ? clamp_round(scale[k] / d, -32, 31) : 0;
    const int code = sc[k] + 32;
    if (k < 8) b[96 + k] |= uint8_t(code & 0xF);
    else b[96 + k - 8] |= uint8_t((code & 0xF) << 4);
    b[96 + 8 + k % 4] |= uint8_t((code >> 4) << (2 * (k / 4)));
  }
  for (int e = 0; e < 256; ++e) {
    const float step = d * float(sc[e / 16]);
    const int level = (step ? clamp_round(x[e] / step, -4, 3) : 0) + 4;
    b[32 + 32 * (e / 128) + e % 32] |= uint8_t((level & 3) << (2 * (e % 128 / 32)));
    if (level > 3) b[e % 32] |= uint8_t(1 << (e / 32));
  }
}

// Q4_K: d, dmin, scales[12], qs[128]. Q5_K: d, dmin, scales[12], qh[32], qs[128]. Element e of
// sub-block s = e / 32 is the low nibble of qs[32 (s / 2) + e % 32] for even s, the high one for
// odd s; Q5_K adds bit s of qh[e % 32] as the fifth bit.
int k_nibble(const uint8_t* qs, int e) {
  const uint8_t v = qs[32 * (e / 64) + e % 32];
  return e / 32 % 2 ? v >> 4 : v & 0xF;
}
void decode_k_affine(const uint8_t* b, const uint8_t* qh, const uint8_t* qs, float* y) {  // qh null: Q4_K
  const float d = half_at(b), dmin = half_at(b + 2);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32;
    int sc, m;
    scale_min_k4(s, b + 4, sc, m);
    const int q = k_nibble(qs, e) | (qh ? (qh[e % 32] >> s & 1) << 4 : 0);
    y[e] = d * float(sc) * float(q) - dmin * float(m);
  }
}
void encode_k_affine(const float* x, uint8_t* b, uint8_t* qh, uint8_t* qs, int qmax) {
  AffineCodes c = affine_codes(x, 8, 32, qmax, 63);
  c.d = store_half(b, c.d), c.dmin = store_half(b + 2, c.dmin);
  pack_scale_min_k4(c.sc.data(), c.m.data(), b + 4);
  std::memset(qs, 0, 128);
  if (qh) std::memset(qh, 0, 32);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32, q = affine_level(x[e], c.d, c.sc[s], c.dmin, c.m[s], qmax);
    qs[32 * (e / 64) + e % 32] |= uint8_t(s % 2 ? (q & 0xF) << 4 : q & 0xF);
    if (qh) qh[e % 32] |= uint8_t((q >> 4) << s);
  }
}
void decode_q4_k(const uint8_t* b, float* y) { decode_k_affine(b, nullptr, b + 16, y); }
void encode_q4_k(const float* x, uint8_t* b) { encode_k_affine(x, b, nullptr, b + 16, 15); }
void decode_q5_k(const uint8_t* b, float* y) { decode_k_affine(b, b + 16, b + 48, y); }
void encode_q5_k(const float* x, uint8_t* b) { encode_k_affine(x, b, b + 16, b + 48, 31); }

// Q6_K: ql[128], qh[64], scales[16] (int8), d. Element e: half n = e / 128, quarter
// j = (e % 128) / 32, l = e % 32: low nibble of ql[64 n + l + 32 (j % 2)] (high nibble for
// j >= 2), two high bits from qh[32 n + l] >> 2 j, scale scales[8 n + l / 16 + 2 j]; q - 32.
void decode_q6_k(const uint8_t* b, float* y) {
  const float d = half_at(b + 208);
  for (int e = 0; e < 256; ++e) {
    const int n = e / 128, j = e % 128 / 32, l = e % 32;
    const uint8_t low = b[64 * n + l + 32 * (j % 2)];
    const int q = ((j < 2 ? low & 0xF : low >> 4) | (b[128 + 32 * n + l] >> (2 * j) & 3) << 4) - 32;
    y[e] = d * float(int8_t(b[192 + 8 * n + l / 16 + 2 * j])) * float(q);
  }
}
void encode_q6_k(const float* x, uint8_t* b) {
  std::array<float, 16> scale{};
  for (int s = 0; s < 16; ++s) scale[s] = std::fabs(signed_max(x + 16 * s, 16)) / 31.0f;
  const float d = store_half(b + 208, *std::max_element(scale.begin(), scale.end()) / 127.0f);
  std::memset(b, 0, 208);
  for (int s = 0; s < 16; ++s) b[192 + s] = uint8_t(int8_t(d ? clamp_round(scale[s] / d, 0, 127) : 0));
  for (int e = 0; e < 256; ++e) {
    const int n = e / 128, j = e % 128 / 32, l = e % 32, s = 8 * n + l / 16 + 2 * j;
    const float step = d * float(int8_t(b[192 + s]));
    const int q = (step ? clamp_round(x[e] / step, -32, 31) : 0) + 32;
    b[64 * n + l + 32 * (j % 2)] |= uint8_t(j < 2 ? q & 0xF : (q & 0xF) << 4);
    b[128 + 32 * n + l] |= uint8_t((q >> 4) << (2 * j));
  }
}

struct Codec {
  uint32_t type;
  void (*decode)(const uint8_t*, float*);
  void (*encode)(const float*, uint8_t*);
};
constexpr Codec kCodecs[] = {
    {gguf::type::F32, decode_f32, encode_f32},    {gguf::type::F16, decode_f16, encode_f16},
    {gguf::type::BF16, decode_bf16, encode_bf16}, {gguf::type::Q8_0, decode_q8_0, encode_q8_0},
    {gguf::type::Q4_0, decode_q4_0, encode_q4_0}, {gguf::type::Q4_1, decode_q4_1, encode_q4_1},
    {gguf::type::Q5_0, decode_q5_0, encode_q5_0}, {gguf::type::Q5_1, decode_q5_1, encode_q5_1},
    {gguf::type::Q2_K, decode_q2_k, encode_q2_k}, {gguf::type::Q3_K, decode_q3_k, encode_q3_k},
    {gguf::type::Q4_K, decode_q4_k, encode_q4_k}, {gguf::type::Q5_K, decode_q5_k, encode_q5_k},
    {gguf::type::Q6_K, decode_q6_k, encode_q6_k},
};

const Codec& codec(uint32_t t, const char* what) {
  for (const Codec& c : kCodecs)
    if (c.type == t) return c;
  fail(ErrorCode::BadInput, std::string(what) + ": ggml type " + gguf::type_name(t) + " is not supported (" +
                                supported_weight_type_names() + " are)");
}

}  // namespace

std::string supported_weight_type_names() {
  std::string known;
  for (const Codec& c : kCodecs) known += (known.empty() ? "" : ", ") + gguf::type_name(c.type);
  return known;
}

bool supported_weight_type(uint32_t t) {
  return std::any_of(std::begin(kCodecs), std::end(kCodecs), [&](const Codec& c) { return c.type == t; });
}

std::vector<uint8_t> encode(uint32_t t, std::span<const float> v) {
  const Codec& c = codec(t, "encode");
  const gguf::TypeTraits* tr = gguf::type_traits(t);
  if (v.size() % tr->block_elements)
    fail(ErrorCode::BadInput, "encode: " + std::to_string(v.size()) + " elements are not whole " + tr->name + " blocks of " +
                                  std::to_string(tr->block_elements));
  std::vector<uint8_t> out(v.size() / tr->block_elements * tr->block_bytes);
  for (size_t b = 0; b < v.size() / tr->block_elements; ++b) c.encode(v.data() + b * tr->block_elements, out.data() + b * tr->block_bytes);
  return out;
}

std::vector<float> decode(uint32_t t, std::span<const uint8_t> bytes, uint64_t count) {
  const Codec& c = codec(t, "decode");
  const gguf::TypeTraits* tr = gguf::type_traits(t);
  if (count % tr->block_elements || count / tr->block_elements * tr->block_bytes > bytes.size())
    fail(ErrorCode::BadInput, "decode: " + std::to_string(count) + " " + tr->name + " elements do not fit in " + std::to_string(bytes.size()) + " bytes");
  std::vector<float> out(count);
  for (uint64_t b = 0; b < count / tr->block_elements; ++b) c.decode(bytes.data() + b * tr->block_bytes, out.data() + b * tr->block_elements);
  return out;
}

std::vector<float> decode_row(uint32_t t, std::span<const uint8_t> bytes, uint64_t row, uint64_t row_index) {
  const gguf::TypeTraits* tr = gguf::type_traits(t);
  codec(t, "decode_row");
  const uint64_t row_bytes = row / tr->block_elements * tr->block_bytes;
  if ((row_index + 1) * row_bytes > bytes.size())
    fail(ErrorCode::BadInput, "decode_row: row " + std::to_string(row_index) + " is past the tensor's " + std::to_string(bytes.size()) + " bytes");
  return decode(t, bytes.subspan(row_index * row_bytes, row_bytes), row);
}

}  // namespace weft::attention
