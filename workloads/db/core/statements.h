// Splitting SQL text into statements at the semicolons outside string literals, quoted names and
// comments, as a shell reads them line by line. Vulkan-free.
#pragma once

#include <cstddef>
#include <string_view>

namespace weft::db {

// The length of the first complete statement of `text` (up to and including its ';'), or 0
// when no ';' ends one yet (an unfinished literal, name or block comment included).
size_t complete_statement_length(std::string_view text);

// True when `text` holds only blanks, ';' and comments: nothing to run.
bool blank_sql(std::string_view text);

}  // namespace weft::db
