#include "sql.h"

#include <cctype>

#include <weft/error.h>

#include "csv.h"
#include "date.h"
#include "table.h"
#include "text_functions.h"

namespace weft::db {

const char* agg_name(AggFn f) {
  switch (f) {
    case AggFn::Count: return "COUNT";
    case AggFn::Sum: return "SUM";
    case AggFn::Min: return "MIN";
    case AggFn::Max: return "MAX";
    case AggFn::Avg: return "AVG";
  }
  return "?";
}

namespace {

enum class Tok { End, Ident, QuotedIdent, Int, Float, String, Op };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier, literal body, or operator
  size_t line = 1, col = 1, begin = 0, end = 0;
};

constexpr size_t kMaxDepth = 200;  // nesting bound: deep input is an error, not a stack overflow
// Height bound of an expression tree. Operator chains (a + b + c ...) are parsed by loops, not
// recursion, so kMaxDepth does not see them, but everything after the parser walks the tree
// recursively (a chain of 60000 '+' overflowed the stack). The bound is far above anything that
// compiles: a compiled expression holds at most DB_MAX_INSTR (256) instructions.
constexpr size_t kMaxHeight = 1000;

[[noreturn]] void err(size_t line, size_t col, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
}

std::vector<Token> lex(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0, line = 1, col = 1;
  auto step = [&](size_t n) {
    for (size_t k = 0; k < n; ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      step(1);
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // comment to end of line
      while (i < s.size() && s[i] != '\n') step(1);
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      // Block comment; as in SQLite, an unterminated one runs to the end of the text.
      const size_t close = s.find("*/", i + 2);
      step((close == std::string::npos ? s.size() : close + 2) - i);
      continue;
    }
    Token t;
    t.line = line;
    t.col = col;
    t.begin = i;
    auto ident_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      t.kind = Tok::Ident;
      t.text = s.substr(i, j - i);
      step(j - i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i;
      bool is_float = false;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && s[j] == '.') {
        is_float = true;
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
          is_float = true;
          j = k;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
      }
      if (j < s.size() && ident_char(s[j])) err(line, col + (j - i), "malformed number '" + s.substr(i, j - i + 1) + "'");
      t.text = s.substr(i, j - i);
      t.kind = is_float ? Tok::Float : Tok::Int;
      step(j - i);
    } else if (c == '\'' || c == '"') {
      // 'string' or "identifier"; the quote doubled stands for itself
      size_t j = i + 1;
      std::string body;
      for (;;) {
        if (j >= s.size()) err(line, col, c == '\'' ? "unterminated string literal" : "unterminated quoted identifier");
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {
            body += c;
            j += 2;
            continue;
          }
          ++j;
          break;
        }
        body += s[j++];
      }
      t.kind = c == '\'' ? Tok::String : Tok::QuotedIdent;
      if (t.kind == Tok::QuotedIdent && body.empty()) err(line, col, "empty quoted identifier");
      t.text = body;
      step(j - i);
    } else {
      static const char* two[] = {"<=", ">=", "<>", "!=", "==", "||"};
      t.kind = Tok::Op;
      for (const char* op : two)
        if (s.compare(i, 2, op) == 0) t.text = op;
      if (t.text.empty()) {
        if (std::string("+-*/%=<>(),.;").find(c) == std::string::npos) {
          const unsigned char u = static_cast<unsigned char>(c);
          err(line, col, u >= 32 && u < 127 ? std::string("unexpected character '") + c + "'"
                                            : "unexpected byte " + std::to_string(u));
        }
        t.text = std::string(1, c);
      }
      step(t.text.size());
    }
    t.end = i;
    out.push_back(std::move(t));
  }
  Token end;
  end.line = line;
  end.col = col;
  end.begin = end.end = s.size();
  out.push_back(end);
  return out;
}

// Keywords, never names: the subset's own and those of the SQL forms it refuses by name (a
// reserved word read as an alias turned `FROM l LEFT JOIN r` into an inner join of l AS LEFT).
const char* kReserved[] = {"SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "OFFSET", "JOIN", "INNER", "ON",
                           "AS", "AND", "OR", "NOT", "IS", "NULL", "ASC", "DESC", "LEFT", "RIGHT", "FULL", "OUTER",
                           "CROSS", "NATURAL", "USING", "ALL", "DISTINCT", "HAVING", "CASE", "WHEN", "THEN", "ELSE",
                           "END", "IN", "BETWEEN", "LIKE", "GLOB", "REGEXP", "MATCH", "ESCAPE", "COLLATE", "EXISTS",
                           "CAST", "UNION", "INTERSECT", "EXCEPT", "WITH", "OVER", "FILTER", "WINDOW", "INSERT",
                           "UPDATE", "DELETE", "VALUES"};

