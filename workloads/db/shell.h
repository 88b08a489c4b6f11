// `weft db shell`: statements from a stream (stdin or a file) run in one Session, its tables
// resident across them: SELECTs print their rows, INSERT / UPDATE / DELETE change the tables
// (printing nothing, as sqlite3). SQL ends at ';' (outside literals and comments); a line starting with
// '.' outside a statement is a command:
//   .tables              the tables, their rows and columns
//   .schema [TABLE]      each table's columns and types
//   .timer on|off        after each query: plan, build, run and GPU time, bytes uploaded, whether
//                        the program came from the cache; after .load its load time
//   .load NAME FILE.csv  loads a table (types inferred)
//   .mode table|csv      how rows print (csv: as `sqlite3 -csv`)
//   .headers on|off      column names in csv mode
//   .help, .quit / .exit
// An error prints "error: ..." and the shell goes on with the next statement.
#pragma once

#include <iosfwd>
#include <string>

#include "db.h"

namespace weft::db {

struct ShellOptions {
  bool interactive = false;  // prompts ("weft> ", "  ...> ") on `out`
  std::string mode = "table";
  bool headers = false;
  bool timer = false;
};

// Runs every statement and command of `in`; returns the number of statements that failed.
int run_shell(Session& session, std::istream& in, std::ostream& out, ShellOptions options = {});

}  // namespace weft::db
