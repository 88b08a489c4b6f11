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
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "fixture_replay.h"
#include "bench.h"
#include "numpy_peer.h"
#include "step_profile.h"
#include "synthetic_bench.h"
#include "vulkan_backend.h"
#include "vulkan_tolerance.h"

namespace {

// `weft help` lines of this command.
const char* const kHelpLines =
    "  hypothesis-update replay RUN_DIR [--objects DIR] [--backend cpu|vulkan]\n"
    "                                          replay a recorded Monty run, print errors per step\n"
    "  hypothesis-update bench [--cases GxNxHxL,...] [--large] [--updater default|burst]\n"
    "                                          ms per step: CPU backend, Vulkan backend and the numpy peer (alias: monty)\n";

const char* kMontyUsage =
    "usage: weft monty replay RUN_DIR [--objects DIR] [--backend cpu|vulkan] [--device D] [--threads N]\n"
    "                         [--no-kernel-trace]\n"
    "  RUN_DIR   a recorded run, e.g. workloads/hypothesis_update/data/monty/burst_cylinder\n"
    "  --objects the object graphs (default RUN_DIR/../objects)\n"
    "  --no-kernel-trace  skip Monty's kernel intermediates (times the fast path)\n"
    "       weft monty bench [--cases GxNxHxL,...] [--large] [--backend cpu|vulkan|both] [--steps S] [--k K]\n"
    "                        [--updater default|burst] [--threads N] [--device D] [--rows auto|window|far]\n"
    "                        [--no-peer] [--profile]\n"
    "  synthetic surface graphs (G graphs of N nodes, H hypotheses each, L LMs), every hypothesis\n"
    "  tested each step; one JSON line per case: CPU backend vs Vulkan backend (GPU timestamps) vs the\n"
    "  numpy peer (python/numpy_peer.py: Monty's default update, single-threaded numpy + scipy KDTree,\n"
    "  started on the same inputs and timed per step in its own process), all in the same run, with\n"
    "  speedups computed from those measurements only; then the same as a table on stderr. The peer\n"
    "  runs with the CPU backend and the default updater (--no-peer skips it); its final evidence is\n"
    "  checked against the CPU backend's (numpy_peer_check). Default cases: 576, 1000, 3906 and\n"
    "  10000 hypotheses on one graph; --large adds 4x2000x4000x1, 2x1000x8000x4, 10x2000x4000x4 and\n"
    "  77x2000x4000x16.\n"
    "  With both backends the Vulkan hypotheses are checked against the CPU backend's after the last\n"
    "  step (check: agree or disagree). --rows places the Vulkan hypothesis rows: in the bound window,\n"
    "  in far segments, or (auto, default) far only when the program exceeds the window.\n"
    "  --profile: the last step per kernel (Vulkan: GPU timestamps per stage; CPU backend: wall time per\n"
    "  phase) with the traffic each must move at least and the bandwidth that makes (step_profile.h),\n"
    "  in the JSON line (profile_<backend>_ms_<kernel>, profile_<backend>_gb_s_<kernel>) and as tables\n"
    "  on stderr.\n";

int replay(const weft::cli::Args& args) {
  if (args.positional.size() != 2) weft::fail(weft::ErrorCode::BadInput, "monty replay needs exactly one RUN_DIR");
  const std::string backend = args.get("backend", "cpu");
  if (backend != "cpu" && backend != "vulkan")
    weft::fail(weft::ErrorCode::BadInput, "unknown backend '" + backend + "' (known: cpu, vulkan)");
  const bool vulkan = backend == "vulkan";
  const double tolerance = vulkan ? weft::hypothesis_update::kVulkanEvidenceTolerance : 1e-6;
  auto tolerance_of = [&](const std::string& array) {
    return vulkan ? weft::hypothesis_update::vulkan_replay_tolerance(array) : tolerance;
  };

  std::unique_ptr<weft::Device> device;
  weft::hypothesis_update::ReplayOptions options;
  if (vulkan) {
    weft::DeviceOptions o;
    o.select = args.get("device");
    device = weft::Device::open(o);
    options.device = device.get();
    options.tie_tolerance = weft::hypothesis_update::kVulkanEvidenceTolerance;
  }
  options.objects_dir = args.get("objects");
  options.threads = unsigned(args.get_uint("threads", 0));
  options.trace_kernel = !args.flag("no-kernel-trace");
  const weft::hypothesis_update::ReplayReport report = weft::hypothesis_update::replay_fixture_run(args.positional[1], options);

  const std::string where =
      vulkan ? "vulkan (" + device->info().name + ")" : "cpu, " + std::to_string(report.threads) + " threads";
  std::printf("run %s (%s), backend %s, tolerance %.0e\n", report.run.c_str(), report.updater.c_str(), where.c_str(),
              tolerance);
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

// One benchmark case: graphs x nodes x hypotheses per graph x LMs.
struct BenchCase {
  int graphs = 1;
  size_t nodes = 0;
  size_t hypotheses = 0;
  int lms = 1;
};

BenchCase parse_case(const std::string& text) {
  BenchCase c;
  unsigned long g = 0, n = 0, h = 0, l = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lux%lux%lux%lu%c", &g, &n, &h, &l, &tail) != 4 || g == 0 || n < 2 || h == 0 ||
      l == 0 || h % n != 0)
    weft::fail(weft::ErrorCode::BadInput, "--cases: '" + text +
                                              "' is not GRAPHSxNODESxHYPOTHESESxLMS with HYPOTHESES a multiple of NODES "
                                              "(e.g. 1x288x576x1)");
  c.graphs = int(g), c.nodes = n, c.hypotheses = h, c.lms = int(l);
  return c;
}

std::vector<BenchCase> bench_cases(const weft::cli::Args& args) {
  // Issue 23's sizes, one graph each: 576 (Monty's 288-node cylinder, 2 poses per node), 1000
  // (500 nodes x 2), 3906 (651 x 6) and 10,000 hypotheses (a 2000-node graph, Monty's largest,
  // x 5). --large adds several graphs and LMs up to the spec's largest (77 objects x 2000 nodes x
  // 4000 hypotheses x 16 LMs), meant for real GPUs.
  std::string list = args.get("cases", "1x288x576x1,1x500x1000x1,1x651x3906x1,1x2000x10000x1");
  if (args.flag("large")) list += ",4x2000x4000x1,2x1000x8000x4,10x2000x4000x4,77x2000x4000x16";
  std::vector<BenchCase> cases;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) cases.push_back(parse_case(list.substr(at, comma - at)));
    at = comma + 1;
  }
  return cases;
}

