// The compiled workflow: what the front end (UDPL + flow builder) produces and what the token VM
// (CPU reference and device kernels) executes. It is plain data, laid out so that the zone,
// loop and pattern tables upload to Heap as they are (every record is a whole number of uint32
// words). Semantics follow spec §3 (docs/specs/token_vm.md); the choices the spec leaves
// open are fixed here, once, for both the reference and the device.
//
// Step semantics, per stream, given the sampled token s:
//  1. If the zone changed last step: token_num = generated = 0, feed position = 0, matcher
//     history cleared, escape depth = 0 (per-zone state; a pattern never straddles zones).
//  2. Token choice, first rule that applies:
//     forced  : token_num < token_end - token_start      -> token_data[token_start + token_num]
//     feed    : zone has Input and its feed message is not used up -> next feed token
//               (no message queued yet -> the stream waits: emits pad_token, nothing advances)
//     timeout : generated + 1 >= timeout                  -> s, and the zone's budget is spent
//     sampled :                                           -> s  (generated += 1 for both)
//  3. Matching on the chosen token (token-level: the last tokens equal a pattern's tokens;
//     byte-level: the last bytes of the decoded stream equal a pattern's bytes). A pattern
//     completes on the step its last token arrives. Escape depth: +1 on the open pattern,
//     -1 on the close pattern (never below 0). Advance/jump trigger only if the depth was 0
//     both before and after this token.
//  4. Transition, priority timeout > jump > advance: timeout -> next_addr; jump (control
//     pattern, zone has JumpActive) -> jump_addr; advance (the zone's close pattern, zone has
//     AdvanceActive) -> next_addr. Loop decision zones then apply their bounds: counter < min
//     forces next_addr (the body), counter >= max forces jump_addr (the exit); taking next_addr
//     increments the counter, taking jump_addr resets it to 0. No transition: token_num += 1.
//  5. Tags of the chosen token = the pre-transition zone's tags. A non-forced, non-feed token
//     in an Output zone is captured for the zone's tool; leaving an Output zone makes that
//     tool call ready (the host resolves it and queues the answer as the stream's next feed).
//  6. pc == zones.size() means DONE: the stream emits pad_token from then on.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace weft::token_vm {

using Token = uint32_t;
constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kMaxTags = 32;            // a zone's tags are one uint32 bitmask
constexpr uint32_t kMaxPatternLength = 32;   // tokens (token-level) or bytes (byte-level)

enum ZoneFlag : uint32_t {
  kAdvanceActive = 1u << 0,  // the zone's close pattern leads to next_addr
  kJumpActive = 1u << 1,     // the control pattern leads to jump_addr
  kInput = 1u << 2,          // after the forced prompt, tokens come from the stream's feed
  kOutput = 1u << 3,         // generated tokens are captured for tool_id
  kLoopDecision = 1u << 4,   // loop != kNone: bounds of loops[loop] apply to this zone's exits
};

// One instruction. 16 words; the device reads the table from Heap as it is.
struct Zone {
  uint32_t next_addr = kNone;       // after advance or timeout; zones.size() = DONE
  uint32_t jump_addr = kNone;       // after the control pattern; zones.size() = DONE
  uint32_t flags = 0;               // ZoneFlag bits
  uint32_t tool_id = kNone;         // Output zones: index into Workflow::tools
  uint32_t token_start = 0;         // forced prompt = token_data[token_start, token_end)
  uint32_t token_end = 0;
  uint32_t tags = 0;                // bitmask over Workflow::tags
  uint32_t timeout = 1;             // most generated (sampled) tokens the zone takes, >= 1
  uint32_t close_pattern = kNone;   // index into patterns: the pattern that closes the zone
  uint32_t loop = kNone;            // index into loops (with kLoopDecision)
  uint32_t sequence = kNone;        // index into Workflow::sequences (decisions(), DOT)
  uint32_t block = 0;               // block (copy) index inside the sequence
  uint32_t zone_in_block = 0;       // which zone of the block: 0 .. zone_patterns - 2
  uint32_t reserved[3] = {0, 0, 0};
};
static_assert(sizeof(Zone) == 64);

struct Loop {
  uint32_t min = 0;  // body iterations forced before the exit may be taken
  uint32_t max = 0;  // body iterations after which the exit is forced; >= min, >= 1
};
static_assert(sizeof(Loop) == 8);