// Statements other than SELECT, named when a query starts with one.
const char* kOtherStatements[] = {"WITH", "INSERT", "UPDATE", "DELETE", "VALUES", "CREATE", "DROP", "ALTER",
                                  "REPLACE", "PRAGMA", "EXPLAIN", "ATTACH", "BEGIN"};

class Parser {
 public:
  explicit Parser(const std::string& sql) : sql_(std::make_shared<const std::string>(sql)), toks_(lex(sql)) {}

  Query query() {
    std::vector<CommonTable> with = with_clause();
    for (const char* kw : kOtherStatements) {
      if (!peek_kw(kw)) continue;
      const std::string k = upper(kw);
      if (k == "INSERT" || k == "UPDATE" || k == "DELETE")  // modifications have their own entry point
        err_here(k + " changes a table, and a query is one SELECT: run it in `weft db shell` (or Session::query, weft.db)");
      err_here(k + " is not supported (one SELECT statement only)");
    }
    Query q = select();
    q.with = std::move(with);
    accept_op(";");
    if (cur().kind != Tok::End) err_here("unexpected '" + cur().text + "' after the end of the query");
    return q;
  }

  ModificationStatement modification() {
    if (peek_kw("WITH")) err_here("WITH before INSERT, UPDATE or DELETE is not supported");
    ModificationStatement m;
    if (accept_kw("INSERT")) insert(m);
    else if (accept_kw("UPDATE")) update(m);
    else if (accept_kw("DELETE")) delete_from(m);
    else err_here(std::string("expected INSERT, UPDATE or DELETE") + got());
    if (peek_kw("RETURNING")) err_here("RETURNING is not supported");
    accept_op(";");
    if (cur().kind != Tok::End) err_here("unexpected '" + cur().text + "' after the end of the statement");
    return m;
  }

 private:
  // The modified table's name; an alias or a schema name is refused where it starts.
  void target_table(ModificationStatement& m) {
    m.table_line = cur().line;
    m.table_col = cur().col;
    m.table = name("a table name");
    if (peek_op(".")) err_here("a schema name before the table is not supported");
    if (peek_kw("AS")) err_here("an alias of the modified table is not supported");
  }
  void insert(ModificationStatement& m) {
    m.kind = ModificationKind::Insert;
    if (peek_kw("OR")) err_here("INSERT OR ... is not supported (Weft tables have no constraints to resolve)");
    expect_kw("INTO");
    target_table(m);
    if (accept_op("(")) {
      do {
        m.column_at.emplace_back(cur().line, cur().col);
        m.columns.push_back(name("a column name"));
      } while (accept_op(","));
      expect_op(")");
    }
    if (peek_kw("DEFAULT")) err_here("DEFAULT VALUES is not supported (Weft columns have no defaults)");
    if (peek_kw("WITH")) err_here("WITH in INSERT ... SELECT is not supported");
    if (peek_kw("SELECT")) {
      m.select_line = cur().line;
      m.select_col = cur().col;
      m.select = std::make_shared<Query>(select());
      return;
    }
    expect_kw("VALUES");
    do {
      m.row_at.emplace_back(cur().line, cur().col);
      expect_op("(");
      std::vector<ExprPtr> row;
      do row.push_back(expr());
      while (accept_op(","));
      expect_op(")");
      m.values.push_back(std::move(row));
    } while (accept_op(","));
  }
  void update(ModificationStatement& m) {
    m.kind = ModificationKind::Update;
    if (peek_kw("OR")) err_here("UPDATE OR ... is not supported (Weft tables have no constraints to resolve)");
    target_table(m);
    expect_kw("SET");
    do {
      Assignment a;
      a.line = cur().line;
      a.col = cur().col;
      if (peek_op("(")) err_here("SET (column, ...) = ... is not supported; assign each column");
      a.column = name("a column name");
      if (peek_op(".")) err_here("a qualified column in SET is not supported");
      expect_op("=");
      a.value = expr();
      m.set.push_back(std::move(a));
    } while (accept_op(","));
    if (peek_kw("FROM")) err_here("UPDATE ... FROM is not supported");
    where_tail(m);
  }
  void delete_from(ModificationStatement& m) {
    m.kind = ModificationKind::Delete;
    expect_kw("FROM");
    target_table(m);
    where_tail(m);
  }
  // [WHERE expr] of UPDATE and DELETE; SQLite's optional ORDER BY / LIMIT there is refused.
  void where_tail(ModificationStatement& m) {
    if (accept_kw("WHERE")) m.where = expr();
    for (const char* kw : {"ORDER", "LIMIT"})
      if (peek_kw(kw)) err_here(upper(kw) + " in UPDATE or DELETE is not supported");
  }

