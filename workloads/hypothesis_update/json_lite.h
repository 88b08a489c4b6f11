// A small JSON reader for fixture run.json files: objects keep their key order (graph order
// comes from it), and Python's NaN / Infinity / -Infinity literals are accepted.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace weft::hyp::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Value> items;                           // Array
  std::vector<std::pair<std::string, Value>> fields;  // Object, in file order

  bool is_null() const { return kind == Kind::Null; }
  // Object member; nullptr when absent (or not an object).
  const Value* find(const std::string& key) const;
  // Typed access; BadInput naming `where` when the member is missing or of another kind.
  const Value& at(const std::string& key, const std::string& where) const;
  double as_number(const std::string& where) const;
  const std::string& as_string(const std::string& where) const;
};

// BadInput "<name>: ... at offset N" on malformed text.
Value parse(const std::string& text, const std::string& name);
Value parse_file(const std::string& path);

}  // namespace weft::hyp::json
