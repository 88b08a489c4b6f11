// Numeric types: element encodings checked bit by bit against hand-computed codes, exhaustive
// decode->encode round trips of every finite code, and pack/unpack of every type (exact where
// the type holds the values, within the stated bound otherwise).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include <weft/error.h>

#include "dtype.h"
#include "weights.h"

using namespace weft::volumetric;

TEST_CASE("volumetric dtype: f16 and bf16 encodings, bit by bit") {
  CHECK(f32_to_f16(1.0f) == 0x3C00);
  CHECK(f32_to_f16(-2.0f) == 0xC000);
  CHECK(f32_to_f16(65504.0f) == 0x7BFF);
  CHECK(f32_to_f16(1e6f) == 0x7BFF);                    // saturates
  CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(f32_to_f16(0.1f) == 0x2E66);
  CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // tie -> even
  CHECK(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie -> even (up)
  CHECK(f16_to_f32(0x3555) == 0.333251953125f);
  CHECK(f32_to_bf16(1.0f) == 0x3F80);
  CHECK(f32_to_bf16(0.1f) == 0x3DCD);  // 0x3DCCCCCD rounds up
  float tie;
  uint32_t b = 0x3F808000;
  std::memcpy(&tie, &b, 4);
  CHECK(f32_to_bf16(tie) == 0x3F80);
  b = 0x3F818000;
  std::memcpy(&tie, &b, 4);
  CHECK(f32_to_bf16(tie) == 0x3F82);
  CHECK(bf16_to_f32(0xC040) == -3.0f);
}

TEST_CASE("volumetric dtype: fp8 and fp4 encodings, bit by bit") {
  CHECK(f32_to_e4m3(1.0f) == 0x38);
  CHECK(f32_to_e4m3(-1.5f) == 0xBC);
  CHECK(f32_to_e4m3(448.0f) == 0x7E);
  CHECK(f32_to_e4m3(500.0f) == 0x7E);  // saturates (0x7F is NaN)
  CHECK(f32_to_e4m3(240.0f) == 0x77);
  CHECK(f32_to_e4m3(std::ldexp(1.0f, -9)) == 0x01);
  CHECK(std::isnan(e4m3_to_f32(0x7F)));
  CHECK(e4m3_to_f32(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  CHECK(f32_to_e5m2(1.0f) == 0x3C);
  CHECK(f32_to_e5m2(-0.5f) == 0xB8);
  CHECK(f32_to_e5m2(57344.0f) == 0x7B);
  CHECK(f32_to_e5m2(1e9f) == 0x7B);
  CHECK(f32_to_e5m2(std::ldexp(1.0f, -16)) == 0x01);
  CHECK(f32_to_e5m2(1.125f) == 0x3C);  // tie -> even
  CHECK(f32_to_e5m2(1.375f) == 0x3E);  // tie -> even (up)
  CHECK(std::isinf(e5m2_to_f32(0x7C)));
  const float fp4_values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t c = 0; c < 8; ++c) {
    CHECK(e2m1_to_f32(c) == fp4_values[c]);
    CHECK(e2m1_to_f32(uint8_t(c | 8)) == -fp4_values[c]);
    CHECK(f32_to_e2m1(fp4_values[c]) == c);
  }
  CHECK(f32_to_e2m1(0.25f) == 0);  // tie between 0 and 0.5 -> even code 0
  CHECK(f32_to_e2m1(0.75f) == 2);  // tie 0.5 / 1 -> even code 2
  CHECK(f32_to_e2m1(2.5f) == 4);
  CHECK(f32_to_e2m1(5.0f) == 6);
  CHECK(f32_to_e2m1(-6.0f) == 0xF);
  CHECK(f32_to_e2m1(100.0f) == 7);
}

TEST_CASE("volumetric dtype: every finite code survives decode -> encode") {
  for (uint32_t c = 0; c < 65536; ++c) {
    const float f = f16_to_f32(uint16_t(c));
    if (std::isfinite(f)) REQUIRE(f32_to_f16(f) == c);
    const float g = bf16_to_f32(uint16_t(c));
    if (std::isfinite(g)) REQUIRE(f32_to_bf16(g) == c);
  }
  for (uint32_t c = 0; c < 256; ++c) {
    const float a = e4m3_to_f32(uint8_t(c)), b = e5m2_to_f32(uint8_t(c));
    if (std::isfinite(a)) REQUIRE(f32_to_e4m3(a) == c);
    if (std::isfinite(b)) REQUIRE(f32_to_e5m2(b) == c);
  }
  for (uint32_t c = 0; c < 16; ++c) REQUIRE(f32_to_e2m1(e2m1_to_f32(uint8_t(c))) == c);
}

namespace {

std::vector<float> random_matrix(uint32_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The stated round-trip bound of each type for an element v in a block with scale s (and, for
// the minifloats, mantissa bits mb and smallest-normal exponent emin), plus two f32 roundings
// of |v| for the scale arithmetic.
double bound(DType t, double v, const float* sc) {
  const double f32 = 2 * std::ldexp(std::fabs(v), -24);
  switch (t) {
    case DType::F64: case DType::F32: return 0;
    case DType::F16: return std::max(std::ldexp(std::fabs(v), -11), std::ldexp(1.0, -25));
    case DType::BF16: return std::ldexp(std::fabs(v), -8);
    case DType::FP8E4M3: return std::max(std::ldexp(std::fabs(v), -4), sc[0] * std::ldexp(1.0, -10)) + f32;
    case DType::FP8E5M2: return std::max(std::ldexp(std::fabs(v), -3), sc[0] * std::ldexp(1.0, -17)) + f32;
    case DType::FP4: return std::max(std::ldexp(std::fabs(v), -2), sc[0] * 0.25) + f32;
    case DType::Ternary: case DType::Binary: return std::fabs(v) + sc[0];  // sign-level only: |v - u| <= |v| + a
    default: return 0.5 * sc[0] * (1 + 1e-6) + f32 + (dtype_is_unsigned_int(t) ? 2 * std::ldexp(std::fabs(sc[1]), -24) : 0);
  }
}

}  // namespace

TEST_CASE("volumetric dtype: pack/unpack of every type within its stated bound") {
  const uint32_t rows = 5, cols = 77;  // three blocks per row, the last partial
  const auto m = random_matrix(rows * cols, 3, 0.2f);
  for (DType t : all_dtypes()) {
    const std::string name = dtype_name(t);
    CAPTURE(name);
    const Packed p = pack(m, rows, cols, t);
    CHECK(p.row_words == (cols * dtype_bits(t) + 31) / 32);
    CHECK(p.scales.size() == rows * 3 * dtype_scale_floats(t));
    const auto u = unpack(p);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c) {
        const float* sc = p.scales.empty() ? nullptr : &p.scales[(r * 3 + c / kBlock) * dtype_scale_floats(t)];
        const double v = m[r * cols + c], e = std::fabs(v - u[r * cols + c]);
        REQUIRE(e <= bound(t, v, sc));
      }
  }
}

TEST_CASE("volumetric dtype: exact round trips where the type holds the values") {
  const uint32_t cols = 40;
  auto grid = [&](double step, int qmax, int seed) {  // multiples of step, block max = qmax*step
    std::mt19937 rng(seed);
    std::vector<float> v(cols);
    for (uint32_t c = 0; c < cols; ++c) v[c] = float(step * int(rng() % (2 * qmax + 1) - qmax));
    v[0] = float(step * qmax);
    v[32] = float(-step * qmax);  // each block reaches qmax
    return v;
  };
  struct Exact {
    DType t;
    std::vector<float> v;
  };
  std::vector<float> halves(cols), bfs(cols), fp4v(cols), pm(cols), tern(cols), u8(cols);
  const float fp4_values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint32_t c = 0; c < cols; ++c) {
    halves[c] = float(int(c * 37 % 2001) - 1000) / 1024.0f;
    bfs[c] = float(int(c * 13 % 255) - 127) * 0.0078125f;
    fp4v[c] = fp4_values[c % 8] * (c % 3 ? 0.25f : -0.25f);
    pm[c] = c % 3 ? 0.375f : -0.375f;
    tern[c] = c % 2 ? 0.375f : -0.375f;
    u8[c] = -1.0f + float(c * 7 % 256) / 256.0f;
  }
  fp4v[0] = fp4v[32] = 1.5f;  // block max 6 * 0.25: scale 0.25 exactly
  u8[0] = u8[32] = -1.0f;
  u8[1] = u8[33] = -1.0f + 255.0f / 256.0f;  // s = 1/256, lo = -1
  const std::vector<Exact> cases = {
      {DType::F64, random_matrix(cols, 9)}, {DType::F32, random_matrix(cols, 10)}, {DType::F16, halves},
      {DType::BF16, bfs},                   {DType::I8, grid(1.0 / 128, 127, 1)},  {DType::I16, grid(1.0 / 32768, 32767, 2)},
      {DType::I4, grid(0.125, 7, 3)},       {DType::I2, grid(0.5, 1, 4)},          {DType::FP4, fp4v},
      {DType::Binary, pm},                  {DType::Ternary, tern},                {DType::U8, u8},
  };
  for (const Exact& e : cases) {
    const std::string name = dtype_name(e.t);
    CAPTURE(name);
    CHECK(unpack(pack(e.v, 1, cols, e.t)) == e.v);
  }
}

TEST_CASE("volumetric dtype: packed bit layout (low bits first, rows on word boundaries)") {
  // int4, block scale 1/8: q = 7, -7, 0, 1, 2, -1, 3, -3 -> nibbles 7, 9, 0, 1, 2, F, 3, D.
  const std::vector<float> v = {7 / 8.f, -7 / 8.f, 0, 1 / 8.f, 2 / 8.f, -1 / 8.f, 3 / 8.f, -3 / 8.f};
  const Packed p = pack(v, 1, 8, DType::I4);
  REQUIRE(p.words.size() == 1);
  CHECK(p.words[0] == 0xD3F21097u);
  CHECK(p.scales[0] == 0.125f);
  // Binary: bit c = (v >= 0); two rows of 3 columns each take a whole word.
  const Packed b = pack({1, -1, 2, -3, 4, 5}, 2, 3, DType::Binary);
  REQUIRE(b.words.size() == 2);
  CHECK(b.words[0] == 0b101u);
  CHECK(b.words[1] == 0b110u);
  CHECK(b.scales[0] == doctest::Approx(4.0 / 3));
  // Ternary codes 1 = +1, 2 = -1, 0 = 0 (mean |v| = 0.5: 0.1 -> 0).
  const Packed t = pack({0.7f, -0.7f, 0.1f, 0.5f}, 1, 4, DType::Ternary);
  CHECK(t.words[0] == (1u | 2u << 2 | 0u << 4 | 1u << 6));
  // fp8 e4m3 with block scale 1 (max |v| = 448): bytes 0x38, 0xBC, 0x7E, 0x00.
  const Packed f = pack({1.0f, -1.5f, 448.0f, 0.0f}, 1, 4, DType::FP8E4M3);
  CHECK(f.scales[0] == 1.0f);
  CHECK(f.words[0] == 0x007EBC38u);
  // int64: two words per element, low word first; q = -qmax for the block minimum.
  const Packed l = pack({-1.0f, 1.0f}, 1, 2, DType::I64);
  CHECK(l.words.size() == 4);
  CHECK(l.words[0] == 0x00000001u);
  CHECK(l.words[1] == 0x80000000u);
  CHECK(l.words[2] == 0xFFFFFFFFu);
  CHECK(l.words[3] == 0x7FFFFFFFu);
}

TEST_CASE("volumetric dtype: morph caches, gradients invalidate, bad input refused") {
  WeightStore w(4, 8, random_matrix(32, 5));
  const Packed& a = w.morph(DType::I8);
  CHECK(w.has_version(DType::I8));
  CHECK(&w.morph(DType::I8) == &a);
  w.morph(DType::FP4);
  CHECK(w.version_count() == 2);
  std::vector<float> step(32, 0.01f);
  w.apply_step(step);
  CHECK(w.version_count() == 0);
  CHECK(w.morph(DType::I8) == pack(w.master(), 4, 8, DType::I8));
  CHECK_THROWS_AS(pack({1.0f, NAN}, 1, 2, DType::F16), weft::Error);
  CHECK_THROWS_AS(pack({1.0f}, 1, 2, DType::F16), weft::Error);
  CHECK_THROWS_AS(parse_dtype("float7"), weft::Error);
  CHECK(parse_dtype("fp8_e5m2") == DType::FP8E5M2);
  CHECK_THROWS_AS(w.apply_step({1.0f}), weft::Error);
}
