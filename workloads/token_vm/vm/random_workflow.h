// Random valid workflows and pattern-biased sampled streams, for the differential tests
// (device vs reference), the conformance case and `weft token-vm run --tokens random`.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "workflow.h"

namespace weft::token_vm {

// Symbols the random prompts and patterns are made of (so patterns occur often by chance).
inline constexpr char kRandomAlphabet[] = "ab[]{}<>";

struct RandomWorkflow {
  Workflow workflow;
  std::vector<std::string> extra_vocab;  // byte mode: multi-byte tokens (ids 256..)
};

// A random workflow over up to `max_zones` zones: random exits (DONE included), prompts that
// often end with their close pattern, loops with min/max, escapes, Input and Output zones,
// tags and extractions. Passes validate().
RandomWorkflow random_workflow(std::mt19937& rng, MatchMode mode, uint32_t max_zones = 8);

// Sampled tokens [steps][batch] biased to spell the workflow's patterns (whole or split over
// multi-byte tokens) among random symbols.
std::vector<Token> random_tokens(std::mt19937& rng, const RandomWorkflow& rw, uint32_t batch, uint32_t steps);

}  // namespace weft::token_vm