  // One SELECT, from its keyword to its last clause: the whole query, or a subquery in
  // parentheses.
  Query select() {
    Query q;
    expect_kw("SELECT");
    if (peek_kw("DISTINCT")) {
      q.distinct_line = cur().line;
      q.distinct_col = cur().col;
      next();
      q.distinct = true;
    } else {
      accept_kw("ALL");  // the default: keep duplicate rows
    }
    do {
      SelectItem it;
      if (peek_op("*")) {
        next();
        q.select.push_back(it);
        continue;
      }
      it.expr = expr();
      if (accept_kw("AS")) {
        it.alias = name("an alias");
      } else if (is_plain_name()) {
        it.alias = name("an alias");
      }
      q.select.push_back(it);
    } while (accept_op(","));
    expect_kw("FROM");
    q.from = table_ref();
    while (peek_join() || peek_op(",")) {
      if (peek_op(",")) comma_join(q);
      else join_clause(q);
    }
    if (accept_kw("WHERE")) q.where = expr();
    if (accept_kw("GROUP")) {
      expect_kw("BY");
      do q.group_by.push_back(expr());
      while (accept_op(","));
    }
    if (accept_kw("HAVING")) q.having = expr();
    if (accept_kw("ORDER")) {
      expect_kw("BY");
      do {
        OrderItem o;
        o.expr = expr();
        if (accept_kw("DESC")) o.desc = true;
        else accept_kw("ASC");
        q.order_by.push_back(o);
      } while (accept_op(","));
    }
    if (accept_kw("LIMIT")) {
      q.limit = count("LIMIT");
      if (accept_kw("OFFSET")) q.offset = count("OFFSET");
    }
    for (const char* kw : {"UNION", "INTERSECT", "EXCEPT", "WINDOW"})
      if (peek_kw(kw)) err_here(upper(kw) + " is not supported");
    return q;
  }

