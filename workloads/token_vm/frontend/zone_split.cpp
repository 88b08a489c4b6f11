#include "zone_split.h"

#include <algorithm>

#include <weft/error.h>

namespace weft::token_vm {
namespace {

// "offset 12 (text line 2)": where inside a block's text something was found.
std::string position(std::string_view text, size_t offset) {
  const size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
  return "offset " + std::to_string(offset) + " (text line " + std::to_string(line) + ")";
}

bool ends_at(std::string_view text, size_t end, size_t from, const std::string& p) {
  return !p.empty() && end >= from + p.size() && text.compare(end - p.size(), p.size(), p) == 0;
}

bool only_whitespace(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

SplitResult split_zones(std::string_view text, const PatternSet& ps, const std::string& where,
                        std::vector<std::string>* warnings) {
  auto bad = [&](const std::string& what) { fail(ErrorCode::BadInput, where + ": " + what); };
  const uint32_t n = uint32_t(ps.zone.size());
  // All patterns in workflow numbering; the lint guarantees no pattern contains another, so at
  // most one of them ends at any position.
  std::vector<const std::string*> all;
  for (const std::string& z : ps.zone) all.push_back(&z);
  all.push_back(&ps.control);
  all.push_back(&ps.escape_open);
  all.push_back(&ps.escape_close);

  SplitResult r;
  r.zones.resize(n);
  ZoneText cur;
  uint32_t depth = 0;
  size_t opened_at = 0;      // offset of the outermost open escape (for the error message)
  size_t piece_start = 0;    // occurrences never overlap an earlier one
  size_t zone_start = 0;
  auto plain_until = [&](size_t end) {
    if (end > piece_start) cur.pieces.push_back({TextPiece::kPlain, std::string(text.substr(piece_start, end - piece_start))});
  };
  for (size_t e = 1; e <= text.size(); ++e) {
    uint32_t hit = TextPiece::kPlain;
    for (uint32_t id = 0; id < all.size(); ++id)
      if (ends_at(text, e, piece_start, *all[id])) {
        hit = id;
        break;
      }
    if (hit == TextPiece::kPlain) continue;
    const std::string& p = *all[hit];
    const size_t s = e - p.size();
    if (hit == ps.escape_open_id()) {
      if (depth++ == 0) opened_at = s;
    } else if (hit == ps.escape_close_id()) {
      if (depth == 0) bad("escape close pattern '" + p + "' at " + position(text, s) + " closes no open escape");
      --depth;
    } else if (depth > 0) {
      continue;  // escaped: plain text, nothing triggers
    } else if (hit == ps.control_id()) {
      if (warnings)
        warnings->push_back(where + ": unescaped control pattern '" + p + "' at " + position(text, s) +
                            " (forced text will take the jump exit of a decision zone)");
    } else if (hit != r.closed_zones) {
      if (r.closed_zones >= n)
        bad("zone pattern '" + p + "' at " + position(text, s) + " after the final zone pattern '" + ps.zone[n - 1] + "'");
      bad("zone pattern '" + p + "' at " + position(text, s) + (hit < r.closed_zones ? " appears again" : " comes too early") +
          "; the next zone pattern expected is '" + ps.zone[r.closed_zones] + "' (zone patterns appear in order, once each)");
    }
    plain_until(s);
    cur.pieces.push_back({hit, p});
    piece_start = e;
    if (hit < n && depth == 0) {  // a zone pattern at depth 0 closes the zone
      cur.text = std::string(text.substr(zone_start, e - zone_start));
      cur.closed = true;
      r.zones[r.closed_zones++] = std::move(cur);
      cur = {};
      zone_start = e;
    }
  }
  if (depth > 0) bad("escape opened at " + position(text, opened_at) + " is never closed");
  if (zone_start < text.size()) {
    const std::string_view rest = text.substr(zone_start);
    if (r.closed_zones == n) {
      if (!only_whitespace(rest))
        bad("text after the final zone pattern '" + ps.zone[n - 1] + "' at " + position(text, zone_start));
    } else {
      plain_until(text.size());
      cur.text = std::string(rest);
      r.zones[r.closed_zones] = std::move(cur);
    }
  }
  return r;
}

}  // namespace weft::token_vm