std::string case_name(const BenchCase& c) {
  return std::to_string(c.graphs) + "x" + std::to_string(c.nodes) + "x" + std::to_string(c.hypotheses) + "x" +
         std::to_string(c.lms);
}

// One case's figures, kept for the table printed after the JSON lines.
struct BenchRow {
  BenchCase c;
  double cpu_ms = NAN, cpu_core_ms = NAN, gpu_ms = NAN;
  double numpy_ms = NAN, numpy_core_ms = NAN;  // NaN: the peer did not run
  double load = NAN;  // 1-minute load average when the case started
};

// The same figures for people, on stderr so stdout stays JSON lines. core-ms is process CPU time
// per step (the CPU backend's: all its threads; the peer's: its one thread): the wall time it
// would take on one otherwise idle core, which a loaded machine inflates far less than wall time.
// Every ratio divides two figures measured in this run.
void print_table(const std::vector<BenchRow>& rows, const std::string& device) {
  std::fprintf(stderr, "\nMonty hypothesis updates, ms per step (CPU backend, numpy peer; Vulkan: %s GPU time)\n",
               device.c_str());
  std::fprintf(stderr, "%-16s %5s %9s %9s %9s %10s %7s %7s %10s\n", "GxNxHxL", "load", "CPU ms", "core-ms", "numpy ms",
               "numpy core", "core x", "wall x", "Vulkan ms");
  for (const BenchRow& r : rows) {
    const std::string name = case_name(r.c);
    std::fprintf(stderr, "%-16s %5.1f %9.3f %9.3f %9.3f %10.3f %7.1f %7.1f %10.3f\n", name.c_str(), r.load, r.cpu_ms,
                 r.cpu_core_ms, r.numpy_ms, r.numpy_core_ms, r.numpy_core_ms / r.cpu_core_ms, r.numpy_ms / r.cpu_ms,
                 r.gpu_ms);
  }
}

