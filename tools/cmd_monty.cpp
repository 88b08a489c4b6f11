// weft monty replay RUN_DIR [--objects DIR] [--backend cpu|vulkan] [--device D] [--threads N]
//                           [--no-kernel-trace]
//
// Replays a Monty fixture run from its inputs on a hypothesis-update backend and prints, per
// step and per recorded array, the largest absolute error; exits 1 when any exceeds the
// backend's tolerance (1e-6 for the float64 CPU backend; the float32 Vulkan backend's per-array
// tolerances are in vulkan_tolerance.h).
#include <weft/device.h>
#include <weft/error.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "cli.h"
#include "fixture_replay.h"
#include "synthetic_bench.h"
#include "vulkan_tolerance.h"

namespace {

const char* kMontyUsage =
    "usage: weft monty replay RUN_DIR [--objects DIR] [--backend cpu|vulkan] [--device D] [--threads N]\n"
    "                         [--no-kernel-trace]\n"
    "  RUN_DIR   a fixture run, e.g. ../shared/fixtures/monty/burst_cylinder\n"
    "  --objects the object graphs (default RUN_DIR/../objects)\n"
    "  --no-kernel-trace  skip Monty's kernel intermediates (times the fast path)\n"
    "       weft monty bench [--nodes N] [--poses J] [--graphs G] [--lms L] [--steps S] [--k K]\n"
    "                        [--updater default|burst] [--threads N]\n"
    "  synthetic surface graphs, every hypothesis tested each step; prints one JSON line\n";

int replay(const weft::cli::Args& args) {
  if (args.positional.size() != 2) weft::fail(weft::ErrorCode::BadInput, "monty replay needs exactly one RUN_DIR");
  const std::string backend = args.get("backend", "cpu");
  if (backend != "cpu" && backend != "vulkan")
    weft::fail(weft::ErrorCode::BadInput, "unknown backend '" + backend + "' (known: cpu, vulkan)");
  const bool vulkan = backend == "vulkan";
  const double tolerance = vulkan ? weft::hyp::kVulkanEvidenceTolerance : 1e-6;
  auto tolerance_of = [&](const std::string& array) {
    return vulkan ? weft::hyp::vulkan_replay_tolerance(array) : tolerance;
  };

  std::unique_ptr<weft::Device> device;
  weft::hyp::ReplayOptions options;
  if (vulkan) {
    weft::DeviceOptions o;
    o.select = args.get("device");
    device = weft::Device::open(o);
    options.device = device.get();
    options.tie_tolerance = weft::hyp::kVulkanEvidenceTolerance;
  }
  options.objects_dir = args.get("objects");
  options.threads = unsigned(args.get_uint("threads", 0));
  options.trace_kernel = !args.flag("no-kernel-trace");
  const weft::hyp::ReplayReport report = weft::hyp::replay_fixture_run(args.positional[1], options);

  std::printf("run %s (%s), backend %s, %u threads, tolerance %.0e\n", report.run.c_str(), report.updater.c_str(),
              backend.c_str(), report.threads, tolerance);
  double total_seconds = 0;
  for (const auto& step : report.steps) {
    total_seconds += step.seconds;
    std::printf("step %02d  %.3f ms\n", step.step, step.seconds * 1e3);
    for (const auto& a : step.arrays) {
      const bool ok = a.max_abs_error <= tolerance_of(a.array);
      std::printf("  %-9s %-38s %10.3e %s%s%s\n", a.graph.empty() ? "-" : a.graph.c_str(), a.array.c_str(),
                  a.max_abs_error, ok ? "ok" : "FAIL", a.note.empty() ? "" : "  ", a.note.c_str());
    }
  }
  const double worst = report.worst();
  bool pass = true;
  for (const auto& step : report.steps)
    for (const auto& a : step.arrays) pass = pass && a.max_abs_error <= tolerance_of(a.array);
  std::printf("%s: worst error %.3e over %zu steps, %.3f ms per step on average\n", pass ? "PASS" : "FAIL", worst,
              report.steps.size(), report.steps.empty() ? 0.0 : total_seconds * 1e3 / double(report.steps.size()));
  return pass ? 0 : 1;
}

int bench(const weft::cli::Args& args) {
  weft::hyp::BenchOptions o;
  o.nodes = size_t(args.get_uint("nodes", o.nodes));
  o.umbilical = int(args.get_uint("poses", uint64_t(o.umbilical)));
  o.graphs = int(args.get_uint("graphs", uint64_t(o.graphs)));
  o.lms = int(args.get_uint("lms", uint64_t(o.lms)));
  o.steps = int(args.get_uint("steps", uint64_t(o.steps)));
  o.k = int(args.get_uint("k", uint64_t(o.k)));
  o.threads = unsigned(args.get_uint("threads", 0));
  const std::string updater = args.get("updater", "default");
  if (updater == "burst")
    o.kind = weft::hyp::UpdaterKind::BurstSampling;
  else if (updater != "default")
    weft::fail(weft::ErrorCode::BadInput, "--updater must be default or burst");
  const weft::hyp::BenchResult r = weft::hyp::run_synthetic_bench(o);
  std::printf(
      "{\"bench\": \"monty_hypothesis_update\", \"backend\": \"cpu\", \"updater\": \"%s\", \"threads\": %u, "
      "\"nodes\": %zu, \"hypotheses_per_graph\": %zu, \"graphs\": %d, \"lms\": %d, \"k\": %d, "
      "\"ms_per_step\": %.3f, \"hypotheses_per_second\": %.4g}\n",
      updater.c_str(), r.threads, o.nodes, r.hypotheses_per_graph, o.graphs, o.lms, o.k, r.seconds_per_step * 1e3,
      r.hypotheses_per_second);
  return 0;
}

}  // namespace

// argv[0] is "monty".
int weft_cmd_monty(int argc, char** argv) {
  const weft::cli::Args args = weft::cli::parse(
      argc, argv, 1, {"objects", "backend", "device", "threads", "nodes", "poses", "graphs", "lms", "steps", "k", "updater"},
      {"no-kernel-trace"});
  if (args.positional.empty() || args.positional[0] == "help") {
    std::fputs(kMontyUsage, args.positional.empty() ? stderr : stdout);
    return args.positional.empty() ? 2 : 0;
  }
  if (args.positional[0] == "replay") return replay(args);
  if (args.positional[0] == "bench") return bench(args);
  weft::fail(weft::ErrorCode::BadInput, "unknown monty command '" + args.positional[0] + "' (known: replay, bench)");
}
