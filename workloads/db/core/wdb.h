// .wdb files: a Database in a typed, little-endian columnar file that Weft writes once and maps
// to reload without parsing text (issue 21, "load once, query many"). Vulkan-free.
//
// Layout (version 1; every section starts at a multiple of 8 bytes, padding bytes are zero):
//
//   header, 32 bytes: magic "WEFTWDB\0", u32 version = 1, u32 table count,
//                     u64 dictionary strings D, u64 file size
//   dictionary:       u64 offsets[D + 1] (offsets[0] = 0, non-decreasing), then the strings'
//                     bytes (string k is bytes [offsets[k], offsets[k+1])), padded to 8.
//                     Strictly increasing in byte order: Database::dict(), code 2k is string k.
//   per table:        u32 name length, u32 column count, u64 rows, the name padded to 8,
//   then per column:  u32 name length, u8 type (0 int, 1 float, 2 text), 3 zero bytes,
//                     u64 rows (the table's), the name padded to 8,
//                     NULL bitmap: ceil(rows / 64) u64 words, bit r % 64 of word r / 64 set when
//                     row r is NULL (bits past the last row zero),
//                     values: rows u64 words, Column::bits() of each row (int64, double bits, or
//                     the Text code 2 * rank), 0 for a NULL row.
//   The file ends with the last column: its size is the header's.
//
// The format is canonical: a file that loads saves back to the same bytes (the fuzz target checks
// this), so every byte is checked on load.
//
// The bitmap and values are, byte for byte, what the device executor uploads for a column
// (query.cpp's upload_query: the NULL flags as 32-bit words, bit r % 32 of word r / 32 — the same
// bytes on a little-endian host — and the values with NULL rows zeroed). Loading today copies them
// into the Database's vectors. To upload straight from the mapping, a later change would keep the
// MappedFile alive beside the Database (shared with it), record each column's bitmap and values
// offsets while reading, and let upload_query write those bytes when the column is untouched. A
// Text column's codes stay valid only while the Database's dictionary is the file's: a query
// that adds a literal or a derived string to the dictionary re-encodes the columns, and the mapped
// codes would then need the old-rank -> new-rank remapping that Database::encode does.
#pragma once

#include <cstdint>
#include <string>

#include "table.h"

namespace weft::db {

inline constexpr uint32_t kWdbVersion = 1;

// The file's bytes; BadInput when a column's vectors disagree with its table's rows.
std::string encode_database(const Database& db);
// Writes encode_database's bytes to `path` (BadInput naming it when it cannot be written).
void save_database(const Database& db, const std::string& path);

// Builds the Database the bytes describe, parsing no text. `source` names the bytes in errors:
// every malformed input is BadInput "SOURCE: byte N: [table 'T' column 'C': ]what is wrong".
Database decode_database(const uint8_t* data, uint64_t size, const std::string& source);
// Maps `path` read-only (the data-file size limit applies: WEFT_MAX_DATA_FILE_BYTES) and decodes it.
Database load_database(const std::string& path);

}  // namespace weft::db
