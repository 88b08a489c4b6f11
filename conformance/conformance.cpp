#include "conformance.h"
#include "weft_engine_kernels.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <sstream>


namespace weft::conformance {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "FAIL";
    case Outcome::Skip: return "skip";
  }
  return "?";
}

namespace {

std::string& explicit_data_dir() {
  static std::string dir;
  return dir;
}

std::string data_dir() {
  if (!explicit_data_dir().empty()) return explicit_data_dir();
  if (const char* env = std::getenv("WEFT_DATA_DIR"); env && *env) return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : (exe.parent_path().parent_path() / "share" / "weft" / "data").string();
}

}  // namespace

bool large_tests_enabled() {
  const char* v = std::getenv("WEFT_LARGE_TESTS");
  return v && std::string(v) == "1";
}

void set_data_dir(const std::string& dir) { explicit_data_dir() = dir; }

std::string data_path(const std::string& relative) {
  const std::string dir = data_dir();
  if (dir.empty()) return {};
  const std::filesystem::path p = std::filesystem::path(dir) / relative;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

std::string data_not_found(const std::string& relative) {
  return relative + " not found under the data folder '" + data_dir() +
         "' (give `weft conformance --data DIR` or WEFT_DATA_DIR)";
}

std::string fmt_words(uint32_t got, uint32_t want) {
  std::ostringstream s;
  s << "got 0x" << std::hex << got << ", want 0x" << want;
  return s.str();
}

std::string str(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}


Result within(const std::string& what, const ErrorStats& e, double error, double bound) {
  if (error <= bound) return Result::pass({}, error);
  return Result::fail(what + ": error " + str(error) + " over " + str(bound) + " (" + e.describe() + ")", error);
}

std::vector<Case> engine_suite() {
  std::vector<Case> all = engine_cases();
  for (auto* group : {&far_segment_cases, &hostile_cases, &regulator_cases, &manifest_cases})
    for (Case& c : (*group)()) all.push_back(std::move(c));
  all.push_back(every_kernel_builds("engine", weft_engine_kernels));
  return all;
}

size_t DeviceReport::passed() const {
  size_t n = 0;
  for (auto& c : cases) n += c.result.outcome == Outcome::Pass;
  return n;
}
size_t DeviceReport::failed() const {
  size_t n = 0;
  for (auto& c : cases) n += c.result.outcome == Outcome::Fail;
  return n;
}
size_t DeviceReport::skipped() const {
  size_t n = 0;
  for (auto& c : cases) n += c.result.outcome == Outcome::Skip;
  return n;
}

DeviceReport run_cases(Device& device, const std::vector<Case>& cases, const std::string& filter) {
  DeviceReport report;
  report.device = device.info();
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    CaseReport r{c.name, c.tolerance, {}, 0};
    device.validation().clear();
    const auto t0 = std::chrono::steady_clock::now();
    try {
      r.result = c.run(device);
    } catch (const std::exception& e) {
      r.result = Result::fail(std::string("threw: ") + e.what());
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (device.validation().count() && r.result.outcome != Outcome::Fail)
      r.result = Result::fail("validation: " + device.validation().messages().front());
    if (r.result.outcome == Outcome::Skip && r.result.detail.empty()) r.result = Result::fail("skipped without a reason");
    report.cases.push_back(std::move(r));
  }
  return report;
}

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::string format_table(const std::vector<DeviceReport>& reports) {
  std::ostringstream out;
  for (const auto& rep : reports) {
    const auto& d = rep.device;
    out << "device " << d.index << ": " << d.name << " (" << d.type << ", driver " << d.driver << " " << d.driver_info
        << ", Vulkan " << d.api_string() << ", subgroup " << d.subgroup_size << ")\n";
    size_t width = 4;
    for (const auto& c : rep.cases) width = std::max(width, c.name.size());
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s  %-6s %10s %8s  %s\n", int(width), "case", "result", "worst err", "seconds",
                  "tolerance / detail");
    out << line;
    for (const auto& c : rep.cases) {
      std::snprintf(line, sizeof line, "  %-*s  %-6s %10.3g %8.3f  ", int(width), c.name.c_str(),
                    outcome_name(c.result.outcome), c.result.worst_error, c.seconds);
      out << line << c.tolerance;
      if (!c.result.detail.empty() && c.result.outcome != Outcome::Pass) out << " -- " << c.result.detail;
      out << "\n";
    }
    out << "  " << rep.passed() << " passed, " << rep.failed() << " failed, " << rep.skipped() << " skipped\n";
  }
  return out.str();
}

std::string format_json(const std::vector<DeviceReport>& reports) {
  std::ostringstream out;
  out << "{\"devices\": [";
  for (size_t i = 0; i < reports.size(); ++i) {
    const auto& rep = reports[i];
    const auto& d = rep.device;
    out << (i ? ", " : "") << "{\"index\": " << d.index << ", \"name\": \"" << json_escape(d.name) << "\", \"type\": \""
        << d.type << "\", \"driver\": \"" << json_escape(d.driver) << "\", \"driver_info\": \"" << json_escape(d.driver_info)
        << "\", \"api\": \"" << d.api_string() << "\", \"subgroup_size\": " << d.subgroup_size
        << ", \"passed\": " << rep.passed() << ", \"failed\": " << rep.failed() << ", \"skipped\": " << rep.skipped()
        << ", \"cases\": [";
    for (size_t k = 0; k < rep.cases.size(); ++k) {
      const auto& c = rep.cases[k];
      out << (k ? ", " : "") << "{\"name\": \"" << json_escape(c.name) << "\", \"result\": \""
          << (c.result.outcome == Outcome::Pass ? "pass" : c.result.outcome == Outcome::Fail ? "fail" : "skip")
          << "\", \"worst_error\": " << c.result.worst_error << ", \"seconds\": " << c.seconds << ", \"tolerance\": \""
          << json_escape(c.tolerance) << "\", \"detail\": \"" << json_escape(c.result.detail) << "\"}";
    }
    out << "]}";
  }
  out << "]}\n";
  return out.str();
}

std::string format_junit(const std::vector<DeviceReport>& reports) {
  auto xml = [](const std::string& in) {
    std::string out;
    for (char c : in) {
      switch (c) {
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '"': out += "&quot;"; break;
        default: out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? ' ' : c;
      }
    }
    return out;
  };
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (const auto& rep : reports) {
    double total = 0;
    for (const auto& c : rep.cases) total += c.seconds;
    out << "  <testsuite name=\"weft.conformance." << xml(rep.device.name) << "\" tests=\"" << rep.cases.size()
        << "\" failures=\"" << rep.failed() << "\" skipped=\"" << rep.skipped() << "\" time=\"" << total << "\">\n";
    for (const auto& c : rep.cases) {
      out << "    <testcase classname=\"" << xml(rep.device.name) << "\" name=\"" << xml(c.name) << "\" time=\"" << c.seconds
          << "\">";
      if (c.result.outcome == Outcome::Fail) out << "<failure message=\"" << xml(c.result.detail) << "\"/>";
      if (c.result.outcome == Outcome::Skip) out << "<skipped message=\"" << xml(c.result.detail) << "\"/>";
      out << "</testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace weft::conformance
