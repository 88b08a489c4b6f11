#include "date.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace weft::db {

namespace {

struct Civil {
  int64_t y = 0, m = 1, d = 1;
};

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int64_t month_days(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days since 0000-03-01 of the proleptic Gregorian calendar, counted in 400-year eras (146097
// days each) with the year starting in March, so the leap day is the last day of a year.
int64_t days_of(Civil c) {
  const int64_t y = c.m <= 2 ? c.y - 1 : c.y;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t mp = (c.m + 9) % 12;  // March = 0
  const int64_t doy = (153 * mp + 2) / 5 + c.d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe;
}

Civil civil_of(int64_t days) {
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  Civil c;
  c.d = doy - (153 * mp + 2) / 5 + 1;
  c.m = mp < 10 ? mp + 3 : mp - 9;
  c.y = yoe + era * 400 + (c.m <= 2 ? 1 : 0);
  return c;
}

// y-m-d with the month possibly outside 1..12 and the day past the month's end: the month is
// carried into the year, then the day along the calendar.
Civil normalized(int64_t y, int64_t m, int64_t d) {
  y += (m - 1 >= 0 ? (m - 1) / 12 : -((12 - m) / 12));
  m = ((m - 1) % 12 + 12) % 12 + 1;
  return civil_of(days_of({y, m, 1}) + d - 1);
}

bool digits(const std::string& s, size_t from, size_t n) {
  for (size_t i = from; i < from + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool parse_date(const std::string& s, Civil& c) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 0, 4) || !digits(s, 5, 2) || !digits(s, 8, 2)) return false;
  c = {std::stoll(s.substr(0, 4)), std::stoll(s.substr(5, 2)), std::stoll(s.substr(8, 2))};
  return c.m >= 1 && c.m <= 12 && c.d >= 1 && c.d <= month_days(c.y, c.m);
}

bool unit_is(std::string u, const char* one) {
  for (char& ch : u) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  const std::string o = one;
  return u == o || u == o + "s";
}

// '[+-]N unit': false with `why` set when the modifier is not one Weft folds.
bool apply(const std::string& m, Civil& c, std::string& why) {
  size_t i = 0;
  const bool minus = i < m.size() && m[i] == '-';
  if (i < m.size() && (m[i] == '+' || m[i] == '-')) ++i;
  const size_t start = i;
  while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) ++i;
  const size_t spaces = i;
  while (i < m.size() && m[i] == ' ') ++i;
  if (start == spaces || spaces - start > 7 || i == spaces || (spaces < m.size() && m[spaces] == '.')) {
    why = "is not a modifier Weft folds ('[+-]N days', '[+-]N months' or '[+-]N years', N a whole number)";
    return false;
  }
  const int64_t n = (minus ? -1 : 1) * std::stoll(m.substr(start, spaces - start));
  const std::string unit = m.substr(i);
  if (unit_is(unit, "day")) c = civil_of(days_of(c) + n);
  else if (unit_is(unit, "month")) c = normalized(c.y, c.m + n, c.d);
  else if (unit_is(unit, "year")) c = normalized(c.y + n, c.m, c.d);
  else {
    why = "has the unit '" + unit + "'; Weft folds days, months and years";
    return false;
  }
  return true;
}

}  // namespace

DateFold fold_date(const std::vector<std::string>& args) {
  DateFold out;
  Civil c;
  if (!parse_date(args[0], c)) {
    out.refused = 0;
    out.why = "'" + args[0] + "' is not a valid 'YYYY-MM-DD' date (Weft folds date() of such dates only)";
    return out;
  }
  for (size_t k = 1; k < args.size(); ++k) {
    std::string why;
    if (!apply(args[k], c, why)) {
      out.refused = int(k);
      out.why = "the modifier '" + args[k] + "' " + why;
      return out;
    }
    if (c.y < 0 || c.y > 9999) {
      out.refused = int(k);
      out.why = "the modifier '" + args[k] + "' leaves the years 0000..9999";
      return out;
    }
  }
  char text[16];
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lld", (long long)c.y, (long long)c.m, (long long)c.d);
  out.date = text;
  return out;
}

}  // namespace weft::db
