#include "sampler.h"

#include <cmath>

namespace weft::token_vm {
namespace {

// round(32768 * 2^(-k/16)), k = 0..15: weight of a logit k/16 "octaves" below the maximum.
constexpr uint32_t kQuantTable[16] = {32768, 31379, 30048, 28774, 27554, 26386, 25268, 24196,
                                      23170, 22188, 21247, 20347, 19484, 18658, 17867, 17109};

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

uint32_t argmax(std::span<const float> row) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < row.size(); ++i)
    if (row[i] > row[best]) best = i;
  return best;
}

uint32_t quant_weight(float x, float max, float scale) {
  const float d = (x - max) * scale;
  if (!(d > -256.0f)) return 0;  // far below the maximum, or NaN
  const uint32_t k = uint32_t(-std::floor(d));
  return kQuantTable[k & 15u] >> (k >> 4);
}

}  // namespace

uint32_t sample_hash(uint32_t seed, uint32_t stream, uint32_t step) {
  return mix(mix(mix(seed) ^ (step * 0x9E3779B9u)) ^ (stream * 0x85EBCA6Bu));
}

Token sample_row(std::span<const float> row, const SamplerConfig& c, uint32_t stream, uint32_t step) {
  const uint32_t best = argmax(row);
  if (c.mode == TVM_SAMPLE_ARGMAX) return best;
  const float max = row[best];
  uint32_t total = 0;
  for (float x : row) total += quant_weight(x, max, c.scale);
  if (total == 0) return best;
  const uint32_t r = sample_hash(c.seed, stream, step) % total;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < row.size(); ++i) {
    sum += quant_weight(row[i], max, c.scale);
    if (sum > r) return i;
  }
  return best;  // unreachable: sum reaches total > r
}

}  // namespace weft::token_vm
