#include "wdb.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <weft/error.h>
#include <weft/input_file.h>

#include "csv.h"

namespace weft::db {

// The values are copied with memcpy, so the host must store int64 and double as the file does.
static_assert(std::endian::native == std::endian::little, ".wdb files are little-endian");

namespace {

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'W', 'D', 'B', '\0'};
constexpr uint64_t kHeaderBytes = 32;
constexpr uint64_t kSectionHeaderBytes = 16;  // a table's or a column's fixed fields

uint64_t padded(uint64_t n) { return (n + 7) / 8 * 8; }
uint64_t bitmap_words(uint64_t rows) { return (rows + 63) / 64; }

// ---------------------------------------------------------------------------------------------
// Writing

// BadInput unless the column can be written as the reader will accept it.
void check_writable(const Table& t, const Column& c) {
  const auto bad = [&](const std::string& what) {
    fail(ErrorCode::BadInput, "table '" + t.name + "' column '" + c.name + "': " + what);
  };
  if (c.name.empty()) bad("empty column name");
  const size_t values = c.type == Type::Float ? c.floats.size() : c.ints.size();
  if (c.nulls.size() != t.rows || values != t.rows)
    bad("holds " + std::to_string(values) + " values and " + std::to_string(c.nulls.size()) + " NULL flags for " +
        std::to_string(t.rows) + " rows");
}

void check_writable(const Table& t) {
  if (t.name.empty()) fail(ErrorCode::BadInput, "a table has an empty name");
  if (t.columns.empty() || t.columns.size() > kMaxColumns || t.rows > kMaxRows)
    fail(ErrorCode::BadInput, "table '" + t.name + "': " + std::to_string(t.columns.size()) + " columns and " +
                                  std::to_string(t.rows) + " rows (1.." + std::to_string(kMaxColumns) +
                                  " columns, at most " + std::to_string(kMaxRows) + " rows)");
  std::set<std::string> names;
  for (const Column& c : t.columns) {
    check_writable(t, c);
    if (!names.insert(lower(c.name)).second)
      fail(ErrorCode::BadInput, "table '" + t.name + "': column '" + c.name + "' is named twice");
  }
}

uint64_t dictionary_bytes(const std::vector<std::string>& dict) {
  uint64_t bytes = 0;
  for (const std::string& s : dict) bytes += s.size();
  return 8 * (dict.size() + 1) + padded(bytes);
}

uint64_t table_bytes(const Table& t) {
  uint64_t bytes = kSectionHeaderBytes + padded(t.name.size());
  for (const Column& c : t.columns)
    bytes += kSectionHeaderBytes + padded(c.name.size()) + 8 * bitmap_words(t.rows) + 8 * t.rows;
  return bytes;
}

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  void u8(uint8_t v) { bytes(&v, 1); }
  void u32(uint32_t v) { bytes(&v, 4); }
  void u64(uint64_t v) { bytes(&v, 8); }
  void bytes(const void* p, uint64_t n) {
    out_.write(static_cast<const char*>(p), std::streamsize(n));
    written_ += n;
  }
  void pad() {
    static const char zeros[8] = {};
    bytes(zeros, padded(written_) - written_);
  }

 private:
  std::ostream& out_;
  uint64_t written_ = 0;
};

void write_dictionary(Writer& w, const std::vector<std::string>& dict) {
  uint64_t offset = 0;
  w.u64(0);
  for (const std::string& s : dict) w.u64(offset += s.size());
  for (const std::string& s : dict) w.bytes(s.data(), s.size());
  w.pad();
}

void write_column(Writer& w, const Table& t, const Column& c) {
  w.u32(uint32_t(c.name.size()));
  w.u8(uint8_t(c.type));
  w.u8(0), w.u8(0), w.u8(0);
  w.u64(t.rows);
  w.bytes(c.name.data(), c.name.size());
  w.pad();
  std::vector<uint64_t> words(bitmap_words(t.rows), 0);
  for (size_t r = 0; r < t.rows; ++r)
    if (c.nulls[r]) words[r / 64] |= uint64_t(1) << (r % 64);
  w.bytes(words.data(), words.size() * 8);
  words.assign(t.rows, 0);
  for (size_t r = 0; r < t.rows; ++r)
    if (!c.nulls[r]) words[r] = c.bits(r);
  w.bytes(words.data(), words.size() * 8);
}

