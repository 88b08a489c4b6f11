// Where a step's time goes, per kernel (Vulkan: GPU timestamps per stage) or per phase (CPU
// backend: wall time per phase), beside the traffic each operation must move at least, so the
// time reads as an achieved bandwidth (`weft bench monty --profile`).
#pragma once

#include <string>
#include <vector>

#include "cpu_backend.h"
#include "synthetic_bench.h"
#include "vulkan_backend.h"

namespace weft::hypothesis_update {

// The last step's sizes, summed over every (LM, graph) space.
struct StepCounts {
  double rows = 0;           // live hypotheses after the step
  double tested = 0;         // hypotheses that got location evidence
  double nodes = 0;          // graph nodes
  double feature_words = 0;  // node feature words (all columns)
  double k = 0;              // nearest neighbours per tested hypothesis (at most)
  double channels = 1;
  double window = 0;         // slope history per row (burst sampling)
};
StepCounts bench_step_counts(const HypothesisBackend& backend, const BenchOptions& options);

// The words an operation reads and writes at least once (a model: every input and output
// element once, nothing cached); 0 for a name the model does not cover. Kernel names are the
// Vulkan stages'; the CPU phases are sums of the kernels they do (step_profile.cpp).
double operation_words(const std::string& operation, const StepCounts& counts);

struct KernelProfile {
  std::string name;
  double ms = 0;
  double bytes = 0;  // operation_words x the backend's word size (4: float32, 8: float64)
};
// The last step of each backend, in execution order.
std::vector<KernelProfile> profile_vulkan_step(const VulkanBackend& backend, const StepCounts& counts);
std::vector<KernelProfile> profile_cpu_step(const CpuBackend& backend, const StepCounts& counts);

}  // namespace weft::hypothesis_update
