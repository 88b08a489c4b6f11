#include "random_workflow.h"

namespace weft::token_vm {

namespace {

uint32_t pick(std::mt19937& rng, uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); }
bool chance(std::mt19937& rng, double p) { return std::bernoulli_distribution(p)(rng); }
char symbol(std::mt19937& rng) { return kRandomAlphabet[pick(rng, 0, sizeof(kRandomAlphabet) - 2)]; }

std::string random_text(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  std::string s;
  for (uint32_t i = pick(rng, lo, hi); i > 0; --i) s += symbol(rng);
  return s;
}

std::string pattern_text(const Workflow& w, uint32_t p) {
  return std::string(w.pattern_bytes.begin() + w.patterns[p].byte_start, w.pattern_bytes.begin() + w.patterns[p].byte_end);
}

}  // namespace

RandomWorkflow random_workflow(std::mt19937& rng, MatchMode mode, uint32_t max_zones) {
  RandomWorkflow rw;
  Workflow& w = rw.workflow;
  w.match_mode = mode;
  w.pad_token = 0xFFFFu;
  const uint32_t n = pick(rng, 1, max_zones);
  const uint32_t closes = pick(rng, 1, 4);
  for (uint32_t i = 0; i < closes; ++i) add_byte_pattern(w, random_text(rng, 1, 3));
  if (chance(rng, 0.8)) w.control_pattern = add_byte_pattern(w, random_text(rng, 1, 3));
  if (chance(rng, 0.5)) {
    w.escape_open = add_byte_pattern(w, random_text(rng, 1, 2));
    std::string close;
    do close = random_text(rng, 1, 2);
    while (close == pattern_text(w, w.escape_open));
    w.escape_close = add_byte_pattern(w, close);
  }
  for (uint32_t i = pick(rng, 0, 2); i > 0; --i) {
    const uint32_t min = pick(rng, 0, 2);
    w.loops.push_back({min, std::max<uint32_t>(1, min + pick(rng, 0, 3))});
  }
  for (uint32_t i = pick(rng, 0, 2); i > 0; --i) w.tools.push_back("tool" + std::to_string(i));
  for (uint32_t i = pick(rng, 0, 4); i > 0; --i) w.tags.push_back("tag" + std::to_string(i));
  w.sequences = {"main"};
  for (uint32_t i = 0; i < n; ++i) {
    Zone z;
    z.next_addr = chance(rng, 0.6) ? i + 1 : pick(rng, 0, n);
    z.close_pattern = pick(rng, 0, closes - 1);
    if (chance(rng, 0.8)) z.flags |= kAdvanceActive;
    if (w.control_pattern != kNone && chance(rng, 0.4)) {
      z.flags |= kJumpActive;
      z.jump_addr = pick(rng, 0, n);
      if (!w.loops.empty() && chance(rng, 0.5)) {
        z.flags |= kLoopDecision;
        z.loop = pick(rng, 0, uint32_t(w.loops.size()) - 1);
      }
    }
    if (chance(rng, 0.2)) z.flags |= kInput;
    if (!w.tools.empty() && chance(rng, 0.3)) {
      z.flags |= kOutput;
      z.tool_id = pick(rng, 0, uint32_t(w.tools.size()) - 1);
    }
    std::string prompt = random_text(rng, 0, 4);
    if (chance(rng, 0.5)) prompt += pattern_text(w, z.close_pattern);
    z.token_start = uint32_t(w.token_data.size());
    for (unsigned char c : prompt) w.token_data.push_back(c);
    z.token_end = uint32_t(w.token_data.size());
    z.timeout = pick(rng, 1, 10);
    z.tags = w.tags.empty() ? 0 : pick(rng, 0, (1u << w.tags.size()) - 1);
    z.sequence = 0;
    z.block = i;
    w.zones.push_back(z);
  }
  if (!w.tags.empty()) {
    w.extractions.push_back({"first", 1u});
    w.extractions.push_back({"all", (1u << w.tags.size()) - 1});
  }
  if (mode == MatchMode::Byte)
    for (uint32_t i = pick(rng, 4, 12); i > 0; --i) rw.extra_vocab.push_back(random_text(rng, 2, 4));
  validate(w);
  return rw;
}

std::vector<Token> random_tokens(std::mt19937& rng, const RandomWorkflow& rw, uint32_t batch, uint32_t steps) {
  const Workflow& w = rw.workflow;
  std::vector<Token> out(size_t(batch) * steps);
  for (uint32_t b = 0; b < batch; ++b) {
    std::string queue;  // pattern bytes still to spell
    for (uint32_t s = 0; s < steps; ++s) {
      if (queue.empty() && chance(rng, 0.35)) queue = pattern_text(w, pick(rng, 0, uint32_t(w.patterns.size()) - 1));
      Token t;
      if (!queue.empty()) {
        t = static_cast<unsigned char>(queue[0]);
        queue.erase(0, 1);
      } else if (!rw.extra_vocab.empty() && chance(rng, 0.5)) {
        t = 256 + pick(rng, 0, uint32_t(rw.extra_vocab.size()) - 1);
      } else {
        t = static_cast<unsigned char>(symbol(rng));
      }
      out[size_t(s) * batch + b] = t;
    }
  }
  return out;
}

}  // namespace weft::token_vm