  // Whether the query so far joins with commas / with JOIN; a query uses one form or the other
  // (the planner orders comma-joined tables by their WHERE keys, which JOIN ... ON fixes).
  static bool has_join_kind(const Query& q, bool comma) {
    for (const JoinClause& j : q.joins)
      if ((j.kind == JoinKind::Comma) == comma) return true;
    return false;
  }
  void refuse_more_tables(const Query& q) const {
    if (q.joins.size() + 1 >= kMaxTables)
      err_here("a join of more than " + std::to_string(kMaxTables) + " tables is not supported");
  }
  [[noreturn]] void refuse_mixed_joins() const {
    err_here("comma joins mixed with JOIN in one FROM are not supported (list every table with commas, or join "
             "every table with JOIN ... ON)");
  }
  // `, table [[AS] alias]`: an inner join whose key the planner finds among the WHERE conjuncts.
  void comma_join(Query& q) {
    JoinClause j;
    j.line = cur().line;
    j.col = cur().col;
    if (has_join_kind(q, false)) refuse_mixed_joins();
    refuse_more_tables(q);
    expect_op(",");
    j.kind = JoinKind::Comma;
    j.table = table_ref();
    q.joins.push_back(std::move(j));
  }
  // [INNER] JOIN or LEFT [OUTER] JOIN, then the table and ON; the other join kinds are refused
  // by name where they start.
  bool peek_join() const {
    for (const char* kw : {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS", "NATURAL"})
      if (peek_kw(kw)) return true;
    return false;
  }
  // Inner joins chain up to kMaxTables tables; a LEFT JOIN only joins two (FROM a LEFT JOIN b).
  void join_clause(Query& q) {
    JoinClause j;
    const Token& at = cur();
    j.line = at.line;
    j.col = at.col;
    for (const char* kw : {"RIGHT", "FULL", "CROSS", "NATURAL"})
      if (peek_kw(kw)) err_here(upper(kw) + " JOIN is not supported (JOIN and LEFT JOIN are)");
    if (peek_kw("OUTER")) err_here("OUTER JOIN needs LEFT before it (LEFT OUTER JOIN)");
    if (has_join_kind(q, true)) refuse_mixed_joins();
    refuse_more_tables(q);
    if (accept_kw("LEFT")) {
      j.kind = JoinKind::Left;
      accept_kw("OUTER");
    } else {
      accept_kw("INNER");
    }
    const bool after_left = !q.joins.empty() && q.joins.back().kind == JoinKind::Left;
    if ((j.kind == JoinKind::Left && !q.joins.empty()) || after_left)
      err(j.line, j.col, "LEFT JOIN with more than two tables is not supported (a LEFT JOIN joins two tables: "
                         "FROM a LEFT JOIN b ON ...; inner JOINs chain up to " + std::to_string(kMaxTables) + ")");
    expect_kw("JOIN");
    j.table = table_ref();
    if (peek_kw("USING")) err_here("JOIN ... USING is not supported; use ON");
    expect_kw("ON");
    j.on = expr();
    q.joins.push_back(std::move(j));
  }
  static std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }
  const Token& cur() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  [[noreturn]] void err_here(const std::string& msg) const { err(cur().line, cur().col, msg); }
  bool peek_kw(const char* kw) const { return cur().kind == Tok::Ident && iequals(cur().text, kw); }
  bool accept_kw(const char* kw) {
    if (!peek_kw(kw)) return false;
    next();
    return true;
  }
  void expect_kw(const char* kw) {
    if (!accept_kw(kw)) err_here(std::string("expected ") + kw + got());
  }
  std::string got() const {
    return cur().kind == Tok::End ? " at the end of the query" : ", got '" + cur().text + "'";
  }
  bool peek_op(const char* op) const { return cur().kind == Tok::Op && cur().text == op; }
  bool accept_op(const char* op) {
    if (!peek_op(op)) return false;
    next();
    return true;
  }
  void expect_op(const char* op) {
    if (!accept_op(op)) err_here(std::string("expected '") + op + "'" + got());
  }
  static bool reserved(const std::string& w) {
    for (const char* k : kReserved)
      if (iequals(w, k)) return true;
    return false;
  }
  bool is_plain_name() const {
    return cur().kind == Tok::QuotedIdent || (cur().kind == Tok::Ident && !reserved(cur().text));
  }
  std::string name(const char* what) {
    if (!is_plain_name()) err_here(std::string("expected ") + what + got());
    return next().text;
  }
  int64_t count(const char* what) {
    if (cur().kind != Tok::Int) err_here(std::string(what) + " expects a non-negative integer" + got());
    auto v = parse_int64(cur().text);
    if (!v) err_here(std::string(what) + " value out of range");
    next();
    return *v;
  }
  // WITH name [(column, ...)] AS (SELECT ...), ... before the main SELECT; none without WITH.
  std::vector<CommonTable> with_clause() {
    std::vector<CommonTable> with;
    if (!accept_kw("WITH")) return with;
    if (peek_kw("RECURSIVE")) err_here("WITH RECURSIVE is not supported (only non-recursive WITH)");
    do {
      CommonTable c;
      c.line = cur().line;
      c.col = cur().col;
      c.name = name("a common table name");
      if (accept_op("(")) {
        do c.columns.push_back(name("a column name"));
        while (accept_op(","));
        expect_op(")");
      }
      expect_kw("AS");
      for (const char* kw : {"MATERIALIZED", "NOT"})
        if (peek_kw(kw)) err_here("WITH ... AS " + upper(kw) + " is not supported");
      expect_op("(");
      if (!peek_kw("SELECT")) err_here(std::string("expected SELECT in WITH ... AS (...)") + got());
      c.query = subquery();
      with.push_back(std::move(c));
    } while (accept_op(","));
    return with;
  }
  TableRef table_ref() {
    TableRef t;
    t.line = cur().line;
    t.col = cur().col;
    if (accept_op("(")) {  // a derived table
      if (!peek_kw("SELECT")) err_here(std::string("expected SELECT in a derived table (FROM (SELECT ...))") + got());
      t.derived = subquery();
    } else {
      t.name = name("a table name");
    }
    if (accept_kw("AS")) t.alias = name("a table alias");
    else if (is_plain_name()) t.alias = next().text;
    return t;
  }

  ExprPtr make(ExprKind k, const Token& at) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->line = at.line;
    e->col = at.col;
    return e;
  }
  ExprPtr finish(ExprPtr e, size_t begin_tok) {
    const size_t b = toks_[begin_tok].begin, end = toks_[pos_ > begin_tok ? pos_ - 1 : begin_tok].end;
    e->source = sql_;
    e->begin = b;
    e->end = end;
    for (const ExprPtr& a : e->args) e->height = std::max(e->height, a->height + 1);
    if (e->height > kMaxHeight)
      err(e->line, e->col, "expression nested too deeply (more than " + std::to_string(kMaxHeight) + " levels of operators)");
    return e;
  }
  struct Depth {
    size_t& d;
    Depth(size_t& depth, const Token& at) : d(depth) {
      if (++d > kMaxDepth) err(at.line, at.col, "expression nested too deeply");
    }
    ~Depth() { --d; }
  };

