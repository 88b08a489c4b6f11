// .wdb files (core/wdb.h): a Database saved and reloaded is the same Database (every type, NULLs,
// special floats, empty tables, '' beside NULL, non-ASCII text); queries on the reloaded tables
// agree with SQLite on the CSV ones; and every malformed file is BadInput naming the file, the
// byte offset and the table / column, never a crash.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"
#include "wdb.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::ValidationClean;

namespace {

// The value of a row as text, for comparing two Databases whatever their encodings: a Text
// column's string through its own Database's dictionary, a Float's bits.
std::string row_value(const Database& db, const Column& c, size_t r) {
  if (c.nulls[r]) return "NULL";
  if (c.type == Type::Text) return "'" + db.decode(c.ints[r]) + "'";
  if (c.type == Type::Float) return "f" + std::to_string(std::bit_cast<uint64_t>(c.floats[r]));
  return std::to_string(c.ints[r]);
}

// Same tables in the same order: names, types, rows, NULLs and values; and the same dictionary.
void check_same(const Database& a, const Database& b) {
  CHECK(a.dict() == b.dict());
  REQUIRE(a.tables().size() == b.tables().size());
  for (size_t t = 0; t < a.tables().size(); ++t) {
    const Table &x = a.table(t), &y = b.table(t);
    INFO("table " << x.name);
    CHECK(x.name == y.name);
    REQUIRE(x.rows == y.rows);
    REQUIRE(x.columns.size() == y.columns.size());
    for (size_t c = 0; c < x.columns.size(); ++c) {
      INFO("column " << x.columns[c].name);
      CHECK(x.columns[c].name == y.columns[c].name);
      REQUIRE(x.columns[c].type == y.columns[c].type);
      for (size_t r = 0; r < x.rows; ++r) CHECK(row_value(a, x.columns[c], r) == row_value(b, y.columns[c], r));
    }
  }
}

Database reloaded(const Database& db) {
  const std::string bytes = encode_database(db);
  return decode_database(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.wdb");
}

// Every type with NULLs, '' beside NULL, non-ASCII text, a string with a NUL byte, an empty table.
Database csv_db() {
  Database db;
  db.add(load_csv("id,qty,price,name,note\n"
                  "1,10,2.5,apple,\"\"\n"
                  "2,,-0.5,\"épée\",x\n"
                  "3,-7,,\"日本語\",\n"
                  "4,9223372036854775807,1e300,,\"a,b\"\"c\"\n"
                  "5,-9223372036854775808,-0.0,apple,\"🙂\"\n"
                  "6,0,0.1,banana,\"\"\n",
                  "items", "items.csv"));
  db.add(load_csv("k,label\n1,apple\n2,cherry\n,\n3,\"\"\n", "tags", "tags.csv"));
  db.add(load_csv("a,b\n", "empty", "empty.csv", parse_schema("a:int,b:text")));
  return db;
}

// Floats the CSV loader refuses (infinities, a NaN with a payload) or writes otherwise, built directly.
Table special_floats() {
  Table t;
  t.name = "floats";
  Column c;
  c.name = "f";
  c.type = Type::Float;
  c.floats = {-0.0, 0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
              std::numeric_limits<double>::denorm_min(), std::bit_cast<double>(uint64_t(0x7ff8000000000123)), 0.0};
  t.rows = c.floats.size();
  c.nulls.assign(t.rows, 0);
  c.nulls.back() = 1;
  Column s;
  s.name = "s";
  s.type = Type::Text;
  s.strings = {std::string("nul\0byte", 8), "", "z", "", "a", "z", ""};
  s.nulls = {0, 0, 0, 1, 0, 0, 0};
  t.columns = {c, s};
  return t;
}

// The message of the BadInput that decoding `bytes` gives, without the "bad input: " prefix.
std::string decode_error(const std::string& bytes) {
  try {
    decode_database(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.wdb");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    const std::string m = e.what(), prefix = "bad input: ";
    return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
  }
  return "(no error)";
}

void put32(std::string& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
void put64(std::string& b, size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }

// A small file whose layout the hostile cases edit, byte offsets worked out from docs/db.md:
//   0 header | 32 offsets 0,1,3 | 56 "abc" + 5 zeros | 64 table "t" (2 columns, 2 rows)
//   88 column "x" int: 104 name, 112 bitmap, 120 values | 136 column "s" text: 152 name,
//   160 bitmap, 168 values | 184 end.
std::string small_file() {
  Database db;
  db.add(load_csv("x,s\n5,a\n,bc\n", "t", "t.csv"));
  const std::string bytes = encode_database(db);
  REQUIRE(bytes.size() == 184);
  return bytes;
}

}  // namespace

TEST_CASE("db wdb: CSV -> Database -> .wdb -> Database is the same Database") {
  const Database db = csv_db();
  check_same(db, reloaded(db));
}

TEST_CASE("db wdb: -0.0, infinities, denormals, a NaN and NUL bytes in text keep their bits") {
  Database db;
  db.add(special_floats());
  const Database back = reloaded(db);
  check_same(db, back);
  CHECK(std::signbit(back.table(0).columns[0].floats[0]));
  CHECK(std::bit_cast<uint64_t>(back.table(0).columns[0].floats[5]) == 0x7ff8000000000123);
  CHECK(back.decode(back.table(0).columns[1].ints[0]) == std::string("nul\0byte", 8));
}

TEST_CASE("db wdb: the file is canonical: a reloaded Database saves to the same bytes") {
  Database db = csv_db();
  db.add(special_floats());
  const std::string bytes = encode_database(db);
  CHECK(encode_database(reloaded(db)) == bytes);
  CHECK(bytes.size() % 8 == 0);
}

TEST_CASE("db wdb: dictionary strings no column holds (a query's literals) survive the round trip") {
  Database db = csv_db();
  db.intern({"zzz-literal", "0-literal"});
  const Database back = reloaded(db);
  check_same(db, back);
  CHECK(back.code("zzz-literal") % 2 == 0);
}

TEST_CASE("db wdb: a reloaded Database re-encodes its codes when a table or a literal is added") {
  Database back = reloaded(csv_db());
  back.intern({"aardvark"});  // before every string: each code moves up by 2
  back.add(load_csv("label\nbanana\nbanana2\n", "more", "more.csv"));
  Database direct = csv_db();
  direct.intern({"aardvark"});
  direct.add(load_csv("label\nbanana\nbanana2\n", "more", "more.csv"));
  check_same(direct, back);
}

TEST_CASE("db wdb: save_database and load_database through a file") {
  const auto path = std::filesystem::temp_directory_path() / ("weft_test_" + std::to_string(::getpid()) + ".wdb");
  const Database db = csv_db();
  save_database(db, path.string());
  check_same(db, load_database(path.string()));
  std::filesystem::remove(path);
}

TEST_CASE("db wdb: a file over the data-file limit is refused naming the limit") {
  const auto path = std::filesystem::temp_directory_path() / ("weft_test_limit_" + std::to_string(::getpid()) + ".wdb");
  save_database(csv_db(), path.string());
  {
    const weft::test::ScopedEnv cap("WEFT_MAX_DATA_FILE_BYTES", "100");
    const std::string m = weft::test::error_message_of([&] { load_database(path.string()); });
    CHECK(m.find(path.string()) != std::string::npos);
    CHECK(m.find("WEFT_MAX_DATA_FILE_BYTES") != std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST_CASE("db wdb: a missing file is BadInput naming it") {
  CHECK(weft::test::error_message_of([] { load_database("/nonexistent/x.wdb"); })
            .find("/nonexistent/x.wdb: cannot open the .wdb file") != std::string::npos);
}

TEST_CASE("db wdb: save refuses a column whose vectors disagree with its table's rows") {
  Table t = special_floats();
  t.columns[0].nulls.pop_back();
  Database db;
  db.add(t);
  CHECK_THROWS_WITH_AS(encode_database(db), doctest::Contains("table 'floats' column 'f': holds 7 values and 6 NULL flags for 7 rows"),
                       Error);
}

TEST_CASE("db wdb: every prefix of a file is refused as truncated, never read past") {
  const std::string bytes = small_file();
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO(n);
    CHECK(decode_error(bytes.substr(0, n)).find("truncated") != std::string::npos);
  }
  CHECK(decode_error(bytes) == "(no error)");
}

TEST_CASE("db wdb: the header's magic, version, size and the bytes after the last table") {
  std::string b = small_file();
  b[0] = 'X';
  CHECK(decode_error(b) == "f.wdb: byte 0: not a .wdb file (its first 8 bytes are not \"WEFTWDB\\0\")");
  b = small_file();
  put32(b, 8, 2);
  CHECK(decode_error(b) == "f.wdb: byte 8: version 2, this Weft reads version 1");
  b = small_file() + std::string(8, '\0');
  CHECK(decode_error(b) == "f.wdb: byte 24: the header gives a size of 184 bytes, the file has 192");
  put64(b, 24, 192);
  CHECK(decode_error(b) == "f.wdb: byte 184: 8 bytes after the last table");
}

TEST_CASE("db wdb: dictionary counts and offsets beyond the file, unsorted and duplicate strings") {
  std::string b = small_file();
  put64(b, 16, uint64_t(1) << 60);
  CHECK(decode_error(b) == "f.wdb: byte 32: dictionary: 1152921504606846976 strings need more offsets than the file holds");
  b = small_file();
  put64(b, 48, 1000);  // the end of the last string
  CHECK(decode_error(b) == "f.wdb: byte 56: dictionary: truncated: 1000 bytes for the strings, the file has 128 left");
  b = small_file();
  put64(b, 40, 4);  // string 0 ends past the strings' end
  CHECK(decode_error(b) == "f.wdb: byte 40: dictionary: string 0 ends at 4, outside 0..3");
  b = small_file();
  std::memcpy(&b[56], "bab", 3);  // "b", "ab": unsorted
  CHECK(decode_error(b) == "f.wdb: byte 57: dictionary: string 1 is not after string 0 in byte order (the dictionary must be sorted and distinct)");
  b = small_file();
  std::memcpy(&b[56], "aaa", 3);
  put64(b, 40, 1);
  put64(b, 48, 2);  // "a", "a" then a nonzero padding byte
  CHECK(decode_error(b) == "f.wdb: byte 57: dictionary: string 1 is not after string 0 in byte order (the dictionary must be sorted and distinct)");
  b = small_file();
  b[60] = 1;
  CHECK(decode_error(b) == "f.wdb: byte 60: dictionary: padding byte is not zero");
}

TEST_CASE("db wdb: table counts, name lengths, column counts and rows beyond the file") {
  std::string b = small_file();
  put32(b, 12, 1000);
  CHECK(decode_error(b) == "f.wdb: byte 12: 1000 tables need more than the 120 bytes left");
  b = small_file();
  put32(b, 64, 0xFFFFFFFF);
  CHECK(decode_error(b) == "f.wdb: byte 80: table at byte 64: truncated: 4294967295 bytes for the table name, the file has 104 left");
  b = small_file();
  put32(b, 68, 5000);
  CHECK(decode_error(b) == "f.wdb: byte 68: table 't': 5000 columns (1..1024)");
  b = small_file();
  put64(b, 72, uint64_t(1) << 40);
  CHECK(decode_error(b) == "f.wdb: byte 72: table 't': 1099511627776 rows, more than 1073741824");
  b = small_file();
  put64(b, 72, 1000);
  CHECK(decode_error(b) == "f.wdb: byte 68: table 't': truncated: 2 columns of 1000 rows need more than the 96 bytes left");
  b = small_file();
  put32(b, 88, 500);
  CHECK(decode_error(b) == "f.wdb: byte 104: table 't' column at byte 88: truncated: 500 bytes for the column name, the file has 80 left");
}

TEST_CASE("db wdb: a column's rows that disagree with its table's, a bad type, reserved bytes") {
  std::string b = small_file();
  put64(b, 144, 3);
  CHECK(decode_error(b) == "f.wdb: byte 144: table 't' column 's': the column has 3 rows, its table 2");
  b = small_file();
  b[92] = 7;
  CHECK(decode_error(b) == "f.wdb: byte 92: table 't' column at byte 88: type 7 (0 int, 1 float, 2 text)");
  b = small_file();
  b[93] = 1;
  CHECK(decode_error(b) == "f.wdb: byte 93: table 't' column at byte 88: reserved byte is not zero");
}

TEST_CASE("db wdb: text codes outside the dictionary, odd codes, and NULL rows with a value") {
  std::string b = small_file();
  put64(b, 176, 4);  // row 1 of s: code 4 = rank 2, the dictionary has 2 strings
  CHECK(decode_error(b) == "f.wdb: byte 176: table 't' column 's': row 1: text code 4 is not in the dictionary of 2 strings");
  put64(b, 176, 1);
  CHECK(decode_error(b) == "f.wdb: byte 176: table 't' column 's': row 1: text code 1 is not in the dictionary of 2 strings");
  put64(b, 176, uint64_t(-2));
  CHECK(decode_error(b) == "f.wdb: byte 176: table 't' column 's': row 1: text code -2 is not in the dictionary of 2 strings");
  b = small_file();
  put64(b, 128, 9);  // row 1 of x is NULL
  CHECK(decode_error(b) == "f.wdb: byte 128: table 't' column 'x': row 1 is NULL but its value is not 0");
  b = small_file();
  b[112] |= 4;  // NULL bit of row 2, past the last row
  CHECK(decode_error(b) == "f.wdb: byte 112: table 't' column 'x': NULL bit set for row 2 past the last row");
}

TEST_CASE("db wdb: duplicate table and column names (case-insensitive), empty names") {
  Database db;
  db.add(load_csv("x\n1\n", "t", "t.csv"));
  db.add(load_csv("x\n2\n", "u", "u.csv"));
  std::string b = encode_database(db);
  // The second table starts at 32 + 8 (no strings) + 16 + 8 (t) + 16 + 8 + 8 + 8 (its column) = 104.
  b[104 + 16] = 'T';
  CHECK(decode_error(b) == "f.wdb: byte 120: table at byte 104: table 'T' is named twice");
  db = Database();
  db.add(load_csv("x,y\n1,2\n", "t", "t.csv"));
  b = encode_database(db);
  b[40 + 16 + 8 + 16 + 8 + 8 + 8 + 16] = 'X';  // column y's name
  CHECK(decode_error(b) == "f.wdb: byte 120: table 't' column at byte 104: column 'X' is named twice");
  put32(b, 104, 0);
  CHECK(decode_error(b) == "f.wdb: byte 120: table 't' column at byte 104: empty column name");
}

TEST_CASE("db wdb: every one-byte change of a small file loads or is BadInput, and what loads saves back the same") {
  const std::string bytes = small_file();
  size_t loaded = 0;
  for (size_t at = 0; at < bytes.size(); ++at)
    for (int v : {0x00, 0x01, 0x80, 0xFF}) {
      std::string b = bytes;
      b[at] = char(v);
      try {
        const Database db = decode_database(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "f.wdb");
        CHECK(encode_database(db) == b);
        ++loaded;
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::BadInput);
      }
    }
  CHECK(loaded > 0);  // changed values (x = 0x80..., another text code) still load
}

TEST_CASE("db wdb: queries on the reloaded tables agree with SQLite on the CSV tables") {
  ValidationClean clean;
  Database csv = csv_db();
  Sqlite peer(csv);
  Database back = reloaded(csv);
  for (const char* sql : {
           "SELECT * FROM items",
           "SELECT name, COUNT(*), SUM(qty), MIN(price), MAX(note) FROM items GROUP BY name ORDER BY name",
           "SELECT i.id, t.label FROM items i JOIN tags t ON i.name = t.label ORDER BY i.id",
           "SELECT id FROM items WHERE name = 'banana' OR name = 'not-there' OR note = ''",  // a new literal re-encodes
           "SELECT id, name FROM items WHERE name > 'b' AND name LIKE '%a%' ORDER BY name DESC, id",
           "SELECT label, length(label), upper(label) FROM tags ORDER BY label",
           "SELECT COUNT(*), COUNT(b) FROM empty",
           // a derived table is added to the Database beside the file's code-only columns
           "SELECT d.name, d.n FROM (SELECT name, COUNT(*) AS n FROM items GROUP BY name) d ORDER BY d.name",
       })
    weft::db::test::check_query(back, peer, sql);
}

// The seeds (wdb-seed-*, written from docs/db.md's layout by a script, not by save_database) must
// load; any other file may be refused, as BadInput.
TEST_CASE("db wdb: fuzz seeds load, regressions load or fail cleanly, and what loads saves back the same") {
  namespace fs = std::filesystem;
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(WEFT_DB_FUZZ_REGRESSIONS)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("wdb-", 0) != 0) continue;
    INFO(name);
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      CHECK(encode_database(decode_database(reinterpret_cast<const uint8_t*>(b.data()), b.size(), name)) == b);
    } catch (const Error& e) {
      CHECK_MESSAGE(name.rfind("wdb-seed-", 0) != 0, e.what());
      CHECK(e.code() == ErrorCode::BadInput);
    }
    ++n;
  }
  CHECK(n >= 3);
}
