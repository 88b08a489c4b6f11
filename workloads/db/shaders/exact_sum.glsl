// Order-independent float sums for SUM and AVG. A double sum depends on the order of its terms in
// its last bits, and a group's members are placed with atomics, so it changed from run to run.
// Here every term is added exactly, as an integer, into a fixed-point accumulator anchored at the
// largest exponent of the group's terms; integer addition is associative, and the total is
// rounded to double once (to nearest, ties to even). Bits more than DB_SUM_FRACTION below the
// last mantissa bit of the largest term are dropped from each term (deterministically), so the
// result is the exact sum's rounding unless the terms cancel to within 2^-116 of the largest.
// Infinite terms are counted apart: +inf and -inf together are NaN, which is NULL as in SQLite.
#ifndef DB_EXACT_SUM_GLSL
#define DB_EXACT_SUM_GLSL
#include "db.glsl"

#define DB_SUM_FRACTION 64u
#define DB_BIASED_INF 0x7FFu

// A double as sign, biased exponent (subnormals as 1) and 53-bit integer mantissa:
// |x| = mantissa * 2^(exponent - 1075). Infinity has exponent DB_BIASED_INF.
void db_sum_split(double x, out bool negative, out uint exponent, out uint64_t mantissa) {
  const uvec2 b = unpackDouble2x32(x);
  negative = (b.y >> 31u) != 0u;
  exponent = (b.y >> 20u) & 0x7FFu;
  mantissa = (uint64_t(b.y & 0xFFFFFu) << 32u) | uint64_t(b.x);
  if (exponent != 0u) mantissa |= uint64_t(1ul) << 52u;
  else exponent = 1u;
}

uint db_sum_exponent(double x) {
  bool negative;
  uint exponent;
  uint64_t mantissa;
  db_sum_split(x, negative, exponent, mantissa);
  return mantissa == 0ul ? 0u : exponent;
}

// Adds finite x into `acc` (four signed 32-bit digits, least significant first) in units of
// 2^(anchor - 1075 - DB_SUM_FRACTION).
void db_sum_add(inout i64vec4 acc, double x, uint anchor) {
  bool negative;
  uint exponent;
  uint64_t m;
  db_sum_split(x, negative, exponent, m);
  const int up = int(DB_SUM_FRACTION) - (int(anchor) - int(exponent));  // left shift of m into units
  uint64_t lo = 0ul, hi = 0ul;
  if (up >= 64) hi = m;
  else if (up > 0) lo = m << uint(up), hi = m >> uint(64 - up);
  else if (up > -53) lo = m >> uint(-up);
  const i64vec4 digits = i64vec4(int64_t(lo & 0xFFFFFFFFul), int64_t(lo >> 32u), int64_t(hi & 0xFFFFFFFFul), int64_t(hi >> 32u));
  acc += negative ? -digits : digits;
}

// Bits s and up of the 192-bit number (hi, mid, lo), as 64 bits (s < 192).
uint64_t db_shr192(uint64_t lo, uint64_t mid, uint64_t hi, uint s) {
  if (s >= 128u) return hi >> (s - 128u);
  if (s >= 64u) return s == 64u ? mid : (mid >> (s - 64u)) | (hi << (128u - s));
  return s == 0u ? lo : (lo >> s) | (mid << (64u - s));
}
uint64_t db_low_mask(uint k) { return k == 0u ? 0ul : (uint64_t(1ul) << k) - 1ul; }  // k < 64
// Whether any bit below position s (s < 192) is set.
bool db_bits_below(uint64_t lo, uint64_t mid, uint64_t hi, uint s) {
  if (s >= 128u) return lo != 0ul || mid != 0ul || (hi & db_low_mask(s - 128u)) != 0ul;
  if (s >= 64u) return lo != 0ul || (mid & db_low_mask(s - 64u)) != 0ul;
  return (lo & db_low_mask(s)) != 0ul;
}
uint db_msb64(uint64_t x) {
  const uvec2 h = unpackUint2x32(x);
  return h.y != 0u ? 32u + uint(findMSB(h.y)) : uint(findMSB(h.x));
}
// x * 2^k for k in [-2000, 2000], by exact powers of two (one rounding at most, in the last step).
double db_scale2(double x, int k) {
  for (int step = 0; step < 2; ++step) {
    const int part = clamp(k, -1000, 1000);
    x *= packDouble2x32(uvec2(0u, uint(part + 1023) << 20u));
    k -= part;
  }
  return x;
}

// The accumulator's value as the nearest double.
double db_sum_round(i64vec4 acc, uint anchor) {
  // Carry-normalise into digits 0..2^32-1 and a signed top.
  int64_t carry = 0l;
  uint64_t d[4];
  for (int k = 0; k < 4; ++k) {
    const int64_t v = acc[k] + carry;
    carry = v >> 32u;
    d[k] = uint64_t(v - (carry << 32u));
  }
  uint64_t lo = d[0] | (d[1] << 32u), mid = d[2] | (d[3] << 32u), hi = uint64_t(carry);
  const bool negative = carry < 0l;
  if (negative) {  // two's complement of the 192-bit number
    lo = ~lo + 1ul;
    mid = ~mid + (lo == 0ul ? 1ul : 0ul);
    hi = ~hi + (lo == 0ul && mid == 0ul ? 1ul : 0ul);
  }
  if (hi == 0ul && mid == 0ul && lo == 0ul) return 0.0;
  const uint top = hi != 0ul ? 128u + db_msb64(hi) : mid != 0ul ? 64u + db_msb64(mid) : db_msb64(lo);
  const uint shift = top > 52u ? top - 52u : 0u;
  uint64_t mantissa = db_shr192(lo, mid, hi, shift);
  if (shift > 0u) {
    const bool round_bit = (db_shr192(lo, mid, hi, shift - 1u) & 1ul) != 0ul;
    if (round_bit && (db_bits_below(lo, mid, hi, shift - 1u) || (mantissa & 1ul) != 0ul)) mantissa += 1ul;
  }
  const double r = db_scale2(double(mantissa), int(anchor) - 1075 - int(DB_SUM_FRACTION) + int(shift));
  return negative ? -r : r;
}
#endif
