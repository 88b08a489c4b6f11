#include "quant.h"

#include <cmath>
#include <cstring>

#include "bits.h"
#include "error.h"
#include "gguf.h"

namespace weft::attention {

bool supported_weight_type(uint32_t t) {
  return t == gguf::type::F32 || t == gguf::type::F16 || t == gguf::type::Q8_0 || t == gguf::type::Q4_0;
}

namespace {

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v & 0xFF));
  out.push_back(uint8_t(v >> 8));
}
uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

void check(uint32_t t, const char* what) {
  if (!supported_weight_type(t))
    fail(ErrorCode::BadInput, std::string(what) + ": ggml type " + gguf::type_name(t) + " is not supported (F32, F16, Q8_0, Q4_0 are)");
}

}  // namespace

std::vector<uint8_t> encode(uint32_t t, std::span<const float> v) {
  check(t, "encode");
  std::vector<uint8_t> out;
  if (t == gguf::type::F32) {
    out.resize(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  }
  if (t == gguf::type::F16) {
    for (float f : v) put16(out, float_to_half(f));
    return out;
  }
  if (v.size() % 32) fail(ErrorCode::BadInput, "encode: " + std::to_string(v.size()) + " elements are not whole blocks of 32");
  for (size_t b = 0; b < v.size(); b += 32) {
    const float* x = v.data() + b;
    if (t == gguf::type::Q8_0) {
      float amax = 0;
      for (int k = 0; k < 32; ++k) amax = std::max(amax, std::fabs(x[k]));
      const float d = amax / 127.0f, id = d ? 1.0f / d : 0.0f;
      put16(out, float_to_half(d));
      for (int k = 0; k < 32; ++k) out.push_back(uint8_t(int8_t(std::lround(x[k] * id))));
    } else {  // Q4_0
      float amax = 0, mx = 0;
      for (int k = 0; k < 32; ++k)
        if (std::fabs(x[k]) > amax) {
          amax = std::fabs(x[k]);
          mx = x[k];
        }
      const float d = mx / -8.0f, id = d ? 1.0f / d : 0.0f;
      put16(out, float_to_half(d));
      for (int k = 0; k < 16; ++k) {
        const int lo = std::min(15, int(x[k] * id + 8.5f)), hi = std::min(15, int(x[k + 16] * id + 8.5f));
        out.push_back(uint8_t(lo | (hi << 4)));
      }
    }
  }
  return out;
}

std::vector<float> decode(uint32_t t, std::span<const uint8_t> bytes, uint64_t count) {
  check(t, "decode");
  const gguf::TypeTraits* tr = gguf::type_traits(t);
  if (count % tr->block_elements || count / tr->block_elements * tr->block_bytes > bytes.size())
    fail(ErrorCode::BadInput, "decode: " + std::to_string(count) + " " + tr->name + " elements do not fit in " + std::to_string(bytes.size()) + " bytes");
  std::vector<float> out(count);
  const uint8_t* p = bytes.data();
  if (t == gguf::type::F32) {
    std::memcpy(out.data(), p, count * 4);
  } else if (t == gguf::type::F16) {
    for (uint64_t k = 0; k < count; ++k) out[k] = half_to_float(get16(p + 2 * k));
  } else if (t == gguf::type::Q8_0) {
    for (uint64_t b = 0; b < count / 32; ++b) {
      const uint8_t* blk = p + b * 34;
      const float d = half_to_float(get16(blk));
      for (int k = 0; k < 32; ++k) out[b * 32 + k] = float(int8_t(blk[2 + k])) * d;
    }
  } else {
    for (uint64_t b = 0; b < count / 32; ++b) {
      const uint8_t* blk = p + b * 18;
      const float d = half_to_float(get16(blk));
      for (int k = 0; k < 16; ++k) {
        out[b * 32 + k] = float(int(blk[2 + k] & 0xF) - 8) * d;
        out[b * 32 + 16 + k] = float(int(blk[2 + k] >> 4) - 8) * d;
      }
    }
  }
  return out;
}

std::vector<float> decode_row(uint32_t t, std::span<const uint8_t> bytes, uint64_t row, uint64_t row_index) {
  check(t, "decode_row");
  const gguf::TypeTraits* tr = gguf::type_traits(t);
  const uint64_t row_bytes = row / tr->block_elements * tr->block_bytes;
  if ((row_index + 1) * row_bytes > bytes.size())
    fail(ErrorCode::BadInput, "decode_row: row " + std::to_string(row_index) + " is past the tensor's " + std::to_string(bytes.size()) + " bytes");
  return decode(t, bytes.subspan(row_index * row_bytes, row_bytes), row);
}

}  // namespace weft::attention