void write_table(Writer& w, const Table& t) {
  w.u32(uint32_t(t.name.size()));
  w.u32(uint32_t(t.columns.size()));
  w.u64(t.rows);
  w.bytes(t.name.data(), t.name.size());
  w.pad();
  for (const Column& c : t.columns) write_column(w, t, c);
}

void write_database(const Database& db, std::ostream& out) {
  uint64_t size = kHeaderBytes + dictionary_bytes(db.dict());
  for (const Table& t : db.tables()) {
    check_writable(t);
    size += table_bytes(t);
  }
  Writer w(out);
  w.bytes(kMagic, 8);
  w.u32(kWdbVersion);
  w.u32(uint32_t(db.tables().size()));
  w.u64(db.dict().size());
  w.u64(size);
  write_dictionary(w, db.dict());
  for (const Table& t : db.tables()) write_table(w, t);  // the reader checks the size it ends at
}

// ---------------------------------------------------------------------------------------------
// Reading

// Walks the bytes front to back; every read is bounds-checked first, and every error names the
// source, the byte offset and the table / column being read.
class Reader {
 public:
  Reader(const uint8_t* data, uint64_t size, const std::string& source) : data_(data), size_(size), source_(source) {}

  uint64_t pos() const { return pos_; }
  uint64_t left() const { return size_ - pos_; }
  void scope(const std::string& s) { scope_ = s; }

  [[noreturn]] void bad(uint64_t at, const std::string& what) const {
    fail(ErrorCode::BadInput, source_ + ": byte " + std::to_string(at) + ": " + scope_ + what);
  }

  // The next n bytes; BadInput when the file ends before them.
  const uint8_t* take(uint64_t n, const std::string& what) {
    if (n > left())
      bad(pos_, "truncated: " + std::to_string(n) + " bytes for " + what + ", the file has " + std::to_string(left()) + " left");
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  uint8_t u8(const std::string& what) { return *take(1, what); }
  uint32_t u32(const std::string& what) { return load<uint32_t>(take(4, what)); }
  uint64_t u64(const std::string& what) { return load<uint64_t>(take(8, what)); }
  std::string text(uint64_t n, const std::string& what) {
    const uint8_t* p = take(n, what);
    return std::string(reinterpret_cast<const char*>(p), size_t(n));
  }
  // Skips to the next multiple of 8; the padding must be zero (the format is canonical).
  void pad() {
    const uint64_t at = pos_;
    const uint8_t* p = take(padded(pos_) - pos_, "padding");
    for (uint64_t i = 0; i < padded(at) - at; ++i)
      if (p[i]) bad(at + i, "padding byte is not zero");
  }

  template <typename T>
  static T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

 private:
  const uint8_t* data_;
  uint64_t size_, pos_ = 0;
  const std::string& source_;
  std::string scope_;
};

struct Header {
  uint32_t tables = 0;
  uint64_t dict_strings = 0;
};

Header read_header(Reader& in) {
  if (in.left() < kHeaderBytes)
    in.bad(0, "truncated: the header needs " + std::to_string(kHeaderBytes) + " bytes, the file has " + std::to_string(in.left()));
  if (std::memcmp(in.take(8, "the magic"), kMagic, 8) != 0) in.bad(0, "not a .wdb file (its first 8 bytes are not \"WEFTWDB\\0\")");
  const uint32_t version = in.u32("the version");
  if (version != kWdbVersion)
    in.bad(8, "version " + std::to_string(version) + ", this Weft reads version " + std::to_string(kWdbVersion));
  Header h;
  h.tables = in.u32("the table count");
  h.dict_strings = in.u64("the dictionary size");
  const uint64_t size = in.u64("the file size");
  const uint64_t actual = in.pos() + in.left();
  if (size != actual)
    in.bad(24, "the header gives a size of " + std::to_string(size) + " bytes, the file has " + std::to_string(actual) +
                   (size > actual ? " (truncated)" : ""));
  return h;
}

std::vector<std::string> read_dictionary(Reader& in, uint64_t count) {
  in.scope("dictionary: ");
  if (count >= in.left() / 8) in.bad(in.pos(), std::to_string(count) + " strings need more offsets than the file holds");
  const uint64_t offsets_at = in.pos();
  const uint8_t* offsets = in.take(8 * (count + 1), "the string offsets");
  if (Reader::load<uint64_t>(offsets) != 0) in.bad(offsets_at, "the first string offset is not 0");
  const uint64_t bytes = Reader::load<uint64_t>(offsets + 8 * count);
  const uint64_t bytes_at = in.pos();
  const uint8_t* text = in.take(bytes, "the strings");
  std::vector<std::string> dict;
  dict.reserve(size_t(count));
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t from = Reader::load<uint64_t>(offsets + 8 * k), to = Reader::load<uint64_t>(offsets + 8 * k + 8);
    if (to < from || to > bytes)
      in.bad(offsets_at + 8 * k + 8, "string " + std::to_string(k) + " ends at " + std::to_string(to) + ", outside " +
                                         std::to_string(from) + ".." + std::to_string(bytes));
    dict.emplace_back(reinterpret_cast<const char*>(text + from), size_t(to - from));
    if (k > 0 && !(dict[k - 1] < dict[k]))
      in.bad(bytes_at + from, "string " + std::to_string(k) + " is not after string " + std::to_string(k - 1) +
                                  " in byte order (the dictionary must be sorted and distinct)");
  }
  in.pad();
  in.scope("");
  return dict;
}

