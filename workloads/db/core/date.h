// SQLite's date(time-value, modifier, ...) for the constant dates TPC-H-style queries write, folded
// when the query is parsed (every argument must be a string literal): a 'YYYY-MM-DD' date and
// modifiers '[+-]N day|days|month|months|year|years' (case-insensitive, spaces before the unit).
// Days move along the calendar; months and years move their field and carry a day past the
// month's end into the next month, as SQLite does (2000-01-31 '+1 month' is 2000-03-02).
#pragma once

#include <string>
#include <vector>

namespace weft::db {

struct DateFold {
  std::string date;    // 'YYYY-MM-DD' when folded
  int refused = -1;    // else the argument refused (0: the date, k: modifier k)
  std::string why;     // and why
};

// A date outside 0000-01-01 .. 9999-12-31, an invalid one (2001-02-30), a time of day, a
// fractional amount or any other modifier ('start of month', 'weekday 1', hours, ...) is
// refused rather than approximated.
DateFold fold_date(const std::vector<std::string>& args);

}  // namespace weft::db
