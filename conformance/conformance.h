// The conformance suite: device-agnostic cases, each comparing device behaviour with an
// independent reference under a declared tolerance. `weft conformance` runs them per device
// (ctest runs each group once, validation on).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "compare.h"

#include "test_args.h"          // their arguments (ChainStepArgs, GlobalsAddArgs, ...)
#include "weft_test_kernels.h"  // the test kernels (conformance/kernels/*.comp): weft_test_kernels.get(name)

namespace weft::conformance {

enum class Outcome { Pass, Fail, Skip };
const char* outcome_name(Outcome o);

struct Result {
  Outcome outcome = Outcome::Pass;
  std::string detail;      // why it failed or was skipped; what was checked when it passed
  double worst_error = 0;  // largest error against the reference (0 for exact cases)
  static Result pass(std::string detail = {}, double worst = 0) { return {Outcome::Pass, std::move(detail), worst}; }
  static Result fail(std::string detail, double worst = 0) { return {Outcome::Fail, std::move(detail), worst}; }
  static Result skip(std::string reason) { return {Outcome::Skip, std::move(reason), 0}; }
};

// A number as case details print it (ostream's default: 6 significant digits).
std::string str(double v);
// "got 0x..., want 0x..." for a word that differs from its reference.
std::string fmt_words(uint32_t got, uint32_t want);

// Pass when `error` (one of e's measures, e.g. e.nmse()) is within `bound`, carrying it as the
// case's worst error; otherwise a failure saying what, by how much and where.
Result within(const std::string& what, const ErrorStats& e, double error, double bound);

struct Case {
  std::string name;       // "group.behaviour"
  std::string tolerance;  // "exact", or the bound and why
  std::function<Result(Device&)> run;
};

// The engine's own cases (engine, far segments, hostile, regulator and manifest). Workloads
// register theirs (tools/registry.h); `weft conformance` and ctest run both.
std::vector<Case> engine_suite();
std::vector<Case> engine_cases();
std::vector<Case> far_segment_cases();
std::vector<Case> hostile_cases();
std::vector<Case> regulator_cases();
std::vector<Case> manifest_cases();
// "<group>.every_kernel_builds": each kernel of `table` (its far variant too, where the device
// has buffer device addresses) becomes a pipeline on the device, every refusal named.
Case every_kernel_builds(const std::string& group, const KernelTable& table);
// A workload's group: its cases, each skipped naming what is missing on a device that lacks a
// feature the table's kernels need, then every_kernel_builds.
std::vector<Case> workload_group(const std::string& group, std::vector<Case> cases, const KernelTable& table);

struct CaseReport {
  std::string name;
  std::string tolerance;
  Result result;
  double seconds = 0;
};

struct DeviceReport {
  DeviceInfo device;
  std::vector<CaseReport> cases;
  size_t passed() const;
  size_t failed() const;
  size_t skipped() const;
};

// Runs the `cases` whose name contains `filter` (all when empty). A case that throws, that
// leaves validation messages behind, or that skips without saying why, fails with the reason
// as its detail.
DeviceReport run_cases(Device& device, const std::vector<Case>& cases, const std::string& filter = {});

std::string format_table(const std::vector<DeviceReport>& reports);
std::string format_json(const std::vector<DeviceReport>& reports);
// JUnit XML: one <testsuite> per device, one <testcase> per case (skips carry their reason).
std::string format_junit(const std::vector<DeviceReport>& reports);


// ---- data workloads ship for their cases (weft_add_workload(... DATA ...)) ----
// Looked for in: the folder set here (`weft conformance --data DIR`), else $WEFT_DATA_DIR, else
// share/weft/data beside the running program's bin/ folder (so in the build tree and in an
// installed prefix alike).
void set_data_dir(const std::string& dir);

// WEFT_LARGE_TESTS=1: the cases and tests too slow or too large for every run run too.
bool large_tests_enabled();
// <data dir>/<relative> when it exists, else "" (the case then skips, saying where it looked:
// data_not_found(relative)).
std::string data_path(const std::string& relative);
std::string data_not_found(const std::string& relative);

// ---- manifest fixtures (manifest_cases.cpp) ----
// A fresh folder under the system temp directory, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};
void write_text(const std::string& path, const std::string& text);
// Writes the fixture manifest (or `manifest_text` instead of it), its kernel affine.comp and its
// inputs x.npy and in.npy into `dir`; returns the manifest's path.
std::string write_manifest_fixture(const std::string& dir, const std::string& manifest_text = {});
const char* manifest_fixture_text();

}  // namespace weft::conformance
