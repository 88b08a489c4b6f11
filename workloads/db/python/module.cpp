// The database workload (workloads/db) for Python, as the submodule weft._weft.db: a Session
// (db.h) on one device, tables from CSV files or numpy columns, query results as numpy columns
// with a NULL mask each. weft/db.py wraps the results as numpy.ma.MaskedArray.
#include <cmath>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "db.h"
#include "py_device.h"

namespace py = pybind11;

namespace weft::python {
namespace {

using namespace weft::db;

std::string dtype_name(const py::array& a) { return std::string(py::str(py::handle(a.dtype()))); }

// A column's values and its NULL mask: a numpy.ma.MaskedArray gives its mask, an object array
// its None entries; any other array has no NULLs.
struct Given {
  py::array values;
  std::vector<uint8_t> nulls;
};

Given given_column(py::handle column, const std::string& where) {
  py::module_ np = py::module_::import("numpy");
  Given g;
  py::object source = py::reinterpret_borrow<py::object>(column);
  if (py::isinstance(source, np.attr("ma").attr("MaskedArray"))) {
    const auto mask = py::array_t<bool>::ensure(np.attr("ma").attr("getmaskarray")(source));
    g.values = py::array::ensure(source.attr("data"));
    for (py::ssize_t i = 0; i < mask.size(); ++i) g.nulls.push_back(mask.data()[i] ? 1 : 0);
  } else {
    g.values = py::array::ensure(source);
    if (!g.values) fail(ErrorCode::BadInput, where + ": expected a numpy array, got " + std::string(py::str(source.get_type())));
    g.nulls.assign(size_t(g.values.size()), 0);
  }
  if (g.values.ndim() != 1) fail(ErrorCode::BadInput, where + ": expected a 1-D array, got " + std::to_string(g.values.ndim()) + " dimensions");
  return g;
}

void fill_ints(Column& c, const Given& g, const std::string& where) {
  if (g.values.dtype().kind() == 'u' && g.values.itemsize() == 8 && g.values.size() > 0 &&
      py::int_(g.values.attr("max")()).cast<uint64_t>() > uint64_t(INT64_MAX))
    fail(ErrorCode::BadInput, where + ": a uint64 value does not fit a signed 64-bit integer");
  const auto v = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(g.values);
  c.type = Type::Int;
  c.ints.assign(v.data(), v.data() + v.size());
  for (size_t r = 0; r < c.ints.size(); ++r)
    if (g.nulls[r]) c.ints[r] = 0;
}

// NaN is refused rather than guessed at (SQLite stores it as NULL, the device's NaN rules differ
// by operation): a NULL is a masked entry.
void fill_floats(Column& c, const Given& g, const std::string& where) {
  const auto v = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(g.values);
  c.type = Type::Float;
  c.floats.assign(v.data(), v.data() + v.size());
  for (size_t r = 0; r < c.floats.size(); ++r) {
    if (g.nulls[r]) c.floats[r] = 0;
    else if (std::isnan(c.floats[r]))
      fail(ErrorCode::BadInput, where + ": row " + std::to_string(r) + " is NaN (mask it for a NULL)");
  }
}

// str arrays, or object arrays of str and None (None is NULL); any other element is refused.
void fill_strings(Column& c, Given& g, const std::string& where) {
  c.type = Type::Text;
  const py::list items = g.values.attr("tolist")();
  for (size_t r = 0; r < items.size(); ++r) {
    py::handle item = items[r];
    if (item.is_none()) g.nulls[r] = 1;
    else if (!py::isinstance<py::str>(item))
      fail(ErrorCode::BadInput, where + ": row " + std::to_string(r) + " is a " + std::string(py::str(item.get_type())) +
                                    " (a text column holds str or None)");
    c.strings.push_back(g.nulls[r] ? std::string() : item.cast<std::string>());
  }
}

Column column_from(const std::string& name, py::handle values, const std::string& table) {
  const std::string where = "add_table " + table + "." + name;
  Given g = given_column(values, where);
  Column c;
  c.name = name;
  const char kind = g.values.dtype().kind();
  if (kind == 'i' || kind == 'u') fill_ints(c, g, where);
  else if (kind == 'f') fill_floats(c, g, where);
  else if (kind == 'U' || kind == 'O') fill_strings(c, g, where);
  else fail(ErrorCode::BadInput, where + ": dtype " + dtype_name(g.values) + " is not supported (int, float, str or object of str/None)");
  c.nulls = std::move(g.nulls);
  return c;
}

Table table_from(const std::string& name, const py::dict& columns) {
  Table t;
  t.name = name;
  if (columns.size() > kMaxColumns) fail(ErrorCode::BadInput, "add_table " + name + ": more than " + std::to_string(kMaxColumns) + " columns");
  for (const auto& [key, values] : columns) {
    const std::string column = py::str(key);
    for (const Column& earlier : t.columns)
      if (iequals(earlier.name, column)) fail(ErrorCode::BadInput, "add_table " + name + ": column '" + column + "' appears twice");
    t.columns.push_back(column_from(column, values, name));
    const size_t rows = t.columns.back().nulls.size();
    if (t.columns.size() > 1 && rows != t.rows)
      fail(ErrorCode::BadInput, "add_table " + name + "." + t.columns.back().name + ": " + std::to_string(rows) +
                                    " rows where the first column has " + std::to_string(t.rows));
    if (rows > kMaxRows) fail(ErrorCode::BadInput, "add_table " + name + ": more than " + std::to_string(kMaxRows) + " rows");
    t.rows = rows;
  }
  if (t.columns.empty()) fail(ErrorCode::BadInput, "add_table " + name + ": no columns");
  return t;
}

// One result column: (name, type, values, nulls). Values are int64, float64 or object (str);
// a column whose non-NULL values mix types is object with Python ints, floats and strs.
py::tuple result_column(const ResultSet& rs, size_t c) {
  const size_t rows = rs.rows.size();
  std::optional<Type> type;
  bool mixed = false;
  for (const Row& row : rs.rows) {
    if (row[c].null) continue;
    if (type && *type != row[c].type) mixed = true;
    type = row[c].type;
  }
  py::array_t<bool> nulls{py::ssize_t(rows)};
  for (size_t r = 0; r < rows; ++r) nulls.mutable_data()[r] = rs.rows[r][c].null;
  const Type t = type.value_or(Type::Int);
  if (!mixed && t == Type::Int) {
    py::array_t<int64_t> v{py::ssize_t(rows)};
    for (size_t r = 0; r < rows; ++r) v.mutable_data()[r] = rs.rows[r][c].null ? 0 : rs.rows[r][c].i;
    return py::make_tuple(rs.names[c], "int", v, nulls);
  }
  if (!mixed && t == Type::Float) {
    py::array_t<double> v{py::ssize_t(rows)};
    for (size_t r = 0; r < rows; ++r) v.mutable_data()[r] = rs.rows[r][c].null ? 0.0 : rs.rows[r][c].f;
    return py::make_tuple(rs.names[c], "float", v, nulls);
  }
  py::list objects;
  for (const Row& row : rs.rows) {
    const Value& v = row[c];
    if (v.null) objects.append(py::none());
    else if (v.type == Type::Int) objects.append(py::int_(v.i));
    else if (v.type == Type::Float) objects.append(py::float_(v.f));
    else objects.append(py::str(v.s));
  }
  py::array values = py::module_::import("numpy").attr("array")(objects, py::arg("dtype") = "object");
  return py::make_tuple(rs.names[c], mixed ? "mixed" : "text", values, nulls);
}

class PyDbSession {
 public:
  explicit PyDbSession(const PyDevice& device) : device_(device.ptr()), session_(std::make_unique<Session>(*device_)) {}

