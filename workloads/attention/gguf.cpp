// GGUF reader and writer (see gguf.h). The reader never trusts a count or a length: each one is
// checked against the bytes that remain before anything is allocated or read.
#include "gguf.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include <weft/input_file.h>

#include "error.h"

namespace weft::gguf {

namespace {

constexpr uint8_t kMagic[4] = {'G', 'G', 'U', 'F'};

const TypeTraits kTypes[] = {
    {"F32", 1, 4},     {"F16", 1, 2},      {"Q4_0", 32, 18},  {"Q4_1", 32, 20},   {nullptr, 0, 0},  {nullptr, 0, 0},
    {"Q5_0", 32, 22},  {"Q5_1", 32, 24},   {"Q8_0", 32, 34},  {"Q8_1", 32, 36},   {"Q2_K", 256, 84}, {"Q3_K", 256, 110},
    {"Q4_K", 256, 144}, {"Q5_K", 256, 176}, {"Q6_K", 256, 210}, {"Q8_K", 256, 292},
};

std::string hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

// Bytes one item of a value type occupies at least (strings: their length field).
uint64_t min_size(ValueType t) {
  switch (t) {
    case ValueType::U8: case ValueType::I8: case ValueType::Bool: return 1;
    case ValueType::U16: case ValueType::I16: return 2;
    case ValueType::U32: case ValueType::I32: case ValueType::F32: return 4;
    case ValueType::U64: case ValueType::I64: case ValueType::F64: case ValueType::String: return 8;
    case ValueType::Array: return 12;
  }
  return 1;
}

bool known_value_type(uint32_t t) { return t <= uint32_t(ValueType::F64); }

}  // namespace

const char* value_type_name(ValueType t) {
  static const char* names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
  return uint32_t(t) <= 12 ? names[uint32_t(t)] : "unknown";
}

const TypeTraits* type_traits(uint32_t t) {
  static const TypeTraits plain[] = {{"I8", 1, 1}, {"I16", 1, 2}, {"I32", 1, 4}, {"I64", 1, 8}, {"F64", 1, 8}};
  static const TypeTraits bf16 = {"BF16", 1, 2};
  if (t < std::size(kTypes)) return kTypes[t].name ? &kTypes[t] : nullptr;
  if (t >= type::I8 && t <= type::F64) return &plain[t - type::I8];
  if (t == type::BF16) return &bf16;
  return nullptr;
}

std::string type_name(uint32_t t) {
  const TypeTraits* tr = type_traits(t);
  return tr ? tr->name : "type " + std::to_string(t);
}

uint64_t tensor_bytes(uint32_t t, const std::vector<uint64_t>& dims, const std::string& what) {
  const TypeTraits* tr = type_traits(t);
  if (!tr) fail(ErrorCode::BadInput, what + ": unknown ggml tensor type " + std::to_string(t));
  if (dims.empty() || dims.size() > kMaxDims)
    fail(ErrorCode::BadInput, what + ": " + std::to_string(dims.size()) + " dimensions (1 to " + std::to_string(kMaxDims) + " allowed)");
  uint64_t elements = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 0) fail(ErrorCode::BadInput, what + ": dimension " + std::to_string(d) + " is 0");
    if (dims[d] > (uint64_t(1) << 62) / elements)
      fail(ErrorCode::BadInput, what + ": element count overflows (dimension " + std::to_string(d) + " = " + std::to_string(dims[d]) + ")");
    elements *= dims[d];
  }
  if (dims[0] % tr->block_elements)
    fail(ErrorCode::BadInput, what + ": row length " + std::to_string(dims[0]) + " is not a multiple of the " + tr->name +
                                  " block size " + std::to_string(tr->block_elements));
  return elements / tr->block_elements * tr->block_bytes;
}

// ---- values ---------------------------------------------------------------------------------

