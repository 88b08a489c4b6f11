// The CPU reference: workflow.h's step semantics (with vm.h's decisions) written plainly in
// C++, over the same state layout as the device, so the two compare word for word.
#pragma once

#include <vector>

#include "vm.h"

namespace weft::token_vm {

class Reference final : public Backend {
 public:
  Reference(const Workflow& workflow, const VmConfig& config);  // validates both

  const StateLayout& layout() const override { return layout_; }
  const char* name() const override { return "reference"; }
  uint32_t max_steps() const override { return UINT32_MAX; }
  void run(std::span<const Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) override;
  void set_logits(std::span<const float> logits, uint32_t vocab) override;
  void run_sampler(const SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) override;
  void read_state(uint64_t word, std::span<uint32_t> out) override;
  void write_state(uint64_t word, std::span<const uint32_t> in) override;

  // One step of one stream; writes its TVM_TRACE_WORDS words to `record`.
  void step_stream(uint32_t stream, Token sampled, uint32_t* record);

 private:
  uint32_t& field(uint32_t f, uint32_t b) { return state_[layout_.scalar(f, b)]; }
  bool matches(uint32_t pattern, uint32_t b) const;
  void push_unit(uint32_t unit, uint32_t b);

  Workflow w_;
  VmConfig config_;
  StateLayout layout_;
  std::vector<uint32_t> state_;
  std::vector<float> logits_;
  uint32_t logits_vocab_ = 0;
};

}  // namespace weft::token_vm
