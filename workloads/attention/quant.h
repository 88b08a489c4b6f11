// The ggml weight encodings on the CPU, one block codec per type, written from the formats'
// definitions: F32, F16, BF16; blocks of 32 — Q8_0 (f16 d, 32 int8: q d), Q4_0 (d, nibbles:
// (q - 8) d), Q4_1 (d, m, nibbles: q d + m), Q5_0 / Q5_1 (as Q4_0 / Q4_1 with a fifth bit per
// element in a 32-bit qh: (q - 16) d and q d + m); super-blocks of 256 with sub-block scales —
// Q2_K (2 bits, 16 x 4-bit scale/min), Q3_K (3 bits, 16 x 6-bit signed scales), Q4_K / Q5_K (4 / 5
// bits, 8 x 6-bit scale/min), Q6_K (6 bits, 16 x int8 scales). In a 32-element block element
// k < 16 is the low nibble of byte k and 16 + k its high nibble; the K layouts are spelled out
// beside each codec in quant.cpp and in shaders/dequant.glsl.
// Used by the model writer (encode: Weft's own range-based quantizers) and by the CPU reference
// (decode); Vulkan-free.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace weft::attention {


// Encodes `values` (whole blocks of the type) in one of the types above.
std::vector<uint8_t> encode(uint32_t ggml_type, std::span<const float> values);
// Decodes `count` elements of a tensor of one of those types from its bytes.
std::vector<float> decode(uint32_t ggml_type, std::span<const uint8_t> bytes, uint64_t count);
// Decodes one row (`row` elements starting at element row_index * row).
std::vector<float> decode_row(uint32_t ggml_type, std::span<const uint8_t> bytes, uint64_t row, uint64_t row_index);

bool supported_weight_type(uint32_t ggml_type);  // the types above
std::string supported_weight_type_names();        // "F32, F16, BF16, Q8_0, ..."

}  // namespace weft::attention
