#include "npy.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "error.h"
#include "input_file.h"

namespace weft {

namespace {

struct DTypeRow {
  DType type;
  const char* descr;
  size_t size;
  const char* names[4];  // manifest spellings besides the descr
};

constexpr DTypeRow kDTypes[] = {
    {DType::F16, "<f2", 2, {"f2", "float16", "half", nullptr}},
    {DType::F32, "<f4", 4, {"f4", "float32", "f32", "float"}},
    {DType::F64, "<f8", 8, {"f8", "float64", "f64", "double"}},
    {DType::I8, "|i1", 1, {"i1", "int8", "<i1", nullptr}},
    {DType::I16, "<i2", 2, {"i2", "int16", nullptr, nullptr}},
    {DType::I32, "<i4", 4, {"i4", "int32", "i32", nullptr}},
    {DType::I64, "<i8", 8, {"i8", "int64", nullptr, nullptr}},
    {DType::U8, "|u1", 1, {"u1", "uint8", "<u1", nullptr}},
    {DType::U16, "<u2", 2, {"u2", "uint16", nullptr, nullptr}},
    {DType::U32, "<u4", 4, {"u4", "uint32", "u32", nullptr}},
    {DType::U64, "<u8", 8, {"u8", "uint64", nullptr, nullptr}},
    {DType::Bool, "|b1", 1, {"b1", "bool", "?", "<b1"}},
};

const DTypeRow& row(DType t) {
  for (const auto& r : kDTypes)
    if (r.type == t) return r;
  return kDTypes[0];
}

bool find_dtype(const std::string& name, DType* out) {
  for (const auto& r : kDTypes) {
    bool hit = name == r.descr;
    for (const char* n : r.names) hit = hit || (n && name == n);
    if (hit) {
      *out = r.type;
      return true;
    }
  }
  return false;
}

std::string supported_list() {
  std::string s;
  for (const auto& r : kDTypes) {
    if (!s.empty()) s += ' ';
    s += r.descr;
  }
  return s;
}

// The header is a Python dict literal; NumPy writes exactly three keys. This parser accepts
// the subset NumPy produces (strings, True/False, tuples of integers) and nothing else.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : s_(text), name_(name) {}

  struct Header {
    std::string descr;
    bool fortran = false;
    std::vector<uint64_t> shape;
  };

  Header parse() {
    Header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      skip_ws();
      if (key == "descr") {
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        bad("unexpected header key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') ++pos_;
      else if (peek() != '}') bad("expected ',' or '}' in the header dict");
    }
    if (!seen_descr || !seen_fortran || !seen_shape)
      bad("header lacks " + std::string(!seen_descr ? "'descr'" : !seen_fortran ? "'fortran_order'" : "'shape'"));
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) { fail(ErrorCode::BadInput, name_ + ": malformed header: " + what); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    bad("fortran_order must be True or False");
  }
  std::vector<uint64_t> tuple() {
    expect('(');
    std::vector<uint64_t> dims;
    while (true) {
      skip_ws();
      if (peek() == ')') {
        ++pos_;
        return dims;
      }
      if (peek() < '0' || peek() > '9') bad("shape must be a tuple of non-negative integers");
      uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (UINT64_MAX - 9) / 10) bad("shape dimension too large");
        v = v * 10 + uint64_t(peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') bad("expected ',' or ')' in the shape");
    }
  }

  const std::string& s_;
  const std::string& name_;
  size_t pos_ = 0;
};

uint32_t read_le(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

const char* dtype_descr(DType t) { return row(t).descr; }
size_t dtype_size(DType t) { return row(t).size; }
bool dtype_is_float(DType t) { return t == DType::F16 || t == DType::F32 || t == DType::F64; }
bool dtype_is_signed(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64 || dtype_is_float(t);
}

DType parse_dtype(const std::string& name, const std::string& where) {
  DType t;
  if (find_dtype(name, &t)) return t;
  std::string why = "unsupported dtype '" + name + "'";
  if (!name.empty() && name[0] == '>') why += " (big-endian; save with a little-endian dtype, e.g. arr.astype('<" + name.substr(1) + "'))";
  fail(ErrorCode::BadInput, where + ": " + why + "; supported: " + supported_list());
}

uint64_t NpyArray::count() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

NpyArray parse_npy(const void* bytes, size_t size, const std::string& name) {
  const auto* p = static_cast<const uint8_t*>(bytes);
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 6 || std::memcmp(p, magic, 6) != 0) fail(ErrorCode::BadInput, name + ": not a .npy file (bad magic)");
  if (size < 8) fail(ErrorCode::BadInput, name + ": truncated header (no version)");
  const int major = p[6], minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(ErrorCode::BadInput, name + ": unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  const int len_bytes = major == 1 ? 2 : 4;
  if (size < size_t(8 + len_bytes)) fail(ErrorCode::BadInput, name + ": truncated header (no header length)");
  const uint64_t header_len = read_le(p + 8, len_bytes);
  const uint64_t data_start = 8 + len_bytes + header_len;
  if (data_start > size)
    fail(ErrorCode::BadInput, name + ": truncated header (" + std::to_string(header_len) + " header bytes declared, " +
                                  std::to_string(size - 8 - len_bytes) + " present)");
  const std::string text(reinterpret_cast<const char*>(p + 8 + len_bytes), header_len);
  const auto h = HeaderParser(text, name).parse();
  if (h.fortran)
    fail(ErrorCode::BadInput, name + ": fortran_order=True is not supported; save a C-order array (np.ascontiguousarray)");

  NpyArray a;
  a.dtype = parse_dtype(h.descr, name);
  a.shape = h.shape;
  uint64_t count = 1;
  for (uint64_t d : h.shape) {
    if (d != 0 && count > UINT64_MAX / d) fail(ErrorCode::BadInput, name + ": shape overflows");
    count *= d;
  }
  const uint64_t item = dtype_size(a.dtype);
  if (count > UINT64_MAX / item) fail(ErrorCode::BadInput, name + ": shape overflows");
  const uint64_t want = count * item, have = size - data_start;
  if (want != have)
    fail(ErrorCode::BadInput, name + ": shape/size mismatch: shape needs " + std::to_string(want) + " data bytes, the file has " +
                                  std::to_string(have));
  a.data.assign(p + data_start, p + size);
  return a;
}

NpyArray read_npy(const std::string& path) {
  const std::vector<uint8_t> bytes = read_binary_file(path, "cannot open");
  return parse_npy(reinterpret_cast<const char*>(bytes.data()), bytes.size(), path);
}

std::vector<uint8_t> encode_npy(const NpyArray& a) {
  if (a.count() * dtype_size(a.dtype) != a.data.size())
    fail(ErrorCode::BadInput, "npy: shape holds " + std::to_string(a.count()) + " elements but the data has " +
                                  std::to_string(a.data.size()) + " bytes of " + dtype_descr(a.dtype));
  std::string dict = std::string("{'descr': '") + dtype_descr(a.dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(a.shape[i]);
  if (a.shape.size() == 1) dict += ",";  // "(5,)" like NumPy
  dict += "), }";
  // Data starts on a 64-byte boundary; the header ends with '\n' (NumPy's layout).
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(v2 ? 2 : 1), 0};
  const uint32_t hl = uint32_t(dict.size());
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out.push_back(uint8_t(hl >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

void write_npy(const std::string& path, const NpyArray& a) {
  const auto bytes = encode_npy(a);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot create");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) fail(ErrorCode::BadInput, path + ": write failed");
}

}  // namespace weft
