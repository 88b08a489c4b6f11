// libFuzzer target: the CSV loader (inferred types, then a schema taken from the first byte)
// on arbitrary bytes. Any input must either load or throw weft::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/error.h>

#include "csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    weft::db::Database db;
    db.add(weft::db::load_csv(text, "t", "fuzz.csv"));
  } catch (const weft::Error&) {
  }
  if (size > 0) {
    static const char* schemas[] = {"a:int,b:float", "a:text,b:int", "a:float", "a:int,b:text,c:float"};
    try {
      auto schema = weft::db::parse_schema(schemas[data[0] % 4]);
      weft::db::load_csv(text.substr(1), "t", "fuzz.csv", schema);
    } catch (const weft::Error&) {
    }
  }
  return 0;
}
