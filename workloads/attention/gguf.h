// GGUF: the container llama.cpp models ship in. A reader (metadata, tensor table, bounds of every
// tensor's data) and a writer, with no Vulkan in them: the fuzz target links this file and
// engine/error.cpp alone.
//
// Layout (version 3; version 2 is the same): "GGUF" magic, u32 version, u64 tensor_count, u64
// metadata_kv_count, the key/value pairs (string key, u32 value type, value), the tensor infos
// (string name, u32 n_dims, u64 dims[n_dims] in GGML order (dims[0] = elements of a row), u32
// ggml type, u64 offset into the data section), then the data section, starting at the next
// multiple of general.alignment (default 32). Strings are u64 length + bytes (no NUL); arrays
// are u32 element type + u64 count + elements. Everything little-endian.
//
// Every defect is a weft::Error BadInput naming the source, the byte offset and the key or
// tensor concerned. Nothing is read past the end of the input.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace weft::gguf {

enum class ValueType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
  String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
const char* value_type_name(ValueType t);

// ggml tensor types by id (the ones this reader can size; others are refused by name or number).
namespace type {
inline constexpr uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9, Q2_K = 10,
                          Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, I8 = 24, I16 = 25, I32 = 26, I64 = 27,
                          F64 = 28, BF16 = 30;
}

struct TypeTraits {
  const char* name;
  uint32_t block_elements;  // elements per block (1 for plain types)
  uint32_t block_bytes;     // bytes per block
};
// nullptr for an id this reader does not know.
const TypeTraits* type_traits(uint32_t ggml_type);
std::string type_name(uint32_t ggml_type);  // "Q8_0", or "type 17" for an unknown id

inline constexpr uint32_t kMaxDims = 4;           // GGML_MAX_DIMS
inline constexpr uint32_t kDefaultAlignment = 32;
inline constexpr uint32_t kMaxArrayDepth = 4;     // arrays of arrays nest at most this deep

struct Value {
  ValueType type = ValueType::U32;
  uint64_t u = 0;        // U8/U16/U32/U64, Bool (0/1)
  int64_t i = 0;         // I8/I16/I32/I64
  double f = 0;          // F32/F64
  std::string s;         // String
  ValueType element = ValueType::U32;  // Array: type of the items
  std::vector<Value> items;            // Array

  static Value u32(uint32_t v);
  static Value u64(uint64_t v);
  static Value i32(int32_t v);
  static Value f32(float v);
  static Value boolean(bool v);
  static Value str(std::string v);
  static Value array(ValueType element, std::vector<Value> items);
  static Value strings(const std::vector<std::string>& v);
  static Value f32s(const std::vector<float>& v);
  static Value i32s(const std::vector<int32_t>& v);
};

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // GGML order: dims[0] is the row length
  uint32_t type = type::F32;
  uint64_t offset = 0;         // into the data section
  uint64_t file_offset = 0;    // absolute, in the file
  uint64_t elements = 0;
  uint64_t bytes = 0;
  uint64_t info_offset = 0;    // where its info starts in the header (for messages)
  uint64_t rows() const { return elements / dims[0]; }
  uint64_t row_bytes() const { return bytes / rows(); }
};

class File {
 public:
  // Parses a copy of `bytes`; `source` names the input in messages (a path, "<memory>").
  static File parse(std::span<const uint8_t> bytes, const std::string& source);
  // Parses the file through a read-only mapping, kept for the File's lifetime (shared by its
  // copies): a model of several GB is not copied into host memory to be read.
  static File read(const std::string& path);

  const std::string& source() const { return source_; }
  // The file read() mapped ("" for a parsed copy): a loader can stream tensors from it itself.
  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const { return bytes_.size(); }

  const std::vector<std::pair<std::string, Value>>& metadata() const { return kv_; }
  const Value* find(const std::string& key) const;
  // Typed getters: BadInput naming the key when it is missing or of an unsuitable type/range.
  // Integers of any GGUF integer type are accepted when the value fits.
  uint64_t get_uint(const std::string& key) const;
  uint64_t get_uint(const std::string& key, uint64_t fallback) const;
  double get_float(const std::string& key) const;
  double get_float(const std::string& key, double fallback) const;
  std::string get_string(const std::string& key) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(const std::string& name) const;
  const TensorInfo& tensor(const std::string& name) const;  // BadInput when absent
  std::span<const uint8_t> data(const TensorInfo& t) const { return {bytes_.data() + t.file_offset, t.bytes}; }
  // A view of the whole data section (what a loader copies to the device in one piece).
  std::span<const uint8_t> data_section() const {
    return {bytes_.data() + data_offset_, bytes_.size() - data_offset_};
  }

 private:
  std::string source_, path_;
  std::shared_ptr<const void> storage_;  // owns what bytes_ views: a copy or a file mapping
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 0, alignment_ = kDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, Value>> kv_;
  std::map<std::string, size_t> kv_index_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t> tensor_index_;
  friend class Parser;
};

// Builds a GGUF file: metadata in insertion order, tensors laid out in the order added, each
// at a multiple of the alignment.
class Writer {
 public:
  explicit Writer(uint32_t alignment = kDefaultAlignment);
  void set(const std::string& key, Value value);  // general.alignment is written from the constructor's
  void erase(const std::string& key);
  // `data` must hold exactly the tensor's bytes for its type and dims.
  void add_tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t ggml_type, std::vector<uint8_t> data);
  void erase_tensor(const std::string& name);
  std::vector<uint8_t> bytes() const;
  // Streams the file tensor by tensor (no second copy of the tensors is made).
  void write(const std::string& path) const;

 private:
  std::vector<uint8_t> header() const;  // everything before the data section, padded
  uint32_t alignment_;
  std::vector<std::pair<std::string, Value>> kv_;
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;
    std::vector<uint8_t> data;
  };
  std::vector<Tensor> tensors_;
};

// Bytes of a tensor of this type and shape; BadInput (naming `what`) when the type is unknown,
// a row is not a whole number of blocks, or the size overflows.
uint64_t tensor_bytes(uint32_t ggml_type, const std::vector<uint64_t>& dims, const std::string& what);

}  // namespace weft::gguf
