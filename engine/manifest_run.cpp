// Running a manifest: upload its inputs once, replay the recorded program, write the outputs.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "device.h"
#include "manifest_internal.h"

namespace weft {

namespace {

// Engine errors from the device keep their code and gain the manifest's name.
[[noreturn]] void rethrow_for(const Manifest& m, const Error& e) {
  const std::string prefix = std::string(to_string(e.code())) + ": ";
  std::string msg = e.what();
  if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
  fail(e.code(), m.path + ": " + msg);
}

NpyArray metrics_table(Executable& exe, const manifest_detail::OutputPlan& o) {
  std::vector<double> rows;
  for (uint32_t i = o.metrics_first; i < o.metrics_first + o.metrics_count; ++i) {
    abi::WeftMetrics mt{};
    exe.read(Binding::Metrics, uint64_t(i) * sizeof mt, &mt, sizeof mt);
    rows.push_back(mt.norm);
    rows.push_back(mt.max_abs);
    rows.push_back(double((uint64_t(mt.ticks_hi) << 32) | mt.ticks_lo));
    rows.push_back(mt.status);
    rows.push_back(mt.sequence);
    for (uint32_t c = 0; c < WEFT_METRICS_COUNTERS; ++c) rows.push_back(mt.counters[c]);
  }
  return NpyArray::from(DType::F64, rows, o.shape);
}

}  // namespace

ManifestRunReport run_manifest(Device& device, const Manifest& m, const std::string& output_dir, uint32_t runs) {
  if (runs == 0) fail(ErrorCode::BadInput, m.path + ": runs must be at least 1");
  manifest_detail::Built built = manifest_detail::build(m);
  ManifestRunReport report;
  report.program = m.name;
  report.runs = runs;
  for (const Stage& s : built.program.stages()) report.stage_names.push_back(s.name);
  for (const Instance& in : built.program.instances()) report.instance_names.push_back(in.name);
  const size_t instance_count = built.program.instances().size();

  std::unique_ptr<Executable> exe;
  try {
    exe = std::make_unique<Executable>(device, std::move(built.program));
  } catch (const Error& e) {
    rethrow_for(m, e);
  }
  for (const auto& s : m.segments)
    if (!s.initial.data.empty()) exe->write_segment(s.binding, s.name, s.initial.data.data(), s.initial.data.size());
  for (size_t i = 0; i < m.instances.size(); ++i)
    if (!m.instances[i].inbox.empty())
      exe->write_register(InstanceId{uint32_t(i)}, WEFT_R_INBOX, m.instances[i].inbox.data(), m.instances[i].inbox.size());

  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (uint32_t r = 0; r < runs; ++r) exe->run();
  } catch (const Error& e) {
    rethrow_for(m, e);
  }
  report.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  report.timings = exe->timings();
  for (size_t i = 0; i < instance_count; ++i) report.metrics.push_back(exe->metrics(InstanceId{uint32_t(i)}));
  for (const auto& block : built.rules) {
    if (block.word == WEFT_NONE) continue;
    for (uint32_t k = 0; k < block.count; ++k) {
      const uint32_t fired = exe->control_word(block.word + k * WEFT_RULE_WORDS + offsetof(abi::WeftRule, fired) / 4);
      report.rules_fired.push_back({report.stage_names[block.stage] + ".rules[" + std::to_string(k) + "]", fired});
    }
  }

  if (!built.outputs.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir.empty() ? "." : output_dir, ec);
    if (ec) fail(ErrorCode::BadInput, output_dir + ": cannot create the output folder: " + ec.message());
  }
  for (const auto& o : built.outputs) {
    NpyArray a;
    if (o.metrics_table) {
      a = metrics_table(*exe, o);
    } else {
      a.dtype = o.dtype;
      a.shape = o.shape;
      a.data.resize(o.range.size);
      exe->read(o.range.binding, o.range.offset, a.data.data(), a.data.size());
    }
    const std::string path = (std::filesystem::path(output_dir.empty() ? "." : output_dir) / o.file).string();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    write_npy(path, a);
    report.files.push_back(path);
  }
  return report;
}

std::string format_run_report(const ManifestRunReport& r) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "program '%s': %zu stages, %u run(s), host %.3f ms", r.program.c_str(), r.stage_names.size(),
                r.runs, r.wall_ms);
  out += line;
  if (r.timings.valid) {
    std::snprintf(line, sizeof line, ", GPU %.3f ms (last run)", r.timings.total_ns / 1e6);
    out += line;
  }
  out += "\n";
  if (r.timings.valid && r.timings.stage_ns.size() == r.stage_names.size()) {
    out += "  stage                      GPU us\n";
    for (size_t i = 0; i < r.stage_names.size(); ++i) {
      std::snprintf(line, sizeof line, "  %-24s %8.2f\n", r.stage_names[i].c_str(), r.timings.stage_ns[i] / 1e3);
      out += line;
    }
  }
  out += "  instance                     norm      max_abs  status  sequence\n";
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const auto& mt = r.metrics[i];
    std::snprintf(line, sizeof line, "  %-20s %12.6g %12.6g %7u %9u\n", r.instance_names[i].c_str(), mt.norm, mt.max_abs, mt.status,
                  mt.sequence);
    out += line;
  }
  for (const auto& [rule, fired] : r.rules_fired) out += "  rule " + rule + " fired " + std::to_string(fired) + " time(s)\n";
  for (const auto& f : r.files) out += "  wrote " + f + "\n";
  return out;
}

}  // namespace weft