// The numpy peer on the steps the CPU backend just ran, into the case's JSON line; false when it
// ran and disagrees with the backend. Both are float64; the peer takes Monty's arccos/sin where
// the backend uses exact identities (evidence_math.h), a few ulps per step.
constexpr double kNumpyPeerTolerance = 1e-9;
bool add_numpy_peer(weft::bench::Line& line, BenchRow& row, const weft::hypothesis_update::BenchOptions& o,
                    const weft::hypothesis_update::BenchRecord& record,
                    const weft::hypothesis_update::HypothesisBackend& cpu) {
  namespace hu = weft::hypothesis_update;
  const hu::NumpyPeerResult p = hu::run_numpy_peer(WEFT_PYTHON3, WEFT_MONTY_NUMPY_PEER, o, record, cpu, kNumpyPeerTolerance);
  if (!p.missing.empty()) {
    line.str("monty_numpy_peer", "missing: " + p.missing);
    return true;
  }
  row.numpy_ms = p.wall_ms_per_step, row.numpy_core_ms = p.cpu_ms_per_step;
  line.str("monty_numpy_peer", p.versions + ", 1 thread")
      .num("numpy_ms_per_step", p.wall_ms_per_step)
      .num("numpy_ms_per_step_median", p.median_wall_ms_per_step)
      .num("numpy_core_ms_per_step", p.cpu_ms_per_step)
      .num("cpu_core_speedup_vs_numpy", p.cpu_ms_per_step / row.cpu_core_ms)
      .num("cpu_wall_speedup_vs_numpy", p.wall_ms_per_step / row.cpu_ms)
      .num("vulkan_gpu_speedup_vs_numpy", p.wall_ms_per_step / row.gpu_ms)
      .str("numpy_peer_check", p.agree ? "agree" : "disagree")
      .num("numpy_peer_check_rows", double(p.rows))
      .num("numpy_peer_check_count_mismatches", double(p.count_mismatches))
      .num("numpy_peer_check_max_evidence_error", p.max_evidence_error)
      .num("numpy_peer_check_rows_over_1e-9", double(p.rows_over_tolerance))
      .num("numpy_peer_check_max_location_error", p.max_location_error);
  return p.agree;
}

// The last step per kernel into the case's JSON line, and as a table on stderr.
void add_profile(weft::bench::Line& line, const char* backend, const std::string& case_name,
                 const std::vector<weft::hypothesis_update::KernelProfile>& kernels) {
  double total = 0;
  for (const auto& k : kernels) total += k.ms;
  std::fprintf(stderr, "\n%s backend, %s, last step: %.3f ms\n%-20s %9s %6s %9s %8s\n", backend, case_name.c_str(), total,
               "kernel", "ms", "share", "MB moved", "GB/s");
  for (const auto& k : kernels) {
    const double gb_s = k.bytes > 0 && k.ms > 0 ? k.bytes / (k.ms * 1e6) : NAN;
    line.num(("profile_" + std::string(backend) + "_ms_" + k.name).c_str(), k.ms);
    if (k.bytes > 0) line.num(("profile_" + std::string(backend) + "_gb_s_" + k.name).c_str(), gb_s);
    std::fprintf(stderr, "%-20s %9.3f %5.1f%% %9.3f %8.2f\n", k.name.c_str(), k.ms, 100 * k.ms / total, k.bytes * 1e-6, gb_s);
  }
}

weft::hypothesis_update::RowPlacement row_placement(const weft::cli::Args& args) {
  using weft::hypothesis_update::RowPlacement;
  const std::string rows = args.get("rows", "auto");
  if (rows == "auto") return RowPlacement::Auto;
  if (rows == "window") return RowPlacement::InWindow;
  if (rows == "far") return RowPlacement::Far;
  weft::fail(weft::ErrorCode::BadInput, "--rows must be auto, window or far");
}