  void load_csv(const std::string& name, const std::string& path, const std::optional<std::string>& schema) {
    std::optional<std::vector<SchemaColumn>> columns;
    if (schema) columns = parse_schema(*schema);
    session_->add_table(load_csv_file(path, name, columns));
  }

  void add_table(const std::string& name, const py::dict& columns) { session_->add_table(table_from(name, columns)); }

  py::list query(const std::string& sql) {
    ResultSet rs;
    {
      py::gil_scoped_release unlocked;  // planning and the device run touch no Python object
      rs = session_->query(sql);
    }
    py::list out;
    for (size_t c = 0; c < rs.names.size(); ++c) out.append(result_column(rs, c));
    return out;
  }

  std::vector<std::string> tables() const {
    std::vector<std::string> out;
    for (const Table& t : session_->database().tables()) out.push_back(t.name);
    return out;
  }

  std::vector<std::pair<std::string, std::string>> schema(const std::string& name) const {
    const int i = session_->database().find(name);
    if (i < 0) fail(ErrorCode::BadInput, "schema: no table named '" + name + "'");
    std::vector<std::pair<std::string, std::string>> out;
    for (const Column& c : session_->database().table(size_t(i)).columns) out.emplace_back(c.name, type_name(c.type));
    return out;
  }

  py::dict last_timing() const {
    const Session::Timing& t = session_->last_timing();
    py::dict d;
    d["plan_ms"] = t.plan_ms;
    d["build_ms"] = t.build_ms;
    d["run_ms"] = t.run_ms;
    d["gpu_ms"] = t.gpu_ms;
    d["uploaded_bytes"] = t.uploaded_bytes;
    d["cached"] = t.cached;
    d["rows_affected"] = t.rows_affected;
    return d;
  }

  bool resident() const { return session_->resident(); }

 private:
  std::shared_ptr<Device> device_;  // declared first: the session ends before its device
  std::unique_ptr<Session> session_;
};

}  // namespace

void bind_db(py::module_& m) {
  m.doc() = "Weft's SQL engine (SQLite dialect) for Python: one database resident on one device.";
  py::class_<PyDbSession>(m, "DbSession")
      .def(py::init<const PyDevice&>(), py::arg("device"))
      .def("load_csv", &PyDbSession::load_csv, py::arg("name"), py::arg("path"), py::arg("schema") = py::none(),
           "Adds a table from a CSV file with a header; schema 'a:int,b:float,c:text' or inferred.")
      .def("add_table", &PyDbSession::add_table, py::arg("name"), py::arg("columns"),
           "Adds a table from a dict of 1-D numpy arrays (int, float, str/object); masked entries and None are NULL.")
      .def("query", &PyDbSession::query, py::arg("sql"),
           "Runs one statement (releases the GIL); [(name, type, values, nulls)] per result column.")
      .def("tables", &PyDbSession::tables)
      .def("schema", &PyDbSession::schema, py::arg("name"))
      .def_property_readonly("last_timing", &PyDbSession::last_timing)
      .def_property_readonly("resident", &PyDbSession::resident);
}

}  // namespace weft::python