// A table or column name: 1.. bytes, its case-insensitive spelling not taken yet.
std::string read_name(Reader& in, uint32_t length, std::set<std::string>& taken, const char* what) {
  const uint64_t at = in.pos();
  std::string name = in.text(length, std::string("the ") + what + " name");
  if (name.empty()) in.bad(at, std::string("empty ") + what + " name");
  if (!taken.insert(lower(name)).second) in.bad(at, std::string(what) + " '" + name + "' is named twice");
  in.pad();
  return name;
}

// The NULL bitmap into one flag per row; bits past the last row must be zero.
void read_nulls(Reader& in, Column& c, uint64_t rows) {
  const uint64_t at = in.pos();
  const uint8_t* words = in.take(8 * bitmap_words(rows), "the NULL bitmap");
  c.nulls.assign(size_t(rows), 0);
  for (uint64_t r = 0; r < rows; ++r) c.nulls[r] = (words[r / 8] >> (r % 8)) & 1;
  for (uint64_t r = rows; r < 64 * bitmap_words(rows); ++r)
    if ((words[r / 8] >> (r % 8)) & 1) in.bad(at + r / 8, "NULL bit set for row " + std::to_string(r) + " past the last row");
}

// The values, copied out of the mapping (no per-value parsing); a NULL row's word must be 0 and a
// Text code 2k with k in the dictionary. A Text column keeps its codes alone (no string per row:
// a long dictionary string named by many rows would otherwise expand far beyond the file).
void read_values(Reader& in, Column& c, uint64_t rows, const std::vector<std::string>& dict) {
  const uint64_t at = in.pos();
  const uint8_t* words = in.take(8 * rows, "the values");
  if (c.type == Type::Float) {
    c.floats.resize(size_t(rows));
    if (rows) std::memcpy(c.floats.data(), words, size_t(8 * rows));
  } else {
    c.ints.resize(size_t(rows));
    if (rows) std::memcpy(c.ints.data(), words, size_t(8 * rows));
  }
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t bits = c.type == Type::Float ? std::bit_cast<uint64_t>(c.floats[r]) : uint64_t(c.ints[r]);
    if (c.nulls[r] && bits != 0) in.bad(at + 8 * r, "row " + std::to_string(r) + " is NULL but its value is not 0");
    if (c.type == Type::Text && !c.nulls[r] && ((bits & 1) || bits / 2 >= dict.size()))
      in.bad(at + 8 * r, "row " + std::to_string(r) + ": text code " + std::to_string(int64_t(bits)) + " is not in the dictionary of " +
                             std::to_string(dict.size()) + " strings");
  }
}