// The Vulkan backend's hypotheses against the CPU backend's after the same bench steps, into the
// case's JSON line. Noiseless synthetic data reaches the aligned-vector bound of vulkan_tolerance.h
// on the true hypotheses, once per scored step.
bool add_check(weft::bench::Line& line, const weft::hypothesis_update::HypothesisBackend& vk,
               const weft::hypothesis_update::HypothesisBackend& cpu, int steps) {
  namespace hu = weft::hypothesis_update;
  const hu::BenchAgreement a = hu::compare_bench_backends(vk, cpu, hu::kVulkanEvidenceTolerance,
                                                          hu::kVulkanAlignedEvidenceBound * steps, hu::kVulkanGeometryTolerance);
  line.str("check", a.agree ? "agree" : "disagree")
      .num("check_rows", double(a.rows))
      .num("check_count_mismatches", double(a.count_mismatches))
      .num("check_max_evidence_error", a.max_evidence_error)
      .num("check_rows_over_1e-4", double(a.rows_over_tolerance))
      .num("check_rows_over_aligned_bound", double(a.rows_over_aligned))
      .num("check_max_geometry_error", a.max_geometry_error)
      .num("check_most_likely_graph_mismatches", double(a.most_likely_graph_mismatches))
      .num("check_max_most_likely_evidence_error", a.max_most_likely_evidence_error);
  return a.agree;
}

