#include "flow.h"

#include <algorithm>

#include <weft/error.h>

#include "byte_tokenizer.h"
#include "model_tokenizer.h"

namespace weft::token_vm {
namespace {

constexpr size_t kMaxZones = size_t(1) << 20;       // a bound on what nested subroutines can unfold to
constexpr size_t kMaxTokenData = size_t(1) << 28;

[[noreturn]] void bad(const std::string& what) { fail(ErrorCode::BadInput, "flow: " + what); }

uint32_t tag_mask(const UdplConfig& c, const std::string& where, const std::vector<std::string>& tags) {
  uint32_t mask = 0;
  for (const std::string& t : tags) {
    const auto it = std::find(c.valid_tags.begin(), c.valid_tags.end(), t);
    if (it == c.valid_tags.end()) bad(where + ": tag '" + t + "' is not one of valid_tags");
    mask |= 1u << uint32_t(it - c.valid_tags.begin());
  }
  return mask;
}

// One zone of a sequence, compiled once and copied wherever the sequence runs.
struct ZoneProto {
  std::vector<Token> tokens;
  uint32_t close = 0;
  uint32_t tags = 0;
  uint32_t timeout = 1;
  uint32_t block = 0;
  uint32_t zone_in_block = 0;
  bool closed = false;  // the forced text ends with the close pattern: the model never writes here
  std::vector<Token> allowed;  // the block's `allow` tokens, ascending (empty: any token)
};

struct Exit {
  uint32_t zone;
  bool jump;
};
using Exits = std::vector<Exit>;

class Lowering {
 public:
  Lowering(const Prompts& p, const Tokenizer& tok, const Resources& res, const CompileOptions& opt,
           std::vector<std::string>* warnings)
      : p_(p), tok_(tok), res_(res), opt_(opt), warnings_(warnings) {}

  Workflow run(const std::vector<Program::Step>& steps, const std::vector<Extraction>& extractions) {
    compile_patterns();
    const Exits rest = lower(steps, {});
    patch(rest, uint32_t(w_.zones.size()));  // the end of the program is DONE
    if (w_.zones.empty()) bad("the program runs no sequence (it would have no zones)");
    w_.tags = p_.config.valid_tags;
    w_.tools = p_.config.tools;
    w_.sequences = p_.config.sequences;
    w_.extractions = extractions;
    w_.match_mode = opt_.match_mode;
    if (!w_.zone_allowed.empty()) w_.zone_allowed.resize(w_.zones.size(), kNone);
    w_.pad_token = opt_.pad_token ? *opt_.pad_token : default_pad_token(tok_);
    w_.tokenizer = tok_.identity();
    validate(w_);
    return std::move(w_);
  }

 private:
  // Patterns are tokenized on their own; their bytes serve the byte-level matcher.
  void compile_patterns() {
    const UdplConfig& c = p_.config;
    std::vector<std::pair<std::string, std::string>> all;  // field, text
    for (size_t i = 0; i < c.zone_patterns.size(); ++i) all.push_back({"zone_patterns[" + std::to_string(i) + "]", c.zone_patterns[i]});
    all.push_back({"control_pattern", c.control_pattern});
    if (!c.escape_open.empty()) {
      all.push_back({"escape_patterns[0]", c.escape_open});
      all.push_back({"escape_patterns[1]", c.escape_close});
    }
    for (const auto& [field, text] : all) {
      std::vector<Token> tokens = tok_.encode(text);
      const size_t length = opt_.match_mode == MatchMode::Token ? tokens.size() : text.size();
      if (length == 0 || length > kMaxPatternLength)
        fail(ErrorCode::BadInput, p_.config_file + ": [config]: field '" + field + "': pattern '" + text + "' is " +
                                      std::to_string(length) +
                                      (opt_.match_mode == MatchMode::Token ? " tokens" : " bytes") +
                                      " long; the matcher takes 1.." + std::to_string(kMaxPatternLength));
      Pattern pat;
      pat.token_start = uint32_t(w_.pattern_tokens.size());
      w_.pattern_tokens.insert(w_.pattern_tokens.end(), tokens.begin(), tokens.end());
      pat.token_end = uint32_t(w_.pattern_tokens.size());
      pat.byte_start = uint32_t(w_.pattern_bytes.size());
      w_.pattern_bytes.insert(w_.pattern_bytes.end(), text.begin(), text.end());
      pat.byte_end = uint32_t(w_.pattern_bytes.size());
      w_.patterns.push_back(pat);
      pattern_tokens_.push_back(std::move(tokens));
    }
    const uint32_t n = uint32_t(c.zone_patterns.size());
    w_.control_pattern = n;
    if (!c.escape_open.empty()) {
      w_.escape_open = n + 1;
      w_.escape_close = n + 2;
    }
  }