  ExprPtr expr() {
    Depth guard(depth_, cur());
    return or_expr();
  }
  ExprPtr binary(const std::string& op, ExprPtr l, ExprPtr r, size_t begin) {
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::Binary;
    e->op = op;
    e->line = l->line;
    e->col = l->col;
    e->args = {l, r};
    return finish(e, begin);
  }
  ExprPtr or_expr() {
    const size_t b = pos_;
    ExprPtr l = and_expr();
    while (accept_kw("OR")) l = binary("OR", l, and_expr(), b);
    return l;
  }
  ExprPtr and_expr() {
    const size_t b = pos_;
    ExprPtr l = not_expr();
    while (accept_kw("AND")) l = binary("AND", l, not_expr(), b);
    return l;
  }
  ExprPtr not_expr() {
    if (peek_kw("NOT")) {
      Depth guard(depth_, cur());
      const size_t b = pos_;
      auto e = make(ExprKind::Unary, next());
      e->op = "NOT";
      e->args = {not_expr()};
      return finish(e, b);
    }
    return cmp_expr();
  }
  // Postfix operators outside the subset, refused by name where they start.
  void refuse_postfix_operator() const {
    static const char* ops[] = {"GLOB", "REGEXP", "MATCH", "COLLATE"};
    const bool negated = peek_kw("NOT");
    const Token& word = negated ? toks_[pos_ + 1] : cur();
    if (word.kind != Tok::Ident) return;
    for (const char* op : ops)
      if (iequals(word.text, op)) err_here(std::string(negated ? "NOT " : "") + op + " is not supported");
    if (!negated && iequals(word.text, "ESCAPE")) err_here("ESCAPE is only supported after LIKE pattern");
  }
  // Whether the next words are `[NOT] word`; consumes them when they are.
  bool accept_maybe_not(const char* word, bool& negated) {
    negated = peek_kw("NOT") && toks_[pos_ + 1].kind == Tok::Ident && iequals(toks_[pos_ + 1].text, word);
    if (negated) next();
    return accept_kw(word);
  }
  ExprPtr negate(ExprPtr e, size_t begin) {
    auto n = std::make_shared<Expr>();
    n->kind = ExprKind::Unary;
    n->op = "NOT";
    n->line = e->line;
    n->col = e->col;
    n->args = {e};
    return finish(n, begin);
  }
  // x [NOT] BETWEEN lo AND hi is (x >= lo AND x <= hi), x [NOT] IN (a, b, ...) is (x = a OR x = b
  // ...): SQLite defines both so, NULLs included. x [NOT] IN (SELECT ...) is an InSelect node
  // (the planner runs its subquery first). Null pointer when neither follows.
  ExprPtr between_or_in(const ExprPtr& x, size_t begin) {
    bool negated = false;
    ExprPtr e;
    if (accept_maybe_not("BETWEEN", negated)) {
      ExprPtr lo = add_expr();
      expect_kw("AND");
      ExprPtr hi = add_expr();
      e = binary("AND", binary(">=", x, lo, begin), binary("<=", x, hi, begin), begin);
    } else if (accept_maybe_not("IN", negated)) {
      expect_op("(");
      if (peek_kw("SELECT")) {
        auto in = make(ExprKind::InSelect, toks_[begin]);  // errors point at x, as for the list form
        in->negated = negated;
        in->args = {x};
        in->subquery = subquery();
        return finish(in, begin);
      }
      if (peek_op(")")) err_here("an empty IN list is not supported");
      do {
        ExprPtr eq = binary("=", x, expr(), begin);
        e = e ? binary("OR", e, eq, begin) : eq;
      } while (accept_op(","));
      expect_op(")");
      e = finish(e, begin);
    } else {
      return nullptr;
    }
    return negated ? negate(e, begin) : e;
  }
  // x [NOT] LIKE pattern [ESCAPE c]: the operands are checked by the planner (a text operand, a
  // string literal pattern and escape). Null pointer when LIKE does not follow.
  ExprPtr like(const ExprPtr& x, size_t begin) {
    bool negated = false;
    const Token& at = cur();
    if (!accept_maybe_not("LIKE", negated)) return nullptr;
    auto e = make(ExprKind::Like, at);  // errors point at [NOT] LIKE
    e->negated = negated;
    e->args = {x, add_expr()};
    if (accept_kw("ESCAPE")) e->args.push_back(add_expr());
    return finish(e, begin);
  }
  // x IS [NOT] NULL is an IsNull node; x IS [NOT] y, SQLite's comparison that takes two NULLs as
  // equal (never NULL itself), a Binary "IS" / "IS NOT".
  ExprPtr is_expr(const ExprPtr& x, size_t begin) {
    const Token& at = next();
    const bool negated = accept_kw("NOT");
    if (accept_kw("NULL")) {
      auto e = make(ExprKind::IsNull, at);
      e->line = x->line;
      e->col = x->col;
      e->negated = negated;
      e->args = {x};
      return finish(e, begin);
    }
    return binary(negated ? "IS NOT" : "IS", x, add_expr(), begin);
  }
  ExprPtr cmp_expr() {
    const size_t b = pos_;
    ExprPtr l = add_expr();
    for (;;) {
      refuse_postfix_operator();
      if (ExprPtr e = between_or_in(l, b)) {
        l = e;
        continue;
      }
      if (ExprPtr e = like(l, b)) {
        l = e;
        continue;
      }
      if (peek_kw("IS")) {
        l = is_expr(l, b);
        continue;
      }
      if (cur().kind == Tok::Op) {
        std::string op = cur().text;
        if (op == "==") op = "=";
        if (op == "<>") op = "!=";
        if (op == "=" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") {
          next();
          l = binary(op, l, add_expr(), b);
          continue;
        }
      }
      return l;
    }
  }
  ExprPtr add_expr() {
    const size_t b = pos_;
    ExprPtr l = mul_expr();
    while (peek_op("+") || peek_op("-")) {
      const std::string op = next().text;
      l = binary(op, l, mul_expr(), b);
    }
    return l;
  }
  ExprPtr mul_expr() {
    const size_t b = pos_;
    ExprPtr l = concat_expr();
    while (peek_op("*") || peek_op("/") || peek_op("%")) {
      const std::string op = next().text;
      l = binary(op, l, concat_expr(), b);
    }
    return l;
  }
  // x || y binds tighter than * as in SQLite; constants only are folded here.
  ExprPtr concat_expr() {
    const size_t b = pos_;
    ExprPtr l = unary();
    while (accept_op("||")) l = folded_text(binary("||", l, unary(), b), b);
    return l;
  }
  // A text function (text_functions.h) of constants only is the literal it evaluates to.
  ExprPtr folded_text(ExprPtr e, size_t b) {
    const std::optional<TextCall> c = text_call(*e);
    if (!c || !is_text_constant(*c->operand)) return e;
    const std::optional<std::string> x = constant_text(*c->operand);
    const TextValue v = x ? apply_text_function(c->fn, *x, *e) : TextValue{};
    auto lit = make(v.null ? ExprKind::Null : c->fn.result() == Type::Int ? ExprKind::Int : ExprKind::String, toks_[b]);
    lit->line = e->line;
    lit->col = e->col;
    lit->s = v.s;
    lit->i = v.i;
    return finish(lit, b);
  }
  ExprPtr unary() {
    if (peek_op("-") || peek_op("+")) {
      Depth guard(depth_, cur());
      const size_t b = pos_;
      const Token& t = next();
      const bool minus = t.text == "-";
      // -<integer literal>: fold so that -9223372036854775808 is an integer, as in SQLite
      if (minus && cur().kind == Tok::Int) {
        const std::string lit = "-" + cur().text;
        if (auto v = parse_int64(lit)) {
          auto e = make(ExprKind::Int, t);
          e->i = *v;
          next();
          return finish(e, b);
        }
      }
      ExprPtr operand = unary();
      if (!minus) return operand;
      auto e = make(ExprKind::Unary, t);
      e->op = "-";
      e->args = {operand};
      return finish(e, b);
    }
    return primary();
  }
  ExprPtr primary() {
    const size_t b = pos_;
    const Token& t = cur();
    switch (t.kind) {
      case Tok::Int: {
        next();
        if (auto v = parse_int64(t.text)) {
          auto e = make(ExprKind::Int, t);
          e->i = *v;
          return finish(e, b);
        }
        auto e = make(ExprKind::Float, t);  // too large for int64: a real, as in SQLite
        e->f = *parse_float(t.text);
        return finish(e, b);
      }
      case Tok::Float: {
        next();
        auto v = parse_float(t.text);
        if (!v) err(t.line, t.col, "number '" + t.text + "' is out of range");
        auto e = make(ExprKind::Float, t);
        e->f = *v;
        return finish(e, b);
      }
      case Tok::String: {
        next();
        auto e = make(ExprKind::String, t);
        e->s = t.text;
        return finish(e, b);
      }
      case Tok::Op:
        if (t.text == "(") {
          next();
          if (peek_kw("SELECT")) {
            auto e = make(ExprKind::Scalar, t);
            e->subquery = subquery();
            return finish(e, b);
          }
          ExprPtr e = expr();
          expect_op(")");
          return e;
        }
        err_here("expected an expression" + got());
      case Tok::End: err_here("expected an expression at the end of the query");
      case Tok::Ident:
      case Tok::QuotedIdent: break;
    }
    if (t.kind == Tok::Ident && iequals(t.text, "NULL")) {
      next();
      return finish(make(ExprKind::Null, t), b);
    }
    if (t.kind == Tok::Ident && iequals(t.text, "CASE")) return case_expr();
    if (t.kind == Tok::Ident && iequals(t.text, "CAST")) return cast_expr();
    if (t.kind == Tok::Ident && iequals(t.text, "EXISTS")) return exists();
    if (t.kind == Tok::Ident && iequals(t.text, "EXTRACT") && toks_[pos_ + 1].kind == Tok::Op && toks_[pos_ + 1].text == "(")
      return extract();
    static const std::pair<const char*, AggFn> aggs[] = {
        {"COUNT", AggFn::Count}, {"SUM", AggFn::Sum}, {"MIN", AggFn::Min}, {"MAX", AggFn::Max}, {"AVG", AggFn::Avg}};
    if (t.kind == Tok::Ident && toks_[pos_ + 1].kind == Tok::Op && toks_[pos_ + 1].text == "(") {
      for (const auto& [fname, fn] : aggs)
        if (iequals(t.text, fname)) {
          auto e = make(ExprKind::Aggregate, t);
          e->agg = fn;
          next();
          next();
          if (fn == AggFn::Count && accept_op("*")) {
            e->star = true;
          } else {
            if (peek_kw("DISTINCT")) {
              // COUNT(DISTINCT e) counts distinct values; MIN/MAX(DISTINCT e) are MIN/MAX(e).
              if (fn == AggFn::Sum || fn == AggFn::Avg) err_here(std::string(agg_name(fn)) + "(DISTINCT ...) is not supported");
              e->distinct = true;
              next();
            } else {
              accept_kw("ALL");  // the default: every value
            }
            e->args = {expr()};
          }
          expect_op(")");
          if (peek_kw("OVER") || peek_kw("FILTER"))
            err_here("window functions and aggregate FILTER (" + upper(cur().text) + ") are not supported");
          return finish(e, b);
        }
      if (ExprPtr call = scalar_call()) return call;
      err_here("unknown function '" + t.text +
               "' (COUNT, SUM, MIN, MAX, AVG, abs, round, coalesce, ifnull, nullif, lower, upper, length, substr, substring, instr, "
               "date, strftime)");
    }
    if (t.kind == Tok::Ident && reserved(t.text)) err_here("expected an expression, got keyword '" + t.text + "'");
    auto e = make(ExprKind::Column, t);
    e->s = next().text;
    if (accept_op(".")) {
      e->table = e->s;
      e->s = name("a column name");
    }
    return finish(e, b);
  }

