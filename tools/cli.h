// What every `weft` command shares: the command record a workload registers, argument
// handling, and opening the device a command runs on.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <weft/device.h>
#include <weft/error.h>

namespace weft::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // --name value (the last one given)
  std::map<std::string, std::vector<std::string>> all_values;  // every value of a repeated --name, in order
  std::set<std::string> flags;                 // --name

  bool flag(const std::string& name) const { return flags.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = {}) const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
  }
  std::vector<std::string> get_all(const std::string& name) const {
    auto it = all_values.find(name);
    return it == all_values.end() ? std::vector<std::string>{} : it->second;
  }
  uint64_t get_uint(const std::string& name, uint64_t fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    const std::string& v = it->second;
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
      fail(ErrorCode::BadInput, "--" + name + " expects a non-negative integer, got '" + v + "'");
    return std::stoull(v);
  }
};

struct Args;

// One verb of a command (`weft NAME VERB ...`), called with the command's options parsed;
// positional[0] is the verb.
struct Verb {
  std::string name;
  int (*run)(const Args& args) = nullptr;
  std::vector<std::string> aliases = {};  // older names it still answers to
};

// A `weft NAME ...` command. A workload's CLI source defines `Command NAME_command()`
// (cmake/WeftWorkload.cmake registers it). Most commands are verbs over one option set; one that
// parses per verb sets `run` instead.
struct Command {
  std::string name;                  // `weft NAME`, the workload's name with '_' as '-'
  std::vector<std::string> aliases;  // other names it answers to
  std::set<std::string> options;     // --name VALUE options its verbs take
  std::set<std::string> flags;       // --name options without a value
  std::vector<Verb> verbs;
  std::string usage;                 // lines for `weft help`, each starting with two spaces
  std::string help;                  // its own usage: `weft NAME help`, or no verb (then on stderr, exit 2)
  std::map<std::string, std::string> short_options = {};  // e.g. "-n" -> "--n"
  int (*run)(int argc, char** argv) = nullptr;  // instead of verbs; argv[0] is the name it was called by
  bool bench = false;                // with `run`: it has a bench verb

  // `weft bench NAME ...` runs `weft NAME bench ...`.
  bool has_bench() const;
  // argv[0] is the name it was called by, argv[1] the verb. BadInput for an unknown verb or option.
  int dispatch(int argc, char** argv) const;
};

// Defines the function the registry calls for a workload's command: WEFT_CLI_COMMAND(gnn) { return {...}; }
#define WEFT_CLI_COMMAND(NAME)   \
  namespace weft::cli {          \
  Command NAME##_command();      \
  }                              \
  weft::cli::Command weft::cli::NAME##_command()

// --name as a uint32 (at most `max`), or `fallback` when absent; BadInput naming the option.
inline uint32_t u32(const Args& a, const char* name, uint32_t fallback, uint64_t max = 0xFFFFFFFFu) {
  const uint64_t v = a.get_uint(name, fallback);
  if (v > max) fail(ErrorCode::BadInput, std::string("--") + name + " is too large (at most " + std::to_string(max) + ")");
  return uint32_t(v);
}

// `t` as a finite float; BadInput naming `what` (an option) otherwise.
inline float finite_float(const std::string& t, const std::string& what) {
  try {
    size_t used = 0;
    const float v = std::stof(t, &used);
    if (used == t.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  fail(ErrorCode::BadInput, what + " expects a finite number, got '" + t + "'");
}

// Comma-separated finite floats ("1,2.5,4"), each as finite_float reads it.
inline std::vector<float> floats(const std::string& text, const std::string& what) {
  std::vector<float> v;
  for (size_t i = 0; i <= text.size();) {
    const size_t j = std::min(text.find(',', i), text.size());
    v.push_back(finite_float(text.substr(i, j - i), what));
    i = j + 1;
  }
  return v;
}

// --name as a finite float, or `fallback` when absent; BadInput naming the option.
inline float f32(const Args& a, const char* name, float fallback) {
  const std::string t = a.get(name);
  if (t.empty()) return fallback;
  return finite_float(t, std::string("--") + name);
}

// `s` as one word for /bin/sh: single-quoted, its own single quotes escaped.
inline std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `with_value`: options that take a value; `known_flags`: options that do not. Anything else
// starting with -- is an error naming it.
inline Args parse(int argc, char** argv, int first, const std::set<std::string>& with_value,
                  const std::set<std::string>& known_flags) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0 || s == "--") {
      a.positional.push_back(s);
      continue;
    }
    std::string name = s.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (with_value.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) fail(ErrorCode::BadInput, "--" + name + " needs a value");
        value = argv[++i];
      }
      a.options[name] = value;
      a.all_values[name].push_back(value);
    } else if (known_flags.count(name) && !inline_value) {
      a.flags.insert(name);
    } else {
      fail(ErrorCode::BadInput, "unknown option --" + name + " (see weft help)");
    }
  }
  return a;
}

// The device a command runs on: --device SEL (index or name part; WEFT_DEVICE otherwise) and
// --validation (the Khronos validation layer, its messages printed).
std::unique_ptr<Device> open_device(const Args& args);

}  // namespace weft::cli
