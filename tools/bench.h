// weft bench: one JSON object per line, each naming the benchmark, the device and its figures.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <weft/weft.h>

namespace weft {
namespace cli {
struct Args;
}

namespace bench {

class Line {
 public:
  Line(const std::string& name, const Device& dev) : Line(name, dev.info().name, dev.info().type) {}
  // For work that runs on the host (tokenizers): device "cpu", type "host".
  Line(const std::string& name, const std::string& device, const std::string& type) {
    out_.precision(12);
    out_ << "{\"bench\": \"" << name << "\", \"device\": \"" << device << "\", \"device_type\": \"" << type << "\"";
  }
  Line& num(const char* key, double v) {
    out_ << ", \"" << key << "\": ";
    if (std::isfinite(v))
      out_ << v;
    else
      out_ << "null";
    return *this;
  }
  // Quotes, backslashes and control characters escaped: values may be error messages or SQL.
  Line& str(const char* key, const std::string& v) {
    out_ << ", \"" << key << "\": \"";
    for (const char c : v) {
      if (c == '"' || c == '\\')
        out_ << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20) {
        char code[8];
        std::snprintf(code, sizeof(code), "\\u%04x", unsigned(static_cast<unsigned char>(c)));
        out_ << code;
      } else
        out_ << c;
    }
    out_ << "\"";
    return *this;
  }
  Line& boolean(const char* key, bool v) {
    out_ << ", \"" << key << "\": " << (v ? "true" : "false");
    return *this;
  }
  void print() {
    std::printf("%s}\n", out_.str().c_str());
    std::fflush(stdout);
  }

 private:
  std::ostringstream out_;
};

// The median of repeated measurements (the upper middle one of an even count), NaN for none: how
// every bench reports a figure measured over repetitions.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

// The bytes a copy-bound measurement moves by default: 32 MiB on a CPU device, 256 MiB on a GPU
// (past its caches, within lavapipe's patience).
inline uint64_t default_copy_bytes(const Device& dev) { return uint64_t(dev.info().type == "cpu" ? 32 : 256) << 20; }

// The device's streaming bound measured in the same run: the engine's copy kernel over `bytes`
// (at the device's kernel shape), median of `runs`, in GB/s counting bytes read plus written.
inline double copy_bound_gb_per_s(Device& dev, uint64_t bytes, uint32_t runs) {
  bytes = bytes / 16 * 16;
  Executable exe(dev, copy_program(bytes));
  exe.run();
  std::vector<double> ns;
  for (uint32_t r = 0; r < std::max(runs, 1u); ++r) {
    exe.run();
    ns.push_back(exe.timings().total_ns);
  }
  return 2.0 * double(bytes) / median(ns);
}

// One "<bench>.stage_bandwidth" line per kind of stage: its GPU time, the bytes its stages
// declare (each range once) and the effective bandwidth that gives, against the copy bound of
// the same run. `sizes` adds the bench's own size fields to every line.
template <class AddSizes>
void print_stage_bandwidth(const std::string& bench, const Device& dev, const std::vector<KindTime>& kinds,
                           double copy_gb_per_s, AddSizes&& sizes) {
  for (const KindTime& k : kinds) {
    if (k.ns <= 0) continue;
    Line line(bench + ".stage_bandwidth", dev);
    sizes(line);
    const double gbps = double(k.declared_bytes) / k.ns;
    line.str("kind", k.kind)
        .num("gpu_ns", k.ns)
        .num("declared_bytes", double(k.declared_bytes))
        .num("effective_gb_per_s", gbps)
        .num("copy_kernel_gb_per_s", copy_gb_per_s)
        .num("fraction_of_copy_bound", gbps / copy_gb_per_s)
        .print();
  }
}

int bench_engine(Device& dev, const cli::Args& args);
// weft bench all: argv as main() got it.
int bench_all(int argc, char** argv);

}  // namespace bench
}  // namespace weft
