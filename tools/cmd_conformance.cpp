// weft conformance: the conformance cases on one device or on every device present.
#include <cstdio>
#include <fstream>

#include <weft/weft.h>

#include "cli.h"
#include "registry.h"

namespace weft {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot open for writing");
  f << text;
  if (!f) fail(ErrorCode::BadInput, path + ": write failed");
}

}  // namespace

int cmd_conformance(int argc, char** argv) {
  cli::Args args = cli::parse(argc, argv, 2, {"device", "group", "filter", "report", "junit", "data"}, {"validation", "list"});
  const std::vector<conformance::Case> cases =
      args.get("group").empty() ? registry::all_cases() : registry::cases_of(args.get("group"));
  if (!args.get("data").empty()) conformance::set_data_dir(args.get("data"));
  if (args.flag("list")) {
    for (const auto& c : cases) std::printf("%-45s %s\n", c.name.c_str(), c.tolerance.c_str());
    return 0;
  }
  std::vector<std::string> selections;
  if (args.get("device") == "all") {
    for (const DeviceInfo& d : Device::list())
      if (d.usable) selections.push_back(std::to_string(d.index));
    if (selections.empty()) fail(ErrorCode::NoDevice, "no usable Vulkan device");
  } else {
    selections.push_back(args.get("device"));
  }
  std::vector<conformance::DeviceReport> reports;
  for (const std::string& sel : selections) {
    cli::Args one = args;
    one.options["device"] = sel;
    auto dev = cli::open_device(one);
    std::fprintf(stderr, "running conformance on %s ...\n", dev->info().name.c_str());
    reports.push_back(conformance::run_cases(*dev, cases, args.get("filter")));
  }
  std::fputs(conformance::format_table(reports).c_str(), stdout);
  if (!args.get("report").empty()) write_file(args.get("report"), conformance::format_json(reports));
  if (!args.get("junit").empty()) write_file(args.get("junit"), conformance::format_junit(reports));
  size_t failed = 0, ran = 0;
  for (const auto& r : reports) {
    failed += r.failed();
    ran += r.cases.size();
  }
  if (ran == 0) {
    std::fprintf(stderr, "no conformance case matches the filter '%s'\n", args.get("filter").c_str());
    return 1;
  }
  return failed ? 1 : 0;
}

}  // namespace weft
