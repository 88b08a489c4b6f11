// Checks one step's inputs before any backend touches its state, so a refused dispatch
// changes nothing. Shared by every backend.
#pragma once

#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

// What validation needs to know of one learning module.
struct LmInputState {
  const UpdaterConfig* config = nullptr;
  bool started = false;  // has had its first step (so a displacement is required)
  bool votes = false;    // sends or receives votes (so a sensed location is required)
};

// BadInput naming the input, LM, channel and field: LM ids out of range, two inputs for one LM,
// channel counts, a missing displacement after the first step, a missing sensed location of a
// voting LM, wrong feature widths, non-finite values.
void validate_step_inputs(const std::vector<StepInput>& inputs, const std::vector<LmInputState>& lms);

}  // namespace weft::hypothesis_update
