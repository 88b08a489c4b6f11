// libFuzzer target: the .wdb reader (core/wdb.h) on arbitrary bytes. Any input must either load
// or throw weft::Error; and since the format is canonical, a file that loads must save back to the
// same bytes (a difference traps: the reader accepted something the writer would not write, or
// lost something it read).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <weft/error.h>

#include "wdb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  weft::db::Database db;
  try {
    db = weft::db::decode_database(data, size, "fuzz.wdb");
  } catch (const weft::Error&) {
    return 0;
  }
  const std::string again = weft::db::encode_database(db);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
  return 0;
}
