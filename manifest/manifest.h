// Manifest workloads: a TOML file that declares kernels (GLSL compiled at run time), heap and
// globals segments (from .npy files or fills), instances and their chain, stages, indirect
// slots, control words, regulator passes and outputs. `weft run` executes one with no C++.
// The schema is documented in docs/manifest.md.
//
// Every problem in a manifest is a BadInput error "<file>: <key path>: <problem>", e.g.
// "gain.toml: stages[2].dispatch: expected an integer or an array of 1-3 integers, got a string".
// load_manifest() checks everything that does not need a device (it builds the Program once),
// so a manifest that loads only fails later on device limits.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <weft/compiler.h>
#include <weft/executable.h>
#include <weft/npy.h>
#include <weft/program.h>

namespace weft {

class Device;

struct ManifestKernel {
  std::string name;
  std::string path;  // resolved against the manifest's folder
  CompileOptions options;
  KernelRef kernel;  // compiled by load_manifest
};

struct ManifestSegment {
  std::string name;
  Binding binding = Binding::Globals;  // Heap or Globals
  NpyArray initial;                    // dtype, shape and the contents a run starts from
  uint64_t align = 256;
  bool far = false;                    // its own allocations (SegmentLayout::add_far)
  uint64_t record_bytes = 4;           // far segments: the unit allocations hold whole
  std::string key;                     // "heap[0]", for errors raised later
};

struct ManifestInstance {
  std::string name;
  uint32_t width = 1;
  std::vector<uint8_t> inbox;  // optional initial R31 payload (bytes)
  std::string key;
};

struct ManifestSlot {
  std::string name;
  std::array<uint32_t, 3> groups{0, 1, 1};
  std::string key;
};

struct ManifestControl {
  std::string name;
  DType dtype = DType::U32;      // F32, U32 or I32: how rules and outputs read the words
  std::vector<uint32_t> words;   // initial values
  std::string key;
};

// A reference to something in the program ("heap.x", "control.gain[1]", "outbox.a"...),
// resolved when the Program is built. `key` is where the manifest wrote it.
struct ManifestRef {
  std::string text;
  std::string key;
  uint32_t line = 0;  // where it was written (0: unknown)
};

// A stage's value for one of its kernel's arguments (bound by name; the kernel's declaration
// gives its type): a number, or a reference resolved to a range (segment arguments) or a word.
struct ManifestArg {
  enum class Kind { Integer, Float, Ref } kind = Kind::Integer;
  std::string name;
  std::string key;  // "stages[2].args.gain"
  int64_t integer = 0;
  double number = 0;
  ManifestRef ref;
};

struct ManifestRule {
  std::string key;
  std::string source_instance;   // empty: no source (when = "always")
  uint32_t source_field = 0;
  uint32_t source_type = WEFT_SOURCE_F32;
  uint32_t compare = WEFT_CMP_ALWAYS;
  double lo = 0, hi = 0;         // thresholds, encoded by source_type when built
  uint32_t action = WEFT_ACTION_HALT;
  ManifestRef target;            // word or slot actions; empty for halt
  double value = 0, value2 = 0;  // encoded by the target's type when built
  bool value_given = false;
  bool denominator_given = false;  // scale of an integer word: value / denominator
};

struct ManifestStage {
  std::string name;
  std::string key;  // "stages[3]"
  // A kernel stage...
  std::string kernel;
  std::string instance;
  std::array<uint32_t, 3> groups{1, 1, 1};
  std::string indirect;  // slot name, or empty for a direct dispatch
  uint64_t units = 0;    // a streaming kernel's units: the engine shapes and sizes its dispatch
  std::vector<ManifestArg> args;
  std::vector<ManifestRef> reads, writes;
  bool message = false;
  bool honour_halt = false;
  uint32_t iteration = 0;
  // ...or a regulator pass (weft::add_regulator) when `rules` is not empty.
  std::vector<ManifestRule> rules;
  bool is_regulator() const { return !rules.empty(); }
};

struct ManifestOutput {
  ManifestRef source;  // "globals.x", "heap.x", "outbox.a", "registers.a.R5", "metrics", "control.gain"
  std::string file;    // relative to the output folder
  DType dtype = DType::F32;
  bool dtype_given = false;
  std::vector<uint64_t> shape;  // empty: the source's own shape
  std::string key;
};

struct Manifest {
  std::string path;  // the file as given
  std::string dir;   // its folder: relative paths resolve against it
  std::string name;
  std::vector<ManifestKernel> kernels;
  std::vector<ManifestSegment> segments;  // heap and globals, in file order
  std::vector<ManifestInstance> instances;
  std::vector<std::pair<std::string, std::string>> connections;  // from, to
  std::vector<ManifestSlot> slots;
  std::vector<ManifestControl> controls;
  std::vector<ManifestStage> stages;
  std::vector<ManifestOutput> outputs;
};

// Parses, resolves file paths, reads the .npy inputs, compiles the kernels and builds the
// Program once to check every reference. BadInput (or ShaderCompile for kernel sources).
Manifest load_manifest(const std::string& path);
// Parses manifest text as if it were the file `path` (relative paths resolve against its folder).
Manifest parse_manifest(const std::string& text, const std::string& path);

// The Program the manifest describes (layout, instances, chain, slots, control, stages, rules).
Program build_program(const Manifest& manifest);

// The planned stages and barriers (Plan::describe), plus the layout, without touching a device.
std::string describe_dry_run(const Manifest& manifest);

struct ManifestRunReport {
  std::string program;
  uint32_t runs = 0;
  Timings timings;                          // of the last run
  std::vector<std::string> stage_names;     // by stage index
  std::vector<std::string> instance_names;  // by instance index
  std::vector<abi::WeftMetrics> metrics;    // after the last run, by instance
  std::vector<std::pair<std::string, uint32_t>> rules_fired;  // "stage[k]", passes it fired in
  std::vector<std::string> files;           // outputs written
  double wall_ms = 0;                       // host time of all runs (submit to completion)
};

// A manifest made real on one device: built, recorded once, its inputs uploaded. Hosts that
// embed Weft (the C ABI, Python) drive it run by run; `weft run` goes through run_manifest.
class ManifestRunner {
 public:
  ManifestRunner(Device& device, const Manifest& manifest);
  ~ManifestRunner();
  ManifestRunner(const ManifestRunner&) = delete;
  ManifestRunner& operator=(const ManifestRunner&) = delete;

  const Manifest& manifest() const { return manifest_; }
  Executable& executable() { return *exe_; }
  void run();  // engine errors keep their code and gain the manifest's name

  // By manifest name; BadInput naming the manifest when there is no such name or element.
  InstanceId instance(const std::string& name) const;
  uint32_t control_word(const std::string& name, uint32_t element) const;
  // Each regulator rule ("stage[k]") with the passes it fired in during the last run.
  std::vector<std::pair<std::string, uint32_t>> rules_fired();
  // The declared outputs as .npy files under `dir` (created if needed), from the last run.
  std::vector<std::string> write_outputs(const std::string& dir);

 private:
  Manifest manifest_;
  struct Built;
  std::unique_ptr<Built> built_;
  std::unique_ptr<Executable> exe_;
};

// Builds, uploads the inputs, runs `runs` times (record once, replay) and writes the declared
// outputs as .npy files into `output_dir` (created if needed) from the last run.
ManifestRunReport run_manifest(Device& device, const Manifest& manifest, const std::string& output_dir,
                               uint32_t runs = 1);
// A short human summary: GPU time per stage, metrics per instance, rules fired, files.
std::string format_run_report(const ManifestRunReport& report);

}  // namespace weft