Value Value::u32(uint32_t v) { Value x; x.type = ValueType::U32; x.u = v; return x; }
Value Value::u64(uint64_t v) { Value x; x.type = ValueType::U64; x.u = v; return x; }
Value Value::i32(int32_t v) { Value x; x.type = ValueType::I32; x.i = v; return x; }
Value Value::f32(float v) { Value x; x.type = ValueType::F32; x.f = v; return x; }
Value Value::boolean(bool v) { Value x; x.type = ValueType::Bool; x.u = v; return x; }
Value Value::str(std::string v) { Value x; x.type = ValueType::String; x.s = std::move(v); return x; }
Value Value::array(ValueType element, std::vector<Value> items) {
  Value x;
  x.type = ValueType::Array;
  x.element = element;
  x.items = std::move(items);
  return x;
}
Value Value::strings(const std::vector<std::string>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (const auto& s : v) items.push_back(str(s));
  return array(ValueType::String, std::move(items));
}
Value Value::f32s(const std::vector<float>& v) {
  std::vector<Value> items;
  for (float f : v) items.push_back(f32(f));
  return array(ValueType::F32, std::move(items));
}
Value Value::i32s(const std::vector<int32_t>& v) {
  std::vector<Value> items;
  for (int32_t i : v) items.push_back(i32(i));
  return array(ValueType::I32, std::move(items));
}

// ---- reader ---------------------------------------------------------------------------------

class Parser {
 public:
  Parser(File& f) : f_(f), p_(f.bytes_.data()), n_(f.bytes_.size()) {}

  void run() {
    if (n_ < 4) bad(0, "truncated: " + std::to_string(n_) + " bytes, too short for the GGUF magic");
    if (std::memcmp(p_, kMagic, 4) != 0) {
      uint32_t m;
      std::memcpy(&m, p_, 4);
      bad(0, "bad magic " + hex(m) + " (expected the bytes 'GGUF'); not a GGUF file");
    }
    pos_ = 4;
    const uint32_t version = u32("version");
    if (version == 1) bad(4, "GGUF version 1 (32-bit counts) is not supported; convert the file to version 3");
    if (version != 2 && version != 3) bad(4, "unsupported GGUF version " + std::to_string(version) + " (2 and 3 are read)");
    f_.version_ = version;
    const uint64_t tensor_count = u64("tensor_count");
    const uint64_t kv_count = u64("metadata_kv_count");
    // Every pair needs at least a key length, a type and one byte; every tensor info at least 24.
    if (kv_count > left() / 13) bad(16, "truncated: metadata_kv_count " + std::to_string(kv_count) + " cannot fit in the " + std::to_string(left()) + " bytes left");
    if (tensor_count > left() / 24) bad(8, "truncated: tensor_count " + std::to_string(tensor_count) + " cannot fit in the " + std::to_string(left()) + " bytes left");

    for (uint64_t k = 0; k < kv_count; ++k) {
      const uint64_t at = pos_;
      std::string key = string("key of metadata pair " + std::to_string(k));
      if (f_.kv_index_.count(key)) bad(at, "duplicate metadata key '" + key + "'");
      const uint32_t t = u32("value type of '" + key + "'");
      if (!known_value_type(t)) bad(pos_ - 4, "metadata key '" + key + "': unknown value type " + std::to_string(t));
      Value v = value(ValueType(t), key, 0);
      f_.kv_index_[key] = f_.kv_.size();
      f_.kv_.emplace_back(std::move(key), std::move(v));
    }
    if (const Value* a = f_.find("general.alignment")) {
      if (a->type != ValueType::U32) bad(0, "general.alignment must be a u32, it is a " + std::string(value_type_name(a->type)));
      if (a->u == 0 || (a->u & (a->u - 1))) bad(0, "general.alignment " + std::to_string(a->u) + " is not a power of two");
      f_.alignment_ = uint32_t(a->u);
    }

    for (uint64_t k = 0; k < tensor_count; ++k) {
      TensorInfo t;
      t.info_offset = pos_;
      t.name = string("name of tensor " + std::to_string(k));
      const std::string what = "tensor '" + t.name + "' (info at offset " + std::to_string(t.info_offset) + ")";
      if (f_.tensor_index_.count(t.name)) bad(t.info_offset, "duplicate tensor name '" + t.name + "'");
      const uint32_t nd = u32("n_dims of " + what);
      if (nd == 0 || nd > kMaxDims)
        bad(pos_ - 4, what + ": wrong dims: n_dims " + std::to_string(nd) + " (1 to " + std::to_string(kMaxDims) + " allowed)");
      for (uint32_t d = 0; d < nd; ++d) t.dims.push_back(u64("dims of " + what));
      t.type = u32("type of " + what);
      if (!type_traits(t.type)) bad(pos_ - 4, what + ": unknown ggml tensor type " + std::to_string(t.type));
      t.offset = u64("data offset of " + what);
      t.bytes = tensor_bytes(t.type, t.dims, what + " at offset " + std::to_string(t.info_offset));
      t.elements = 1;
      for (uint64_t d : t.dims) t.elements *= d;
      if (t.offset % f_.alignment_)
        bad(pos_ - 8, what + ": data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " + std::to_string(f_.alignment_));
      f_.tensor_index_[t.name] = f_.tensors_.size();
      f_.tensors_.push_back(std::move(t));
    }

    // The data section starts at the next multiple of the alignment after the header.
    const uint64_t a = f_.alignment_;
    const uint64_t start = (pos_ + a - 1) / a * a;
    if (start > n_) {
      if (!f_.tensors_.empty()) bad(pos_, "truncated: the data section would start at " + std::to_string(start) + ", past the end of the file (" + std::to_string(n_) + " bytes)");
      f_.data_offset_ = n_;
    } else {
      f_.data_offset_ = start;
    }
    const uint64_t data_size = n_ - f_.data_offset_;
    for (TensorInfo& t : f_.tensors_) {
      if (t.offset > data_size || t.bytes > data_size - t.offset)
        bad(t.info_offset, "tensor '" + t.name + "': data out of bounds: bytes [" + std::to_string(t.offset) + ", " +
                               std::to_string(t.offset + t.bytes) + ") of a data section of " + std::to_string(data_size) +
                               " bytes (file truncated, or a wrong offset or shape)");
      t.file_offset = f_.data_offset_ + t.offset;
    }
  }

