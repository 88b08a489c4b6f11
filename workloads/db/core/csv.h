// CSV loader: RFC 4180 text (comma separated, "double quotes" with "" inside, LF or CRLF line
// ends, quoted fields may span lines) with a header row naming the columns. Column types are
// inferred (every non-NULL field an int64 -> Int, else every one a finite decimal number ->
// Float, else Text) or given by a schema. Every malformed input is a BadInput error naming
// file:line:col.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "table.h"

namespace weft::db {

struct SchemaColumn {
  std::string name;
  Type type;
};

// "a:int,b:float,c:text" (types int|integer|float|real|double|text|string).
std::vector<SchemaColumn> parse_schema(const std::string& text);

// `source` names the text in error messages (a file name).
Table load_csv(std::string_view text, const std::string& table_name, const std::string& source,
               const std::optional<std::vector<SchemaColumn>>& schema = std::nullopt);
Table load_csv_file(const std::string& path, const std::string& table_name,
                    const std::optional<std::vector<SchemaColumn>>& schema = std::nullopt);

// Strict number syntax shared with the SQL lexer.
std::optional<int64_t> parse_int64(std::string_view s);
std::optional<double> parse_float(std::string_view s);

// Largest table the loader accepts (rows are 32-bit indices on the device).
inline constexpr size_t kMaxRows = size_t(1) << 30;
inline constexpr size_t kMaxColumns = 1024;

}  // namespace weft::db