  // name(args): a scalar function of the subset, with its argument count checked; null when the
  // name is not one.
  ExprPtr scalar_call() {
    struct Fn {
      const char* name;
      size_t min_args, max_args;
    };
    static const Fn fns[] = {{"abs", 1, 1},      {"round", 1, 2},  {"coalesce", 2, 1000}, {"ifnull", 2, 2}, {"nullif", 2, 2},
                             {"date", 1, 16},    {"lower", 1, 1},  {"upper", 1, 1},       {"length", 1, 1},
                             {"substr", 2, 3},   {"substring", 2, 3}, {"strftime", 2, 2},   {"instr", 2, 2}};
    const size_t b = pos_;
    const Token& t = cur();
    for (const Fn& fn : fns) {
      if (!iequals(t.text, fn.name)) continue;
      auto e = make(ExprKind::Call, next());
      e->s = std::string(fn.name) == "substring" ? "substr" : fn.name;
      next();  // (
      if (peek_kw("DISTINCT")) err_here(std::string("DISTINCT in ") + fn.name + "() is not supported");
      do e->args.push_back(expr());
      while (accept_op(","));
      if (iequals(fn.name, "substring") && e->args.size() == 1 && accept_kw("FROM")) {  // substring(x FROM s [FOR n])
        e->args.push_back(expr());
        if (accept_kw("FOR")) e->args.push_back(expr());
      }
      expect_op(")");
      if (e->args.size() < fn.min_args || e->args.size() > fn.max_args)
        err(t.line, t.col, std::string(fn.name) + "() takes " + std::to_string(fn.min_args) +
                               (fn.max_args == fn.min_args ? "" : fn.max_args > 2 ? " or more" : " or " + std::to_string(fn.max_args)) +
                               " arguments, not " + std::to_string(e->args.size()));
      if (e->s == "date" && all_strings(*e)) return folded_date(*e, b);
      return folded_text(finish(e, b), b);
    }
    return nullptr;
  }
  static bool all_strings(const Expr& call) {
    for (const ExprPtr& a : call.args)
      if (a->kind != ExprKind::String) return false;
    return true;
  }
  // date('YYYY-MM-DD', modifier, ...) of string literals is the string it evaluates to (date.h);
  // an invalid literal date is refused by name. date() of a column is a text function
  // (text_functions.h).
  ExprPtr folded_date(const Expr& call, size_t b) {
    std::vector<std::string> args;
    for (const ExprPtr& a : call.args) args.push_back(a->s);
    const DateFold d = fold_date(args);
    if (d.refused >= 0) err(call.args[size_t(d.refused)]->line, call.args[size_t(d.refused)]->col, "date(): " + d.why);
    auto e = make(ExprKind::String, toks_[b]);
    e->s = d.date;
    return finish(e, b);
  }
  // `(SELECT ...)` after IN or EXISTS, a whole query of its own; the planner runs it first.
  std::shared_ptr<const Query> subquery() {
    Depth guard(depth_, cur());
    auto q = std::make_shared<Query>(select());
    expect_op(")");
    return q;
  }
  // EXISTS (SELECT ...); NOT EXISTS is NOT applied to it.
  ExprPtr exists() {
    const size_t b = pos_;
    auto e = make(ExprKind::Exists, next());
    expect_op("(");
    if (!peek_kw("SELECT")) err_here(std::string("expected SELECT in EXISTS (...)") + got());
    e->subquery = subquery();
    return finish(e, b);
  }
  // CASE [x] WHEN c THEN v ... [ELSE e] END.
  ExprPtr case_expr() {
    const size_t b = pos_;
    auto e = make(ExprKind::Case, next());
    ExprPtr operand;
    if (!peek_kw("WHEN")) operand = expr();
    if (!peek_kw("WHEN")) err_here("expected WHEN" + got());
    while (accept_kw("WHEN")) {
      const size_t w = pos_;
      ExprPtr when = expr();
      e->args.push_back(operand ? binary("=", operand, when, w) : when);
      expect_kw("THEN");
      e->args.push_back(expr());
    }
    if (accept_kw("ELSE")) {
      e->args.push_back(expr());
    } else {
      auto null = make(ExprKind::Null, cur());
      null->source = sql_;
      e->args.push_back(null);
    }
    expect_kw("END");
    return finish(e, b);
  }
  // CAST(e AS type).
  ExprPtr cast_expr() {
    const size_t b = pos_;
    auto e = make(ExprKind::Cast, next());
    expect_op("(");
    e->args.push_back(expr());
    expect_kw("AS");
    if (cur().kind != Tok::Ident) err_here("expected a type name" + got());
    e->s = upper(next().text);
    expect_op(")");
    if (e->args[0]->kind == ExprKind::String && e->s.find("INT") != std::string::npos)  // CAST('12' AS INTEGER)
      return int_of_text(*e->args[0], e->line, e->col, b);
    return finish(e, b);
  }
  // CAST('text' AS INTEGER) as the integer literal it evaluates to.
  ExprPtr int_of_text(const Expr& text, size_t line, size_t col, size_t b) {
    TextFunction to_int;
    to_int.kind = TextFunction::CastInt;
    auto lit = make(ExprKind::Int, toks_[b]);
    lit->line = line;
    lit->col = col;
    lit->i = apply_text_function(to_int, text.s, text).i;
    return finish(lit, b);
  }
  // EXTRACT(YEAR|MONTH|DAY FROM x): SQLite has no EXTRACT; Weft reads it as
  // CAST(strftime('%Y'|'%m'|'%d', x) AS INTEGER).
  ExprPtr extract() {
    const size_t b = pos_;
    const Token& at = next();
    next();  // (
    static const std::pair<const char*, const char*> fields[] = {{"YEAR", "%Y"}, {"MONTH", "%m"}, {"DAY", "%d"}};
    const char* format = nullptr;
    for (const auto& [field, f] : fields)
      if (peek_kw(field)) format = f;
    if (!format) err_here("EXTRACT of " + (cur().kind == Tok::End ? std::string("nothing") : "'" + cur().text + "'") +
                          " is not supported (YEAR, MONTH or DAY)");
    next();
    expect_kw("FROM");
    auto fmt = make(ExprKind::String, at);
    fmt->s = format;
    auto call = make(ExprKind::Call, at);
    call->s = "strftime";
    call->args = {finish(fmt, b), expr()};
    expect_op(")");
    auto cast = make(ExprKind::Cast, at);
    cast->s = "INTEGER";
    cast->args = {folded_text(finish(call, b), b)};
    if (cast->args[0]->kind == ExprKind::String) return int_of_text(*cast->args[0], at.line, at.col, b);
    if (cast->args[0]->kind == ExprKind::Null) return cast->args[0];
    return finish(cast, b);
  }