  std::string resolve(const Sequence& s, const Block& b) const {
    std::map<std::string, std::string> values;
    for (const Placeholder& ph : b.placeholders) {
      const std::string where = block_where(s.file, s.name, b.source_block, b.line, ph.name);
      auto lookup = [&](const std::map<std::string, std::string>& m, const char* kind) {
        const auto it = m.find(ph.resource);
        if (it == m.end())
          fail(ErrorCode::BadInput, where + ": " + kind + " resource '" + ph.resource + "' for {" + ph.name +
                                        "} was not supplied");
        return it->second;
      };
      if (ph.type == PlaceholderType::Standard) values[ph.name] = lookup(res_.standard, "standard");
      else if (ph.type == PlaceholderType::Argument) values[ph.name] = lookup(res_.arguments, "argument");
      else {
        const auto it = res_.custom.find(ph.resource);
        if (it == res_.custom.end() || !it->second)
          fail(ErrorCode::BadInput, where + ": custom resource '" + ph.resource + "' for {" + ph.name + "} was not supplied");
        values[ph.name] = it->second(ph.arguments);
      }
    }
    return substitute_placeholders(b.text, values);
  }

  std::vector<Token> tokenize(const ZoneText& z) const {
    if (opt_.match_mode == MatchMode::Byte) return tok_.encode(z.text);
    // Token-level matching compares token ids, so every pattern occurrence takes the pattern's
    // own tokens (as the matcher tables hold them) and only the text between is encoded.
    std::vector<Token> out;
    for (const TextPiece& piece : z.pieces) {
      const std::vector<Token> t = piece.pattern == TextPiece::kPlain ? tok_.encode(piece.text) : pattern_tokens_[piece.pattern];
      out.insert(out.end(), t.begin(), t.end());
    }
    return out;
  }

  const std::vector<ZoneProto>& sequence_zones(uint32_t index) {
    auto it = compiled_.find(index);
    if (it != compiled_.end()) return it->second;
    const Sequence& s = p_.sequences[index];
    const PatternSet ps = p_.config.patterns();
    std::vector<ZoneProto> zones;
    for (uint32_t bi = 0; bi < s.blocks.size(); ++bi) {
      const Block& b = s.blocks[bi];
      const bool placeholders = !b.placeholders.empty();
      const std::string text = placeholders ? resolve(s, b) : b.text;
      // Resolved text is linted again: a resource may bring in a pattern.
      const SplitResult split = split_zones(
          text, ps, block_where(s.file, s.name, b.source_block, b.line, "text") + " (placeholders resolved)",
          placeholders ? warnings_ : nullptr);
      const std::vector<Token> allowed = allowed_tokens(s, b);
      for (uint32_t k = 0; k < split.zones.size(); ++k)
        zones.push_back({tokenize(split.zones[k]), k, b.zone_tags[k], b.timeout, bi, k, split.zones[k].closed, allowed});
    }
    return compiled_[index] = std::move(zones);
  }