int bench(const weft::cli::Args& args) {
  weft::hypothesis_update::BenchOptions o;
  const weft::hypothesis_update::RowPlacement rows_at = row_placement(args);
  o.steps = int(args.get_uint("steps", 5));
  o.k = int(args.get_uint("k", uint64_t(o.k)));
  o.threads = unsigned(args.get_uint("threads", 0));
  const std::string updater = args.get("updater", "default");
  if (updater == "burst")
    o.kind = weft::hypothesis_update::UpdaterKind::BurstSampling;
  else if (updater != "default")
    weft::fail(weft::ErrorCode::BadInput, "--updater must be default or burst");
  const std::string which = args.get("backend", "both");
  if (which != "cpu" && which != "vulkan" && which != "both")
    weft::fail(weft::ErrorCode::BadInput, "--backend must be cpu, vulkan or both");
  std::vector<BenchCase> cases;
  if (args.options.count("nodes") || args.options.count("poses") || args.options.count("graphs") || args.options.count("lms")) {
    BenchCase c;  // the single-case flags of earlier versions
    c.nodes = size_t(args.get_uint("nodes", 2000));
    c.hypotheses = c.nodes * size_t(args.get_uint("poses", 8));
    c.graphs = int(args.get_uint("graphs", 1));
    c.lms = int(args.get_uint("lms", 1));
    cases.push_back(c);
  } else {
    cases = bench_cases(args);
  }
  weft::DeviceOptions dopt;
  dopt.select = args.get("device");
  const auto device = weft::Device::open(dopt);

  std::vector<BenchRow> rows;
  bool all_agree = true;
  for (BenchCase& c : cases) {
    BenchRow row{c};
    o.nodes = c.nodes;
    o.umbilical = int(c.hypotheses / c.nodes);
    o.graphs = c.graphs;
    o.lms = c.lms;
    // The machine may be shared: the load says how much of it the wall times had.
    double load[1] = {NAN};
    if (getloadavg(load, 1) == 1) row.load = load[0];
    weft::bench::Line line("hypothesis_update.step", *device);
    line.str("updater", updater)
        .num("graphs", c.graphs)
        .num("nodes", double(c.nodes))
        .num("hypotheses_per_graph", double(c.hypotheses))
        .num("lms", c.lms)
        .num("hypotheses_total", double(c.hypotheses) * c.graphs * c.lms)
        .num("k", o.k)
        .num("steps", o.steps)
        .num("loadavg_1min", row.load);
    double cpu_ms = NAN, gpu_ms = NAN;
    const bool peer = which != "vulkan" && o.kind == weft::hypothesis_update::UpdaterKind::Default && !args.flag("no-peer");
    std::unique_ptr<weft::hypothesis_update::CpuBackend> cpu;  // kept for the checks
    weft::hypothesis_update::BenchRecord record;                // what the numpy peer replays
    if (which != "vulkan") {
      cpu = std::make_unique<weft::hypothesis_update::CpuBackend>(o.threads);
      const weft::hypothesis_update::BenchResult r = weft::hypothesis_update::run_synthetic_bench(*cpu, o, {}, peer ? &record : nullptr);
      cpu_ms = r.seconds_per_step * 1e3;
      line.num("cpu_threads", cpu->threads())
          .num("cpu_tested_per_step", r.tested_per_step)
          .num("cpu_ms_per_step", cpu_ms)
          .num("cpu_ms_per_step_median", r.median_seconds_per_step * 1e3)
          .num("cpu_core_ms_per_step", r.process_cpu_seconds_per_step * 1e3)
          .num("cpu_hypotheses_per_s", r.hypotheses_per_second);
      row.cpu_core_ms = r.process_cpu_seconds_per_step * 1e3;
      if (args.flag("profile"))
        add_profile(line, "cpu", case_name(c), weft::hypothesis_update::profile_cpu_step(*cpu, weft::hypothesis_update::bench_step_counts(*cpu, o)));
    }
    if (which != "cpu") try {
      weft::hypothesis_update::VulkanBackend vk(*device);
      vk.set_row_placement(rows_at);
      const weft::hypothesis_update::BenchResult r = weft::hypothesis_update::run_synthetic_bench(vk, o, [&] {
        const weft::Timings t = vk.last_step_timings();
        return t.valid ? t.total_ns * 1e-9 : NAN;
      });
      gpu_ms = r.device_seconds_per_step * 1e3;
      line.num("vulkan_tested_per_step", r.tested_per_step)
          .num("vulkan_gpu_ms_per_step", gpu_ms)
          .num("vulkan_wall_ms_per_step", r.seconds_per_step * 1e3)
          .num("vulkan_wall_ms_per_step_median", r.median_seconds_per_step * 1e3)
          .num("vulkan_hypotheses_per_s", r.tested_per_step / (r.device_seconds_per_step));
      // Where the GPU time goes, per kind of stage (timestamps after every stage).
      for (const weft::KindTime& k : weft::stage_times_by_kind(vk.program()->exe->program(), vk.last_step_timings()))
        line.num(("last_step_gpu_ms_" + k.kind).c_str(), k.ns * 1e-6);
      line.str("vulkan_rows", vk.program()->far_rows ? "far" : "window");
      if (args.flag("profile"))
        add_profile(line, "vulkan", case_name(c), weft::hypothesis_update::profile_vulkan_step(vk, weft::hypothesis_update::bench_step_counts(vk, o)));
      if (cpu) all_agree = add_check(line, vk, *cpu, o.steps + 1) && all_agree;
    } catch (const weft::Error& e) {  // e.g. a case too big for this device's buffer window
      line.str("vulkan_error", e.what());
    }
    row.cpu_ms = cpu_ms, row.gpu_ms = gpu_ms;
    line.num("cpu_over_vulkan_gpu", cpu_ms / gpu_ms);
    if (!cpu)
      line.str("monty_numpy_peer", "not run (it replays the CPU backend's steps: --backend cpu or both)");
    else if (!peer)
      line.str("monty_numpy_peer", args.flag("no-peer") ? "not run (--no-peer)" : "not run (it implements the default updater)");
    else
      all_agree = add_numpy_peer(line, row, o, record, *cpu) && all_agree;
    line.print();
    rows.push_back(row);
  }
  print_table(rows, device->info().name);
  return all_agree ? 0 : 1;
}

}  // namespace

WEFT_CLI_COMMAND(hypothesis_update) {
  return {.name = "hypothesis-update", .aliases = {"monty"}, .options = {"objects", "backend", "device", "threads", "nodes", "poses",
              "graphs", "lms", "steps", "k", "updater", "cases", "rows"},
          .flags = {"no-kernel-trace", "large", "no-peer", "profile"}, .verbs = {{"replay", replay}, {"bench", ::bench}},
          .usage = kHelpLines, .help = kMontyUsage};
}
