// The samplers on the CPU, bit-for-bit what shaders/sample.comp computes: argmax (ties go to
// the lowest id) and quantized sampling, whose arithmetic after one float subtract, multiply
// and floor is all integer, so the device and the CPU draw the same token for the same seed.
#pragma once

#include <cstdint>
#include <span>

#include "vm.h"

namespace weft::token_vm {

inline constexpr uint32_t kMaxSamplerVocab = 65536;  // keeps the integer weight sum below 2^32

// The random word of (seed, stream, step): a few rounds of an integer hash.
uint32_t sample_hash(uint32_t seed, uint32_t stream, uint32_t step);
// One row of logits -> a token.
Token sample_row(std::span<const float> row, const SamplerConfig& config, uint32_t stream, uint32_t step);

}  // namespace weft::token_vm
