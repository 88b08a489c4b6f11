// ResidentTables: base-table columns in far memory of their own, uploaded once and imported by
// every query program (program.cpp, base_segment).
#include <algorithm>

#include "db.h"
#include "db_ops.h"

namespace weft::db {

namespace {

constexpr size_t kPieceRows = size_t(1) << 20;  // rows converted and written at a time

bool has_null(const Column& c) { return std::find(c.nulls.begin(), c.nulls.end(), 1) != c.nulls.end(); }

}  // namespace

ResidentTables::ResidentTables(Device& device) : device_(device) {
  if (!device.info().buffer_device_address)
    fail(ErrorCode::MissingFeature, "db: device '" + device.info().name +
                                        "' lacks bufferDeviceAddress; resident tables live in far memory that query "
                                        "programs import");
}

ResidentTables::Held* ResidentTables::held(const std::string& table) {
  for (Held& h : tables_)
    if (iequals(h.name, table)) return &h;
  return nullptr;
}

void ResidentTables::hold(const std::string& table) {
  if (!held(table)) tables_.push_back({table, false, 0, {}});
}

void ResidentTables::invalidate(const std::string& table) {
  if (Held* h = held(table)) h->uploaded = false;
}

void ResidentTables::refresh(const Database& db) {
  for (Held& h : tables_) {
    const int t = db.find(h.name);
    if (t < 0) fail(ErrorCode::BadInput, "db: resident table '" + h.name + "' is not in the database");
    if (!h.uploaded) upload(db.table(size_t(t)), h, false);
    else if (h.text_generation != db.encoding_generation()) upload(db.table(size_t(t)), h, true);
    h.text_generation = db.encoding_generation();
  }
}

// Values as the device stores them (NULL rows 0) and the NULL bitmap (bit r of word r / 32),
// each written into memory of its own; with `text_only` only Text columns (new codes).
void ResidentTables::upload(const Table& t, Held& h, bool text_only) {
  h.columns.resize(t.columns.size());
  const uint64_t rows = std::max<uint64_t>(t.rows, 1);
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const Column& col = t.columns[c];
    if (text_only && col.type != Type::Text) continue;
    ColumnMemory& out = h.columns[c];
    const std::string name = t.name + "." + col.name;
    out.values = std::make_shared<FarSegmentMemory>(device_, name, rows * 8, 8);
    std::vector<uint64_t> piece;
    for (size_t at = 0; at < t.rows; at += kPieceRows) {
      piece.assign(std::min(kPieceRows, t.rows - at), 0);
      for (size_t r = 0; r < piece.size(); ++r)
        if (!col.nulls[at + r]) piece[r] = col.bits(at + r);
      out.values->write(at * 8, piece.data(), piece.size() * 8);
    }
    uploaded_bytes_ += rows * 8;
    out.nulls = nullptr;
    if (!has_null(col)) continue;
    std::vector<uint32_t> bits((rows + 31) / 32, 0);
    for (size_t r = 0; r < t.rows; ++r)
      if (col.nulls[r]) bits[r / 32] |= 1u << (r % 32);
    out.nulls = std::make_shared<FarSegmentMemory>(device_, name + " NULLs", bits.size() * 4, 4);
    out.nulls->write(0, bits.data(), bits.size() * 4);
    uploaded_bytes_ += bits.size() * 4;
  }
  h.uploaded = true;
}

const ResidentTables::ColumnMemory* ResidentTables::find(const std::string& table, size_t column) const {
  for (const Held& h : tables_)
    if (h.uploaded && iequals(h.name, table)) return column < h.columns.size() ? &h.columns[column] : nullptr;
  return nullptr;
}

uint64_t ResidentTables::resident_bytes() const {
  uint64_t bytes = 0;
  for (const Held& h : tables_)
    for (const ColumnMemory& c : h.columns)
      bytes += (c.values ? c.values->size() : 0) + (c.nulls ? c.nulls->size() : 0);
  return bytes;
}

}  // namespace weft::db
