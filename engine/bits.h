// Floats travel through 32-bit integer words (push constants, control words, rule thresholds);
// these reinterpret one as the other without conversion.
#pragma once

#include <bit>
#include <cstdint>

namespace weft {

inline uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float bits_f32(uint32_t u) { return std::bit_cast<float>(u); }

}  // namespace weft