 private:
  [[noreturn]] void bad(uint64_t at, const std::string& msg) const {
    fail(ErrorCode::BadInput, f_.source_ + ": offset " + std::to_string(at) + ": " + msg);
  }
  uint64_t left() const { return n_ - pos_; }
  void need(uint64_t bytes, const std::string& what) const {
    if (bytes > left())
      bad(pos_, "truncated: " + what + " needs " + std::to_string(bytes) + " bytes, " + std::to_string(left()) + " left");
  }
  template <class T>
  T scalar(const std::string& what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  uint32_t u32(const std::string& what) { return scalar<uint32_t>(what); }
  uint64_t u64(const std::string& what) { return scalar<uint64_t>(what); }
  std::string string(const std::string& what) {
    const uint64_t len = u64("length of " + what);
    need(len, what + " (" + std::to_string(len) + " bytes)");
    std::string s(reinterpret_cast<const char*>(p_ + pos_), size_t(len));
    pos_ += len;
    return s;
  }

  Value value(ValueType t, const std::string& key, uint32_t depth) {
    Value v;
    v.type = t;
    const std::string what = "value of '" + key + "'";
    switch (t) {
      case ValueType::U8: v.u = scalar<uint8_t>(what); break;
      case ValueType::I8: v.i = scalar<int8_t>(what); break;
      case ValueType::U16: v.u = scalar<uint16_t>(what); break;
      case ValueType::I16: v.i = scalar<int16_t>(what); break;
      case ValueType::U32: v.u = scalar<uint32_t>(what); break;
      case ValueType::I32: v.i = scalar<int32_t>(what); break;
      case ValueType::U64: v.u = scalar<uint64_t>(what); break;
      case ValueType::I64: v.i = scalar<int64_t>(what); break;
      case ValueType::F32: v.f = scalar<float>(what); break;
      case ValueType::F64: v.f = scalar<double>(what); break;
      case ValueType::Bool: {
        const uint8_t b = scalar<uint8_t>(what);
        if (b > 1) bad(pos_ - 1, "metadata key '" + key + "': bool value " + std::to_string(b) + " is neither 0 nor 1");
        v.u = b;
        break;
      }
      case ValueType::String: v.s = string(what); break;
      case ValueType::Array: {
        if (depth >= kMaxArrayDepth) bad(pos_, "metadata key '" + key + "': arrays nested deeper than " + std::to_string(kMaxArrayDepth));
        const uint32_t et = u32("array element type of '" + key + "'");
        if (!known_value_type(et)) bad(pos_ - 4, "metadata key '" + key + "': unknown array element type " + std::to_string(et));
        v.element = ValueType(et);
        const uint64_t count = u64("array length of '" + key + "'");
        if (count > left() / min_size(v.element))
          bad(pos_ - 8, "truncated: metadata key '" + key + "': array of " + std::to_string(count) + " " + value_type_name(v.element) +
                            " items cannot fit in the " + std::to_string(left()) + " bytes left");
        v.items.reserve(size_t(count));
        for (uint64_t k = 0; k < count; ++k) v.items.push_back(value(v.element, key, depth + 1));
        break;
      }
    }
    return v;
  }

  File& f_;
  const uint8_t* p_;
  uint64_t n_;
  uint64_t pos_ = 0;
};

File File::parse(std::span<const uint8_t> bytes, const std::string& source) {
  File f;
  f.source_ = source;
  auto copy = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
  f.bytes_ = *copy;
  f.storage_ = std::move(copy);
  Parser(f).run();
  return f;
}

File File::read(const std::string& path) {
  auto mapped = std::make_shared<const MappedFile>(path, "cannot open the file");
  File f;
  f.source_ = f.path_ = path;
  f.bytes_ = {mapped->data(), size_t(mapped->size())};
  f.storage_ = std::move(mapped);
  Parser(f).run();
  return f;
}

const Value* File::find(const std::string& key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].second;
}