  // The union of the tokens of a block's `allow` texts, ascending; a text that encodes to no
  // token would allow nothing it names, so it is refused.
  std::vector<Token> allowed_tokens(const Sequence& s, const Block& b) const {
    std::vector<Token> out;
    for (const std::string& text : b.allow) {
      const std::vector<Token> t = tok_.encode(text);
      if (t.empty()) bad(block_where(s.file, s.name, b.source_block, b.line, "allow") + ": '" + text + "' encodes to no token");
      out.insert(out.end(), t.begin(), t.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // The zone just emitted samples only `allowed` (one set per distinct list).
  void restrict_last_zone(const std::vector<Token>& allowed) {
    if (allowed.empty()) return;
    auto it = std::find(w_.allowed_sets.begin(), w_.allowed_sets.end(), allowed);
    if (it == w_.allowed_sets.end()) it = w_.allowed_sets.insert(w_.allowed_sets.end(), allowed);
    w_.zone_allowed.resize(w_.zones.size(), kNone);
    w_.zone_allowed.back() = uint32_t(it - w_.allowed_sets.begin());
  }

  void patch(const Exits& exits, uint32_t target) {
    for (const Exit& e : exits) (e.jump ? w_.zones[e.zone].jump_addr : w_.zones[e.zone].next_addr) = target;
  }

  // Appends a copy of the sequence's zones, chained by their next exits; returns the last zone.
  uint32_t emit(uint32_t sequence, const Exits& pending) {
    const std::vector<ZoneProto>& protos = sequence_zones(sequence);
    if (w_.zones.size() + protos.size() > kMaxZones)
      bad("the program unfolds to more than " + std::to_string(kMaxZones) + " zones");
    patch(pending, uint32_t(w_.zones.size()));
    for (const ZoneProto& zp : protos) {
      if (w_.token_data.size() + zp.tokens.size() > kMaxTokenData) bad("the forced prompts exceed 2^28 tokens");
      Zone z;
      z.next_addr = uint32_t(w_.zones.size()) + 1;
      z.flags = kAdvanceActive;
      z.token_start = uint32_t(w_.token_data.size());
      w_.token_data.insert(w_.token_data.end(), zp.tokens.begin(), zp.tokens.end());
      z.token_end = uint32_t(w_.token_data.size());
      z.tags = zp.tags;
      z.timeout = zp.timeout;
      z.close_pattern = zp.close;
      z.sequence = sequence;
      z.block = zp.block;
      z.zone_in_block = zp.zone_in_block;
      w_.zones.push_back(z);
      restrict_last_zone(zp.allowed);
    }
    return uint32_t(w_.zones.size()) - 1;
  }

  Exits lower(const std::vector<Program::Step>& steps, Exits pending) {
    for (const Program::Step& s : steps) pending = lower(s, pending);
    return pending;
  }

  // A decision, capture or feed on a zone whose forced text already ends with its close pattern
  // does nothing useful: the forced pattern leaves the zone before the model or the feed speaks.
  void warn_if_forced(const Program::Step& s) {
    if (!warnings_ || !sequence_zones(s.sequence).back().closed) return;
    static const char* const kWhat[] = {"", "the model never chooses the loop exit (only the bounds decide)",
                                        "the model never chooses the branch (always the then-branch)",
                                        "nothing generated is captured", "no input is fed"};
    static const char* const kKind[] = {"run", "loop", "when", "capture", "feed"};
    const std::string& name = p_.config.sequences[s.sequence];
    const std::string w = "flow: " + std::string(kKind[int(s.kind)]) + " '" + name + "': the last zone of sequence '" +
                          name + "' is fully forced (its text ends with '" + p_.config.zone_patterns.back() + "'), so " +
                          kWhat[int(s.kind)];
    if (std::find(warnings_->begin(), warnings_->end(), w) == warnings_->end()) warnings_->push_back(w);
  }

  Exits lower(const Program::Step& s, const Exits& pending) {
    if (s.kind != Program::Kind::Run) warn_if_forced(s);  // compiles the sequence if needed; emit reuses it
    switch (s.kind) {
      case Program::Kind::Run:
      case Program::Kind::Capture:
      case Program::Kind::Feed: {
        const uint32_t last = emit(s.sequence, pending);
        if (s.kind == Program::Kind::Capture) {
          w_.zones[last].flags |= kOutput;
          w_.zones[last].tool_id = s.tool;
        }
        if (s.kind == Program::Kind::Feed) w_.zones[last].flags |= kInput;
        return {{last, false}};
      }
      case Program::Kind::Loop: {
        const uint32_t head = uint32_t(w_.zones.size());
        const uint32_t decision = emit(s.sequence, pending);
        Zone& d = w_.zones[decision];
        d.flags |= kJumpActive | kLoopDecision;
        d.loop = uint32_t(w_.loops.size());
        w_.loops.push_back({s.min, s.max});
        patch(lower(s.body, {{decision, false}}), head);  // the body's end goes back to the control head
        return {{decision, true}};
      }
      case Program::Kind::When: {
        const uint32_t decision = emit(s.sequence, pending);
        w_.zones[decision].flags |= kJumpActive;
        Exits out = lower(s.body, {{decision, false}});
        const Exits other = lower(s.other, {{decision, true}});
        out.insert(out.end(), other.begin(), other.end());
        return out;
      }
    }
    return pending;
  }

  const Prompts& p_;
  const Tokenizer& tok_;
  const Resources& res_;
  const CompileOptions& opt_;
  std::vector<std::string>* warnings_;
  Workflow w_;
  std::vector<std::vector<Token>> pattern_tokens_;
  std::map<uint32_t, std::vector<ZoneProto>> compiled_;
};

}  // namespace

Token default_pad_token(const Tokenizer& tokenizer) {
  if (dynamic_cast<const ByteTokenizer*>(&tokenizer)) return ByteTokenizer::kPad;
  if (const auto* model = dynamic_cast<const ModelTokenizer*>(&tokenizer)) return model->pad_token();
  return tokenizer.vocab_size();
}

Program::Program(std::shared_ptr<const Prompts> prompts) : prompts_(std::move(prompts)) {
  if (!prompts_) bad("a program needs a prompt set");
}

Program& Program::add(Step step) {
  steps_.push_back(std::move(step));
  return *this;
}

Program& Program::run(const std::string& sequence) {
  return add({Kind::Run, prompts_->sequence_index(sequence)});
}

Program& Program::loop(const std::string& control, uint32_t min, uint32_t max, const std::function<void(Program&)>& body) {
  Step s{Kind::Loop, prompts_->sequence_index(control)};
  if (max == 0 || min > max)
    bad("loop '" + control + "': bounds need 1 <= max and min <= max, got min " + std::to_string(min) + " max " +
        std::to_string(max));
  s.min = min;
  s.max = max;
  Program b(prompts_);
  if (body) body(b);
  if (b.steps_.empty()) bad("loop '" + control + "': the body is empty");
  s.body = std::move(b.steps_);
  for (const Extraction& e : b.extractions_) merge_extraction(e);
  return add(std::move(s));
}

Program& Program::when(const std::string& sequence, const std::function<void(Program&)>& then_branch,
                       const std::function<void(Program&)>& else_branch) {
  Step s{Kind::When, prompts_->sequence_index(sequence)};
  Program a(prompts_), b(prompts_);
  if (then_branch) then_branch(a);
  if (else_branch) else_branch(b);
  s.body = std::move(a.steps_);
  s.other = std::move(b.steps_);
  for (const Extraction& e : a.extractions_) merge_extraction(e);
  for (const Extraction& e : b.extractions_) merge_extraction(e);
  return add(std::move(s));
}

Program& Program::subroutine(const Program& program) {
  if (program.prompts_ != prompts_ && program.prompts_->config_file != prompts_->config_file)
    bad("subroutine: the program was built over another prompt set (" + program.prompts_->config_file + ")");
  steps_.insert(steps_.end(), program.steps_.begin(), program.steps_.end());
  for (const Extraction& e : program.extractions_) merge_extraction(e);
  return *this;
}

Program& Program::capture(const std::string& sequence, const std::string& tool) {
  Step s{Kind::Capture, prompts_->sequence_index(sequence)};
  const std::vector<std::string>& tools = prompts_->config.tools;
  const auto it = std::find(tools.begin(), tools.end(), tool);
  if (it == tools.end()) {
    std::string known;
    for (const std::string& t : tools) known += (known.empty() ? "" : ", ") + t;
    bad("capture '" + sequence + "': tool '" + tool + "' is not declared in [config] tools (" +
        (known.empty() ? "none declared" : known) + ")");
  }
  s.tool = uint32_t(it - tools.begin());
  return add(std::move(s));
}

Program& Program::feed(const std::string& sequence) { return add({Kind::Feed, prompts_->sequence_index(sequence)}); }

void Program::merge_extraction(const Extraction& e) {
  for (const Extraction& x : extractions_)
    if (x.name == e.name) {
      if (x.tags != e.tags) bad("extract '" + e.name + "': defined twice with different tags");
      return;
    }
  extractions_.push_back(e);
}

Program& Program::extract(const std::string& name, const std::vector<std::string>& tags) {
  if (name.empty()) bad("extract: the name is empty");
  if (tags.empty()) bad("extract '" + name + "': needs at least one tag");
  for (const Extraction& x : extractions_)
    if (x.name == name) bad("extract '" + name + "': defined twice");
  extractions_.push_back({name, tag_mask(prompts_->config, "extract '" + name + "'", tags)});
  return *this;
}

Workflow Program::compile(const Tokenizer& tokenizer, const Resources& resources, const CompileOptions& options,
                          std::vector<std::string>* warnings) const {
  return Lowering(*prompts_, tokenizer, resources, options, warnings).run(steps_, extractions_);
}

Program default_program(std::shared_ptr<const Prompts> prompts) {
  Program p(prompts);
  for (const std::string& s : prompts->config.sequences) p.run(s);
  return p;
}

}  // namespace weft::token_vm
