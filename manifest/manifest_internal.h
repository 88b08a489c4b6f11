// What manifest_build.cpp hands manifest_run.cpp: the Program plus where its outputs and rule
// blocks are. Internal to the engine (not installed).
#pragma once

#include <string>
#include <vector>

#include "manifest.h"

namespace weft::manifest_detail {

struct OutputPlan {
  std::string file;
  Range range;               // bytes to read back
  DType dtype = DType::F32;
  std::vector<uint64_t> shape;
  bool metrics_table = false;  // Metrics records -> float64 rows (see docs/manifest.md)
  uint32_t metrics_first = 0, metrics_count = 0;
};

struct RuleBlock {
  uint32_t stage = 0;  // stage index
  uint32_t word = 0;   // first rule's word in Control (WEFT_NONE when it could not be located)
  uint32_t count = 0;
};

struct ControlNames {
  std::string name;
  uint32_t first_word = 0, count = 0;
};

struct Built {
  Program program;
  std::vector<OutputPlan> outputs;
  std::vector<RuleBlock> rules;
  std::vector<ControlNames> controls;  // the manifest's control blocks, in file order
};

Built build(const Manifest& m);

// Metrics columns written by an output of "metrics" / "metrics.NAME".
constexpr int kMetricsColumns = 15;  // norm max_abs ticks status sequence counter0..9

}  // namespace weft::manifest_detail