// A pattern's tokens (token-level) are pattern_tokens[token_start, token_end); its bytes
// (byte-level matcher) are pattern_bytes[byte_start, byte_end).
struct Pattern {
  uint32_t token_start = 0, token_end = 0;
  uint32_t byte_start = 0, byte_end = 0;
};
static_assert(sizeof(Pattern) == 16);

enum class MatchMode : uint32_t {
  Token = 0,  // compare token ids: exact, but a pattern tokenized differently in context is missed
  Byte = 1,   // compare decoded bytes: robust to tokenization, needs the vocabulary's bytes
};

struct Extraction {
  std::string name;
  uint32_t tags = 0;  // union of tag bits: a token is extracted when (its tags & tags) != 0
};

struct Workflow {
  std::vector<Zone> zones;            // entry is zone 0
  std::vector<Token> token_data;      // every forced prompt, concatenated
  std::vector<Loop> loops;
  std::vector<Pattern> patterns;
  std::vector<Token> pattern_tokens;
  std::vector<uint8_t> pattern_bytes;
  uint32_t control_pattern = kNone;   // the jump pattern (index into patterns)
  uint32_t escape_open = kNone;       // escape patterns; both kNone or both set
  uint32_t escape_close = kNone;
  MatchMode match_mode = MatchMode::Token;
  Token pad_token = 0;                // emitted by DONE and waiting streams
  std::vector<std::string> tags;      // bit i of a zone's mask = tags[i]
  std::vector<std::string> tools;     // Output zones' tool_id
  std::vector<std::string> sequences; // Zone::sequence
  std::vector<Extraction> extractions;
  std::string tokenizer;              // Tokenizer::identity() of the one it was compiled with ("": not recorded)
  // Logit masks (spec §5): in zone z the model may sample only allowed_sets[zone_allowed[z]]
  // (UDPL: a block's `allow`). zone_allowed is empty (no masks) or one entry per zone, kNone for
  // "any token"; each set is non-empty, ascending and distinct. The VM's step does not read
  // them: they restrict what a sampler draws (steered generation; Machine::allowed for a host).
  std::vector<uint32_t> zone_allowed;
  std::vector<std::vector<Token>> allowed_sets;
};

// Checks every index and range a VM would follow (addresses, prompt and pattern ranges, loop,
// tool, sequence and tag ids, pattern lengths, flag consistency) so that a loaded or hand-built
// workflow can never make the reference or the device read out of bounds. Throws
// weft::Error(BadInput) naming the table, the record and the field.
void validate(const Workflow& workflow);

// Hand-building a workflow whose tokens are bytes (id = byte, so a pattern's token and byte
// forms are the same symbols): append a pattern spelled by `text`, or a zone whose forced
// prompt is `prompt` (z's prompt range is set); each returns the new record's index.
uint32_t add_byte_pattern(Workflow& workflow, const std::string& text);
uint32_t add_byte_zone(Workflow& workflow, const std::string& prompt, Zone zone);

// Tokenizers are supplied by the host. Weft ships a byte-level one and the model tokenizer
// (front end: any Hugging Face tokenizer.json, through Weft's tokenizer library).
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<Token> encode(std::string_view text) const = 0;
  virtual std::string decode(std::span<const Token> tokens) const = 0;
  // The raw bytes one token stands for (the byte-level matcher's table is built from this).
  virtual std::string token_bytes(Token token) const = 0;
  virtual uint32_t vocab_size() const = 0;
  // Names the vocabulary (a content hash for a file), so a saved workflow can refuse another.
  virtual std::string identity() const = 0;
};

// BadInput naming `where`, the id and its index when a token id is not in the tokenizer's
// vocabulary (what callers hand to decode: the tokenizer itself decodes an unknown id to nothing).
void check_token_ids(const Tokenizer& tokenizer, std::span<const Token> tokens, const std::string& where);

// BadInput naming `where` when a loaded workflow cannot run with `tokenizer`: it recorded
// another tokenizer (its forced ids would mean other text), or a forced id is outside the
// tokenizer's vocabulary.
void check_runs_with(const Workflow& workflow, const Tokenizer& tokenizer, const std::string& where);

}  // namespace weft::token_vm
