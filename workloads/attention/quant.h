// The ggml weight encodings on the CPU: f16 <-> f32, and Q8_0 / Q4_0 quantization and
// dequantization (blocks of 32 elements):
//   Q8_0 block: f16 scale d, then 32 int8 q;            value k = q[k] * d
//   Q4_0 block: f16 scale d, then 16 bytes of nibbles;  value k = (nibble_k - 8) * d, where
//               elements 0..15 are the low nibbles of bytes 0..15 and 16..31 the high nibbles.
// Used by the seeded-model writer (quantize) and by the CPU reference (dequantize); Vulkan-free.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace weft::attention {


// Encodes `values` (a whole number of rows of `row` elements) in a ggml type: F32, F16, Q8_0
// or Q4_0. Quantized scales follow ggml's reference quantizers (d = max|x| / 127 for Q8_0;
// d = x_maxabs / -8 for Q4_0, keeping the sign of the largest-magnitude element).
std::vector<uint8_t> encode(uint32_t ggml_type, std::span<const float> values);
// Decodes `count` elements of a tensor of one of those four types from its bytes.
std::vector<float> decode(uint32_t ggml_type, std::span<const uint8_t> bytes, uint64_t count);
// Decodes one row (`row` elements starting at element row_index * row).
std::vector<float> decode_row(uint32_t ggml_type, std::span<const uint8_t> bytes, uint64_t row, uint64_t row_index);

bool supported_weight_type(uint32_t ggml_type);  // F32, F16, Q8_0, Q4_0

}  // namespace weft::attention