uint64_t File::get_uint(const std::string& key) const {
  const Value* v = find(key);
  if (!v) fail(ErrorCode::BadInput, source_ + ": missing metadata key '" + key + "'");
  switch (v->type) {
    case ValueType::U8: case ValueType::U16: case ValueType::U32: case ValueType::U64: return v->u;
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64:
      if (v->i < 0) fail(ErrorCode::BadInput, source_ + ": metadata key '" + key + "' is negative (" + std::to_string(v->i) + ")");
      return uint64_t(v->i);
    default:
      fail(ErrorCode::BadInput, source_ + ": metadata key '" + key + "' should be an integer, it is a " + value_type_name(v->type));
  }
}
uint64_t File::get_uint(const std::string& key, uint64_t fallback) const { return find(key) ? get_uint(key) : fallback; }

double File::get_float(const std::string& key) const {
  const Value* v = find(key);
  if (!v) fail(ErrorCode::BadInput, source_ + ": missing metadata key '" + key + "'");
  if (v->type == ValueType::F32 || v->type == ValueType::F64) return v->f;
  fail(ErrorCode::BadInput, source_ + ": metadata key '" + key + "' should be a float, it is a " + value_type_name(v->type));
}
double File::get_float(const std::string& key, double fallback) const { return find(key) ? get_float(key) : fallback; }

std::string File::get_string(const std::string& key) const {
  const Value* v = find(key);
  if (!v) fail(ErrorCode::BadInput, source_ + ": missing metadata key '" + key + "'");
  if (v->type != ValueType::String)
    fail(ErrorCode::BadInput, source_ + ": metadata key '" + key + "' should be a string, it is a " + value_type_name(v->type));
  return v->s;
}
std::string File::get_string(const std::string& key, const std::string& fallback) const {
  return find(key) ? get_string(key) : fallback;
}

const TensorInfo* File::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& File::tensor(const std::string& name) const {
  const TensorInfo* t = find_tensor(name);
  if (!t) fail(ErrorCode::BadInput, source_ + ": missing tensor '" + name + "'");
  return *t;
}

// ---- writer ---------------------------------------------------------------------------------

