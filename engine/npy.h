// NumPy .npy files: how manifest workloads get bulk data in and results out without C++.
//
// Reads format versions 1.0, 2.0 and 3.0; writes 1.0 (2.0 when the header needs it). Only
// little-endian (or byte-sized) numeric dtypes and C order: the device is little-endian and
// Weft never transposes behind the caller's back, so anything else is a BadInput error rather
// than a silent conversion.
#pragma once

#include "bits.h"  // float_to_half / half_to_float

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace weft {

enum class DType { F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool };

// NumPy's descr ("<f4", "|u1", "|b1", ...) and bytes per element.
const char* dtype_descr(DType t);
size_t dtype_size(DType t);
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);
// Accepts NumPy descrs and the short names a manifest uses ("f4", "u4", "float32", "uint32",
// "bool", ...). BadInput naming `where` when the name is not a supported dtype.
DType parse_dtype(const std::string& name, const std::string& where);

struct NpyArray {
  DType dtype = DType::F32;
  std::vector<uint64_t> shape;  // empty: a scalar (one element)
  std::vector<uint8_t> data;    // little-endian elements in C order

  uint64_t count() const;  // product of the shape
  template <class T>
  static NpyArray from(DType dtype, const std::vector<T>& values, std::vector<uint64_t> shape = {}) {
    NpyArray a;
    a.dtype = dtype;
    a.shape = shape.empty() ? std::vector<uint64_t>{values.size()} : std::move(shape);
    a.data.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
  }
  template <class T>
  std::vector<T> as() const {
    std::vector<T> out(data.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * sizeof(T));
    return out;
  }
};

// BadInput "<name>: <problem>" for every malformed input; never reads past `size`.
NpyArray parse_npy(const void* bytes, size_t size, const std::string& name);
NpyArray read_npy(const std::string& path);
// BadInput when the shape does not match the data size.
std::vector<uint8_t> encode_npy(const NpyArray& array);
void write_npy(const std::string& path, const NpyArray& array);


}  // namespace weft
