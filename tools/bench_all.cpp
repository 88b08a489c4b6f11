// weft bench all: every benchmark this build has, each run as a child process of this binary (a
// bench that fails, hangs or runs out of memory costs only its own lines), into one folder:
// NAME.jsonl (its JSON lines), NAME.log (its stderr), NAME.run.json (exit code, seconds), then a
// Markdown report with plots over every bench in the folder (tools/bench_report.py), so running
// a few again (--only) updates them in a report that keeps the others.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "registry.h"

namespace weft::bench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Bench {
  std::string name;               // what the report calls it
  std::vector<std::string> args;  // after `weft bench`
};

// Every benchmark of this build: the engine's, each registered workload's, and the tokenizer's
// when a tokenizer.json is at hand.
std::vector<Bench> all_benches(const cli::Args& args) {
  std::vector<Bench> out{{"engine", {"engine"}}};
  for (const cli::Command& c : registry::commands())
    if (c.has_bench()) out.push_back({c.name, {c.name}});
  std::string tokenizer = args.get("tokenizer", "");
#ifdef WEFT_BENCH_TOKENIZER
  if (tokenizer.empty() && fs::exists(WEFT_BENCH_TOKENIZER)) tokenizer = WEFT_BENCH_TOKENIZER;
#endif
  if (!tokenizer.empty()) out.push_back({"tokenizer", {"tokenizer", "--tokenizer", tokenizer}});
  return out;
}

std::set<std::string> name_list(const cli::Args& args, const char* key) {
  std::set<std::string> out;
  std::stringstream in(args.get(key, ""));
  for (std::string n; std::getline(in, n, ',');)
    if (!n.empty()) out.insert(n);
  return out;
}

std::vector<Bench> chosen_benches(const cli::Args& args) {
  const auto only = name_list(args, "only"), skip = name_list(args, "skip");
  std::vector<Bench> all = all_benches(args), out;
  std::set<std::string> known;
  for (const Bench& b : all) known.insert(b.name);
  for (const auto* names : {&only, &skip})
    for (const std::string& n : *names)
      if (!known.count(n)) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        fail(ErrorCode::BadInput, "weft bench all: no benchmark '" + n + "' (this build has: " + list + ")");
      }
  for (const Bench& b : all)
    if ((only.empty() || only.count(b.name)) && !skip.count(b.name)) out.push_back(b);
  return out;
}

struct Outcome {
  int exit_code = 0;  // -1: stopped at the time limit
  double seconds = 0;
  size_t lines = 0;
};

// Runs `weft bench ARGS --device SEL` with stdout into `json` and stderr into `log`, printing a
// heartbeat while it runs; stops it after `limit_s`.
Outcome run_child(const Bench& b, const std::string& device, const fs::path& json, const fs::path& log, double limit_s) {
  std::vector<std::string> argv_s{"weft", "bench"};
  argv_s.insert(argv_s.end(), b.args.begin(), b.args.end());
  if (!device.empty()) argv_s.insert(argv_s.end(), {"--device", device});
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) fail(ErrorCode::OutOfMemory, "weft bench all: fork failed (no process for the next benchmark)");
  if (pid == 0) {
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!std::freopen(json.c_str(), "w", stdout) || !std::freopen(log.c_str(), "w", stderr)) ::_exit(126);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  Outcome out;
  int status = 0;
  double next_note = 30;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (done == pid) break;
    if (out.seconds > limit_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      out.exit_code = -1;
      break;
    }
    if (out.seconds > next_note) {
      std::fprintf(stderr, "    ... %s still running, %.0f s\n", b.name.c_str(), out.seconds);
      next_note += 30;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (out.exit_code == 0) out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(json);
  for (std::string line; std::getline(in, line);) out.lines += !line.empty();
  return out;
}

// tools/bench_report.py over the folder: report.md and the plots; says so when it cannot run.
void write_report(const fs::path& dir) {
#ifdef WEFT_BENCH_REPORT_SCRIPT
  const std::string script = WEFT_BENCH_REPORT_SCRIPT;
#else
  const std::string script;
#endif
  if (script.empty() || !fs::exists(script)) {
    std::fprintf(stderr, "weft bench all: no report: the report script (tools/bench_report.py) is not installed here\n");
    return;
  }
  // Debian's python3 has matplotlib from the set-up; another python3 first on PATH may not.
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string command = python + " " + cli::shell_quoted(script) + " " + cli::shell_quoted(dir.string());
  if (std::system(command.c_str()) != 0)
    std::fprintf(stderr, "weft bench all: the report script failed; the JSON lines are in %s\n", dir.c_str());
}

}  // namespace

int bench_all(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, 3, {"out", "device", "only", "skip", "tokenizer", "limit-s"}, {"list"});
  const std::vector<Bench> benches = chosen_benches(args);
  if (args.flag("list")) {
    for (const Bench& b : benches) std::printf("%s\n", b.name.c_str());
    return 0;
  }
  const fs::path dir = args.get("out", "bench-all");
  fs::create_directories(dir);
  const double limit_s = double(args.get_uint("limit-s", 3600));
  int failed = 0;
  for (size_t k = 0; k < benches.size(); ++k) {
    const Bench& b = benches[k];
    std::fprintf(stderr, "[%zu/%zu] weft bench %s\n", k + 1, benches.size(), b.name.c_str());
    const fs::path json = dir / (b.name + ".jsonl"), log = dir / (b.name + ".log");
    const Outcome o = run_child(b, args.get("device", ""), json, log, limit_s);
    std::ofstream(dir / (b.name + ".run.json")) << "{\"bench\": \"" << b.name << "\", \"exit_code\": " << o.exit_code
                                                << ", \"seconds\": " << o.seconds << ", \"lines\": " << o.lines << "}\n";
    const bool ok = o.exit_code == 0;
    failed += !ok;
    std::fprintf(stderr, "    %s in %.1f s, %zu lines%s\n", ok ? "done" : o.exit_code < 0 ? "STOPPED at the time limit" : "FAILED",
                 o.seconds, o.lines, ok ? "" : (" (see " + log.string() + ")").c_str());
  }
  write_report(dir);
  std::fprintf(stderr, "weft bench all: %zu benchmarks, %d failed; results in %s\n", benches.size(), failed, dir.c_str());
  return failed ? 1 : 0;
}

}  // namespace weft::bench
