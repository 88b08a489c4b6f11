#include "shell.h"

#include <chrono>
#include <cstdio>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

#include "statements.h"

namespace weft::db {

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n;");
  return a == std::string::npos || b < a ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", v);
  return buf;
}

class Shell {
 public:
  Shell(Session& session, std::ostream& out, ShellOptions options) : session_(session), out_(out), o_(std::move(options)) {}

  // One line of input; returns false at .quit.
  bool line(const std::string& text) {
    if (pending_.empty() && !text.empty() && text[0] == '.') return command(text);
    pending_ += text + "\n";
    while (const size_t n = complete_statement_length(pending_)) {
      const std::string sql = pending_.substr(0, n);
      pending_.erase(0, n);
      if (!blank_sql(sql)) statement(sql);
    }
    if (blank_sql(pending_)) pending_.clear();
    return true;
  }
  // End of input: a last statement without its ';' still runs.
  void finish() {
    if (!blank_sql(pending_)) statement(pending_);
    pending_.clear();
  }
  bool continuing() const { return !pending_.empty(); }
  int failures() const { return failures_; }

 private:
  void statement(const std::string& sql) {
    try {
      const std::string text = trimmed(sql);
      const ResultSet rs = session_.query(text);
      const bool modification = is_modification(text);
      if (!modification) out_ << (o_.mode == "csv" ? format_csv(rs, o_.headers) : format_table(rs));
      if (o_.timer) timer_line(modification);
    } catch (const Error& e) {
      error(e.what());
    }
  }

  void timer_line(bool modification) {
    const Session::Timing& t = session_.last_timing();
    if (modification) {
      out_ << "time: run " << ms(t.run_ms) << ", " << t.rows_affected << " row(s) changed\n";
      return;
    }
    out_ << "time: plan " << ms(t.plan_ms) << ", build " << ms(t.build_ms) << ", run "
         << ms(t.run_ms) << " (GPU " << ms(t.gpu_ms) << "), uploaded " << t.uploaded_bytes << " bytes"
         << (t.cached ? ", cached program" : "") << "\n";
  }

  void error(const std::string& what) {
    out_ << "error: " << what << "\n";
    ++failures_;
  }

  bool command(const std::string& line) {
    const std::vector<std::string> w = words(line);
    const std::string& c = w[0];
    try {
      if (c == ".quit" || c == ".exit") return false;
      if (c == ".help") out_ << help();
      else if (c == ".tables") tables();
      else if (c == ".schema") schema(w.size() > 1 ? w[1] : "");
      else if (c == ".timer" && w.size() == 2 && (w[1] == "on" || w[1] == "off")) o_.timer = w[1] == "on";
      else if (c == ".headers" && w.size() == 2 && (w[1] == "on" || w[1] == "off")) o_.headers = w[1] == "on";
      else if (c == ".mode" && w.size() == 2 && (w[1] == "table" || w[1] == "csv")) o_.mode = w[1];
      else if (c == ".load" && w.size() == 3) load(w[1], w[2]);
      else error("unknown or malformed command '" + trimmed(line) + "' (.help lists the commands)");
    } catch (const Error& e) {
      error(e.what());
    }
    return true;
  }

  static std::string help() {
    return ".tables | .schema [TABLE] | .timer on|off | .load NAME FILE.csv | .mode table|csv | .headers on|off | "
           ".quit\nSQL statements end with ';'\n";
  }

  void tables() {
    for (const Table& t : session_.database().tables())
      out_ << t.name << " (" << t.rows << " rows, " << t.columns.size() << " columns)\n";
  }

  void schema(const std::string& only) {
    const Database& db = session_.database();
    if (!only.empty() && db.find(only) < 0) return error("no table '" + only + "'");
    for (const Table& t : db.tables()) {
      if (!only.empty() && !iequals(t.name, only)) continue;
      out_ << "CREATE TABLE " << t.name << "(";
      for (size_t c = 0; c < t.columns.size(); ++c)
        out_ << (c ? ", " : "") << t.columns[c].name << " " << type_name(t.columns[c].type);
      out_ << ");\n";
    }
  }

  void load(const std::string& name, const std::string& file) {
    const auto t = std::chrono::steady_clock::now();
    session_.add_table(load_csv_file(file, name));
    const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    if (o_.timer) out_ << "time: load " << ms(load_ms) << "\n";
  }

  Session& session_;
  std::ostream& out_;
  ShellOptions o_;
  std::string pending_;
  int failures_ = 0;
};

}  // namespace

int run_shell(Session& session, std::istream& in, std::ostream& out, ShellOptions options) {
  const bool interactive = options.interactive;
  Shell shell(session, out, std::move(options));
  std::string line;
  for (;;) {
    if (interactive) out << (shell.continuing() ? "  ...> " : "weft> ") << std::flush;
    if (!std::getline(in, line)) break;
    if (!shell.line(line)) return shell.failures();
  }
  shell.finish();
  return shell.failures();
}

}  // namespace weft::db
