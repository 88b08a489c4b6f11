// Running a manifest: upload its inputs once, replay the recorded program, write the outputs.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <weft/device.h>
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

struct ManifestRunner::Built : manifest_detail::Built {};

ManifestRunner::ManifestRunner(Device& device, const Manifest& m) : manifest_(m) {
  built_ = std::make_unique<Built>(Built{manifest_detail::build(manifest_)});
  try {
    // The executable gets a copy: the built program keeps naming stages and instances.
    exe_ = std::make_unique<Executable>(device, Program(built_->program));
  } catch (const Error& e) {
    rethrow_for(manifest_, e);
  }
  for (const auto& s : manifest_.segments)
    if (!s.initial.data.empty()) exe_->write_segment(s.binding, s.name, s.initial.data.data(), s.initial.data.size());
  for (size_t i = 0; i < manifest_.instances.size(); ++i)
    if (!manifest_.instances[i].inbox.empty())
      exe_->write_register(InstanceId{uint32_t(i)}, WEFT_R_INBOX, manifest_.instances[i].inbox.data(),
                           manifest_.instances[i].inbox.size());
}

ManifestRunner::~ManifestRunner() = default;

void ManifestRunner::run() {
  try {
    exe_->run();
  } catch (const Error& e) {
    rethrow_for(manifest_, e);
  }
}

InstanceId ManifestRunner::instance(const std::string& name) const {
  const auto& list = built_->program.instances();
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return InstanceId{uint32_t(i)};
  fail(ErrorCode::BadInput, manifest_.path + ": no instance named '" + name + "'");
}

uint32_t ManifestRunner::control_word(const std::string& name, uint32_t element) const {
  for (const auto& c : built_->controls) {
    if (c.name != name) continue;
    if (element >= c.count)
      fail(ErrorCode::BadInput, manifest_.path + ": control '" + name + "' has " + std::to_string(c.count) +
                                    " word(s); element " + std::to_string(element) + " is out of range");
    return c.first_word + element;
  }
  fail(ErrorCode::BadInput, manifest_.path + ": no control block named '" + name + "'");
}

std::vector<std::pair<std::string, uint32_t>> ManifestRunner::rules_fired() {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (const auto& block : built_->rules) {
    if (block.word == WEFT_NONE) continue;
    for (uint32_t k = 0; k < block.count; ++k) {
      const uint32_t fired = exe_->control_word(block.word + k * WEFT_RULE_WORDS + offsetof(abi::WeftRule, fired) / 4);
      out.push_back({built_->program.stages()[block.stage].name + ".rules[" + std::to_string(k) + "]", fired});
    }
  }
  return out;
}

std::vector<std::string> ManifestRunner::write_outputs(const std::string& output_dir) {
  std::vector<std::string> files;
  const std::filesystem::path dir(output_dir.empty() ? "." : output_dir);
  if (!built_->outputs.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail(ErrorCode::BadInput, dir.string() + ": cannot create the output folder: " + ec.message());
  }
  for (const auto& o : built_->outputs) {
    NpyArray a;
    if (o.metrics_table) {
      a = metrics_table(*exe_, o);
    } else {
      a.dtype = o.dtype;
      a.shape = o.shape;
      a.data.resize(o.range.size);
      exe_->read_range(o.range, a.data.data(), a.data.size());
    }
    const std::string path = (dir / o.file).string();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    write_npy(path, a);
    files.push_back(path);
  }
  return files;
}

ManifestRunReport run_manifest(Device& device, const Manifest& m, const std::string& output_dir, uint32_t runs) {
  if (runs == 0) fail(ErrorCode::BadInput, m.path + ": runs must be at least 1");
  ManifestRunner runner(device, m);
  ManifestRunReport report;
  report.program = m.name;
  report.runs = runs;
  const Program& program = runner.executable().program();
  for (const Stage& s : program.stages()) report.stage_names.push_back(s.name);
  for (const Instance& in : program.instances()) report.instance_names.push_back(in.name);

  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t r = 0; r < runs; ++r) runner.run();
  report.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  report.timings = runner.executable().timings();
  for (size_t i = 0; i < program.instances().size(); ++i)
    report.metrics.push_back(runner.executable().metrics(InstanceId{uint32_t(i)}));
  report.rules_fired = runner.rules_fired();
  report.files = runner.write_outputs(output_dir);
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