  std::shared_ptr<const std::string> sql_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

}  // namespace

Query parse_sql(const std::string& sql) { return Parser(sql).query(); }

bool is_modification(const std::string& sql) {
  try {
    const std::vector<Token> toks = lex(sql);
    if (toks.front().kind != Tok::Ident) return false;
    for (const char* kw : {"INSERT", "UPDATE", "DELETE"})
      if (iequals(toks.front().text, kw)) return true;
  } catch (const Error&) {
  }
  return false;
}

ModificationStatement parse_modification(const std::string& sql) { return Parser(sql).modification(); }

bool same_expr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.op != b.op || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::Int: if (a.i != b.i) return false; break;
    case ExprKind::Float: if (a.f != b.f) return false; break;
    case ExprKind::String: if (a.s != b.s) return false; break;
    case ExprKind::Column:
      if (!iequals(a.s, b.s) || !iequals(a.table, b.table)) return false;
      break;
    case ExprKind::IsNull: if (a.negated != b.negated) return false; break;
    case ExprKind::Aggregate: if (a.agg != b.agg || a.star != b.star || a.distinct != b.distinct) return false; break;
    case ExprKind::Like: if (a.negated != b.negated) return false; break;
    case ExprKind::Call:
    case ExprKind::Cast: if (!iequals(a.s, b.s)) return false; break;
    case ExprKind::InSelect:
    case ExprKind::Exists:
    case ExprKind::Scalar:  // the same subquery only: its text is not compared
      if (a.negated != b.negated || a.subquery != b.subquery) return false;
      break;
    default: break;
  }
  for (size_t k = 0; k < a.args.size(); ++k)
    if (!same_expr(*a.args[k], *b.args[k])) return false;
  return true;
}

}  // namespace weft::db