Column read_column(Reader& in, const std::string& table, uint64_t rows, std::set<std::string>& names,
                   const std::vector<std::string>& dict) {
  const uint64_t at = in.pos();
  in.scope("table '" + table + "' column at byte " + std::to_string(at) + ": ");
  const uint32_t name_length = in.u32("the column header");
  const uint8_t type = in.u8("the column header");
  const uint8_t* zeros = in.take(3, "the column header");
  const uint64_t column_rows = in.u64("the column header");
  if (type > uint8_t(Type::Text)) in.bad(at + 4, "type " + std::to_string(type) + " (0 int, 1 float, 2 text)");
  for (int i = 0; i < 3; ++i)
    if (zeros[i]) in.bad(at + 5 + uint64_t(i), "reserved byte is not zero");
  Column c;
  c.name = read_name(in, name_length, names, "column");
  c.type = Type(type);
  in.scope("table '" + table + "' column '" + c.name + "': ");
  if (column_rows != rows)
    in.bad(at + 8, "the column has " + std::to_string(column_rows) + " rows, its table " + std::to_string(rows));
  read_nulls(in, c, rows);
  read_values(in, c, rows, dict);
  return c;
}

Table read_table(Reader& in, std::set<std::string>& table_names, const std::vector<std::string>& dict) {
  const uint64_t at = in.pos();
  in.scope("table at byte " + std::to_string(at) + ": ");
  const uint32_t name_length = in.u32("the table header");
  const uint32_t columns = in.u32("the table header");
  const uint64_t rows = in.u64("the table header");
  Table t;
  t.name = read_name(in, name_length, table_names, "table");
  in.scope("table '" + t.name + "': ");
  if (columns == 0 || columns > kMaxColumns)
    in.bad(at + 4, std::to_string(columns) + " columns (1.." + std::to_string(kMaxColumns) + ")");
  if (rows > kMaxRows) in.bad(at + 8, std::to_string(rows) + " rows, more than " + std::to_string(kMaxRows));
  // Each column needs at least its header and 8 bytes a row: refuse before reading any.
  if (uint64_t(columns) * (kSectionHeaderBytes + 8 * rows) > in.left())
    in.bad(at + 4, "truncated: " + std::to_string(columns) + " columns of " + std::to_string(rows) + " rows need more than the " +
                       std::to_string(in.left()) + " bytes left");
  t.rows = size_t(rows);
  std::set<std::string> column_names;
  for (uint32_t k = 0; k < columns; ++k) t.columns.push_back(read_column(in, t.name, rows, column_names, dict));
  in.scope("");
  return t;
}

}  // namespace

std::string encode_database(const Database& db) {
  std::ostringstream out;
  write_database(db, out);
  return std::move(out).str();
}

void save_database(const Database& db, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(ErrorCode::BadInput, path + ": cannot write the file");
  write_database(db, out);
  out.close();
  if (!out) fail(ErrorCode::BadInput, path + ": writing failed");
}

Database decode_database(const uint8_t* data, uint64_t size, const std::string& source) {
  Reader in(data, size, source);
  const Header h = read_header(in);
  std::vector<std::string> dict = read_dictionary(in, h.dict_strings);
  if (h.tables > in.left() / (2 * kSectionHeaderBytes))
    in.bad(12, std::to_string(h.tables) + " tables need more than the " + std::to_string(in.left()) + " bytes left");
  std::vector<Table> tables;
  std::set<std::string> names;
  for (uint32_t k = 0; k < h.tables; ++k) tables.push_back(read_table(in, names, dict));
  if (in.left()) in.bad(in.pos(), std::to_string(in.left()) + " bytes after the last table");
  return Database::from_encoded(std::move(tables), std::move(dict));
}

Database load_database(const std::string& path) {
  const MappedFile file(path, "cannot open the .wdb file", kDataFileBytes);
  return decode_database(file.data(), file.size(), path);
}

}  // namespace weft::db
