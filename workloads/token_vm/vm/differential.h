// The randomized differential check, shared by the doctest suite and `weft token-vm fuzz-diff`:
// a random valid workflow (random_workflow.h) x random pattern-biased sampled streams, driven
// through the same host calls on the CPU reference and on the device; every step's token,
// tags, pc, token_num and trigger bits, and the final state, must be bit-identical.
#pragma once

#include <cstdint>
#include <string>

#include <weft/weft.h>

#include "device_vm.h"
#include "machine.h"

namespace weft::token_vm {

struct DifferentialRun {
  uint32_t seed = 0;  // picks the workflow, the tokens and the host's feeds
  MatchMode mode = MatchMode::Token;
  uint32_t batch = 64, steps = 64;
  uint32_t steps_per_submit = 1;
  // With a sampler, tokens are drawn from random logits [B][V] (alphabet-biased) by the device
  // sampler (this kernel) and by the CPU sampler instead of being given.
  bool sampler = false;
  SamplerKernel sampler_kernel = SamplerKernel::Auto;
};

// What the run exercised (so a caller can check the generator reaches the machinery).
struct DifferentialStats {
  uint64_t streams = 0, zones = 0, transitions = 0, calls = 0, feed_tokens = 0, waits = 0;
  DifferentialStats& operator+=(const DifferentialStats& o);
};

// "" when the two machines agree on every record and on the final state; otherwise the first
// difference ("stream 3 step 17: reference {...} device {...}").
std::string difference(Machine& reference, Machine& device);

// One run; returns difference()'s answer and adds what it exercised to *stats.
std::string differential_run(Device& device, const DifferentialRun& run, DifferentialStats* stats = nullptr);

}  // namespace weft::token_vm
