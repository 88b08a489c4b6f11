// weft run MANIFEST.toml [--device SEL] [--out DIR] [--runs N] [--dry-run] [--validation]
//
// Executes a manifest workload (docs/manifest.md): no C++ needed. --dry-run loads and checks
// the manifest and prints the planned stages and barriers without opening a device.
#include <cstdio>
#include <string>

#include <weft/manifest.h>
#include <weft/weft.h>

#include "cli.h"

namespace {

const char* kRunUsage =
    "usage: weft run MANIFEST.toml [--device SEL] [--out DIR] [--runs N] [--dry-run] [--validation]\n"
    "  --out DIR      where the declared outputs are written (default: ./<manifest name>_out)\n"
    "  --runs N       replay the recorded program N times (default 1); outputs come from the last run\n"
    "  --dry-run      print the planned stages, barriers and layout; run nothing\n"
    "  --validation   enable the Khronos validation layer\n";

}  // namespace

namespace weft {

int cmd_run(int argc, char** argv) {
  try {
    weft::cli::Args args = weft::cli::parse(argc, argv, 1, {"device", "out", "runs"}, {"dry-run", "validation", "help"});
    if (args.flag("help")) {
      std::fputs(kRunUsage, stdout);
      return 0;
    }
    if (args.positional.size() != 1) {
      std::fputs(kRunUsage, stderr);
      return 2;
    }
    const uint64_t runs = args.get_uint("runs", 1);
    if (runs == 0 || runs > 1000000) weft::fail(weft::ErrorCode::BadInput, "--runs must be in [1, 1000000]");
    const weft::Manifest manifest = weft::load_manifest(args.positional[0]);
    if (args.flag("dry-run")) {
      std::fputs(weft::describe_dry_run(manifest).c_str(), stdout);
      return 0;
    }
    auto device = weft::cli::open_device(args);
    std::printf("device: %s\n", device->info().name.c_str());
    const std::string out = args.get("out", manifest.name + "_out");
    const auto report = weft::run_manifest(*device, manifest, out, uint32_t(runs));
    std::fputs(weft::format_run_report(report).c_str(), stdout);
    if (device->validation_enabled() && device->validation().count()) {
      for (const auto& m : device->validation().messages()) std::fprintf(stderr, "validation: %s\n", m.c_str());
      return 1;
    }
    return 0;
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "weft run: %s\n", e.what());
    return e.code() == weft::ErrorCode::BadInput || e.code() == weft::ErrorCode::ShaderCompile ? 2 : 1;
  }
}

}  // namespace weft
