#include "step_profile.h"

#include <map>

namespace weft::hypothesis_update {

StepCounts bench_step_counts(const HypothesisBackend& backend, const BenchOptions& options) {
  StepCounts c;
  c.k = options.k;
  c.window = options.kind == UpdaterKind::BurstSampling ? bench_config(options).burst.slope_window : 0;
  for (int lm = 0; lm < backend.num_learning_modules(); ++lm)
    for (int g = 0; g < backend.num_graphs(); ++g) {
      const ObjectGraph& graph = backend.graph(g);
      c.rows += double(backend.hypotheses(lm, g).size());
      c.tested += double(backend.step_info(lm, g).tested);
      c.nodes += double(graph.num_nodes);
      c.feature_words += double(graph.features.size());
    }
  return c;
}

double operation_words(const std::string& op, const StepCounts& c) {
  static const std::map<std::string, double (*)(const StepCounts&)> kernels = {
      // window 0: no LM samples in bursts, so the slope, compaction and tracker stages move nothing
      {"slopes", [](const StepCounts& c) { return c.window > 0 ? c.rows * (c.window + 2) : 0.0; }},
      {"median", [](const StepCounts& c) { return 4 * c.rows; }},  // four 8-bit histogram passes
      {"threshold", [](const StepCounts& c) { return c.rows; }},
      {"feature_evidence", [](const StepCounts& c) { return c.feature_words + c.nodes * c.channels; }},
      {"compact", [](const StepCounts& c) { return c.window > 0 ? 2 * c.rows * (1 + 3 + 9 + c.window + 1) : 0.0; }},
      {"select", [](const StepCounts& c) { return c.nodes; }},
      // rows: displace (R, L read, L written) and the threshold test; tested: K neighbours' position,
      // two pose vectors and feature evidence, one evidence per channel written
      {"location_evidence",
       [](const StepCounts& c) { return c.rows * (1 + 3 + 9 + 3) + c.tested * (c.k * (3 + 6 + 1) + c.channels); }},
      {"floor", [](const StepCounts& c) { return c.rows * c.channels; }},
      {"apply", [](const StepCounts& c) { return c.rows * (2 + c.channels); }},
      {"new_block", [](const StepCounts&) { return 0.0; }},  // rows added by sampling: not counted
      {"tracker", [](const StepCounts& c) { return c.window > 0 ? c.rows * (c.window + 2) : 0.0; }},
      {"argmax", [](const StepCounts& c) { return c.rows; }},
  };
  if (auto it = kernels.find(op); it != kernels.end()) return it->second(c);
  // The CPU backend's phases, as the kernels they do.
  static const std::map<std::string, std::vector<std::string>> phases = {
      {"burst_trigger", {"slopes"}},
      {"prepare", {"median", "threshold", "feature_evidence", "compact", "select"}},
      {"finish", {"floor", "apply", "new_block", "tracker"}},
      {"most_likely", {"argmax"}},
  };
  double words = 0;
  if (auto it = phases.find(op); it != phases.end())
    for (const std::string& k : it->second) words += operation_words(k, c);
  return words;
}

std::vector<KernelProfile> profile_vulkan_step(const VulkanBackend& backend, const StepCounts& counts) {
  std::vector<KernelProfile> out;
  const Timings t = backend.last_step_timings();
  if (!t.valid || !backend.program()) return out;
  const auto& stages = backend.program()->exe->program().stages();
  for (size_t i = 0; i < stages.size() && i < t.stage_ns.size(); ++i)
    out.push_back({stages[i].name, t.stage_ns[i] * 1e-6, 4 * operation_words(stages[i].name, counts)});
  return out;
}

std::vector<KernelProfile> profile_cpu_step(const CpuBackend& backend, const StepCounts& counts) {
  std::vector<KernelProfile> out;
  for (const PhaseTime& p : backend.last_step_phases())
    out.push_back({p.phase, p.ns * 1e-6, 8 * operation_words(p.phase, counts)});
  return out;
}

}  // namespace weft::hypothesis_update
