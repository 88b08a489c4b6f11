// weft bench: one JSON object per line, each naming the benchmark, the device and its figures.
#pragma once

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include <weft/device.h>

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
  Line& str(const char* key, const std::string& v) {
    out_ << ", \"" << key << "\": \"" << v << "\"";
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

int bench_engine(Device& dev, const cli::Args& args);
// weft bench all: argv as main() got it.
int bench_all(int argc, char** argv);

}  // namespace bench
}  // namespace weft