namespace {

struct Out {
  std::vector<uint8_t> b;
  template <class T>
  void put(T v) {
    const size_t n = b.size();
    b.resize(n + sizeof(T));
    std::memcpy(b.data() + n, &v, sizeof(T));
  }
  void str(const std::string& s) {
    put<uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
  }
  void value(const Value& v) {
    switch (v.type) {
      case ValueType::U8: put<uint8_t>(uint8_t(v.u)); break;
      case ValueType::I8: put<int8_t>(int8_t(v.i)); break;
      case ValueType::U16: put<uint16_t>(uint16_t(v.u)); break;
      case ValueType::I16: put<int16_t>(int16_t(v.i)); break;
      case ValueType::U32: put<uint32_t>(uint32_t(v.u)); break;
      case ValueType::I32: put<int32_t>(int32_t(v.i)); break;
      case ValueType::U64: put<uint64_t>(v.u); break;
      case ValueType::I64: put<int64_t>(v.i); break;
      case ValueType::F32: put<float>(float(v.f)); break;
      case ValueType::F64: put<double>(v.f); break;
      case ValueType::Bool: put<uint8_t>(v.u ? 1 : 0); break;
      case ValueType::String: str(v.s); break;
      case ValueType::Array:
        put<uint32_t>(uint32_t(v.element));
        put<uint64_t>(v.items.size());
        for (const Value& item : v.items) value(item);
        break;
    }
  }
  void pad(uint64_t alignment) {
    while (b.size() % alignment) b.push_back(0);
  }
};

}  // namespace

Writer::Writer(uint32_t alignment) : alignment_(alignment) {
  if (alignment == 0 || (alignment & (alignment - 1))) fail(ErrorCode::BadInput, "gguf writer: alignment must be a power of two");
  if (alignment != kDefaultAlignment) kv_.emplace_back("general.alignment", Value::u32(alignment));
}

void Writer::set(const std::string& key, Value value) {
  for (auto& [k, v] : kv_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  kv_.emplace_back(key, std::move(value));
}

void Writer::erase(const std::string& key) {
  std::erase_if(kv_, [&](const auto& kv) { return kv.first == key; });
}

void Writer::add_tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t ggml_type, std::vector<uint8_t> data) {
  const uint64_t want = tensor_bytes(ggml_type, dims, "gguf writer: tensor '" + name + "'");
  if (data.size() != want)
    fail(ErrorCode::BadInput, "gguf writer: tensor '" + name + "' has " + std::to_string(data.size()) + " bytes, its shape and type need " + std::to_string(want));
  tensors_.push_back({name, std::move(dims), ggml_type, std::move(data)});
}

void Writer::erase_tensor(const std::string& name) {
  std::erase_if(tensors_, [&](const Tensor& t) { return t.name == name; });
}

std::vector<uint8_t> Writer::header() const {
  Out o;
  o.b.insert(o.b.end(), kMagic, kMagic + 4);
  o.put<uint32_t>(3);
  o.put<uint64_t>(tensors_.size());
  o.put<uint64_t>(kv_.size());
  for (const auto& [k, v] : kv_) {
    o.str(k);
    o.put<uint32_t>(uint32_t(v.type));
    o.value(v);
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    o.str(t.name);
    o.put<uint32_t>(uint32_t(t.dims.size()));
    for (uint64_t d : t.dims) o.put<uint64_t>(d);
    o.put<uint32_t>(t.type);
    o.put<uint64_t>(offset);
    offset = (offset + t.data.size() + alignment_ - 1) / alignment_ * alignment_;
  }
  o.pad(alignment_);
  return o.b;
}

std::vector<uint8_t> Writer::bytes() const {
  Out o;
  o.b = header();
  for (const Tensor& t : tensors_) {
    o.b.insert(o.b.end(), t.data.begin(), t.data.end());
    o.pad(alignment_);
  }
  return o.b;
}

void Writer::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(ErrorCode::BadInput, path + ": cannot create the file");
  auto put = [&](const void* p, uint64_t n) { out.write(static_cast<const char*>(p), std::streamsize(n)); };
  const std::vector<uint8_t> h = header();
  put(h.data(), h.size());
  const std::vector<uint8_t> zeros(alignment_, 0);
  for (const Tensor& t : tensors_) {  // each tensor, then zeros up to the alignment (as bytes() lays them out)
    put(t.data.data(), t.data.size());
    put(zeros.data(), (alignment_ - t.data.size() % alignment_) % alignment_);
  }
  if (!out) fail(ErrorCode::BadInput, path + ": write error");
}

}  // namespace weft::gguf
