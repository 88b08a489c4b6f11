#include "cli.h"

#include <algorithm>
#include <cstdio>

namespace weft::cli {

std::unique_ptr<Device> open_device(const Args& args) {
  DeviceOptions o;
  o.select = args.get("device");
  o.validation = args.flag("validation");
  return Device::open(o);
}

bool Command::has_bench() const {
  if (run) return bench;
  for (const Verb& v : verbs)
    if (v.name == "bench") return true;
  return false;
}

int Command::dispatch(int argc, char** argv) const {
  if (run) return run(argc, argv);
  std::vector<std::string> words(argv, argv + argc);
  for (std::string& w : words)
    if (auto it = short_options.find(w); it != short_options.end()) w = it->second;
  std::vector<char*> args_v;
  for (std::string& w : words) args_v.push_back(w.data());
  const Args args = parse(int(args_v.size()), args_v.data(), 1, options, flags);
  const std::string verb = args.positional.empty() ? "" : args.positional[0];
  if (verb.empty() || verb == "help") {
    std::fputs(help.c_str(), verb.empty() ? stderr : stdout);
    return verb.empty() ? 2 : 0;
  }
  std::string known;
  for (const Verb& v : verbs) {
    if (v.name == verb || std::find(v.aliases.begin(), v.aliases.end(), verb) != v.aliases.end()) return v.run(args);
    known += (known.empty() ? "" : ", ") + v.name;
  }
  fail(ErrorCode::BadInput, "unknown " + name + " command '" + verb + "' (known: " + known + ")");
}

}  // namespace weft::cli
