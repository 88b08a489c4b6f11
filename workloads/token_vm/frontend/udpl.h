// UDPL prompt files (spec §1.1): a [config] table plus one array of tables per sequence, each
// entry a block of text cut into zones by the zone patterns. Parsing runs every lint rule; a
// failure throws weft::Error(BadInput) naming the file, the sequence, the block, the field and
// the line. Placeholders stay unresolved here: resources arrive at compile time (flow.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "zone_split.h"

namespace weft::token_vm {

struct UdplConfig {
  std::vector<std::string> zone_patterns;      // >= 2; zone k of a block is closed by pattern k
  std::vector<std::string> required_patterns;  // subset of zone_patterns, present in every block
  std::vector<std::string> valid_tags;         // at most 32 (one bit each)
  uint32_t default_max_token_length = 0;       // a zone's timeout unless its block says otherwise
  std::vector<std::string> sequences;          // declared sequence names, in order
  std::string control_pattern;                 // the jump pattern
  std::string escape_open, escape_close;       // both empty when escape_patterns is absent
  std::vector<std::string> tools;              // capture targets (optional)

  PatternSet patterns() const { return {zone_patterns, control_pattern, escape_open, escape_close}; }
};

enum class PlaceholderType { Standard, Custom, Argument };

// `{name}` in a block's text, described by the block's `[sequence.name]` table.
struct Placeholder {
  std::string name;                              // as written between the braces
  std::string resource;                          // resource to resolve (the table's `name`, default: name)
  PlaceholderType type = PlaceholderType::Standard;
  std::map<std::string, std::string> arguments;  // passed to a custom resource
};

// One block copy (tagset entries and repeats are expanded).
struct Block {
  std::string text;                   // raw text, placeholders unresolved
  std::vector<uint32_t> zone_tags;    // tag bitmask per zone; zone 0 (the lead-in up to the first
                                      // zone pattern) has none, zone k >= 1 has tags[k-1]
  uint32_t timeout = 1;               // max_gen_tokens, else default_max_token_length
  std::vector<std::string> allow;     // `allow`: the model samples only these texts' tokens here (empty: any)
  std::vector<Placeholder> placeholders;
  uint32_t source_block = 0;          // index of the [[sequence]] entry it was copied from
  uint32_t line = 0;                  // line of its `text` key (0 when unknown)
};

struct Sequence {
  std::string name;
  std::string file;  // the UDPL file that defines it
  std::vector<Block> blocks;
};

struct Prompts {
  std::string config_file;
  UdplConfig config;
  std::vector<Sequence> sequences;    // config.sequences order
  std::vector<std::string> warnings;  // lint warnings (not errors) found while parsing

  // Index of a declared sequence; throws BadInput naming it when unknown.
  uint32_t sequence_index(const std::string& name) const;
};

// "FILE:LINE: sequence 'S' block B: field 'F'" — the prefix of every block-level message.
std::string block_where(const std::string& file, const std::string& sequence, uint32_t block, uint32_t line,
                        const std::string& field);

// One UDPL file that holds [config] and every declared sequence.
Prompts parse_udpl(std::string_view text, const std::string& path);
// A file, or a folder whose *.toml files together hold exactly one [config] and every declared
// sequence (each sequence in one file).
Prompts load_udpl(const std::string& path);
// The `{name}` placeholders a text uses (an identifier between braces; other braces are text).
std::vector<std::string> placeholder_names(std::string_view text);
// The text with each `{name}` found in `values` replaced by its value.
std::string substitute_placeholders(std::string_view text, const std::map<std::string, std::string>& values);

// The same from several (path, text) documents already in memory (the folder form).
Prompts parse_udpl_documents(const std::vector<std::pair<std::string, std::string>>& documents);

}  // namespace weft::token_vm
