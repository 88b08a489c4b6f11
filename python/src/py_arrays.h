// Array arguments and model text, shared by the bindings: shapes as error messages print them, and integer
// arguments that arrive as a sequence or a numpy array (token ids). pybind11's own conversion to std::vector<int64_t> would take 1.7 (a float32) as 1
// and a complex number as its real part; here anything but integers is refused by name.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <weft/error.h>

namespace weft::python {

// Text a model wrote, as a Python str: bytes that are not UTF-8 (a token may end mid character)
// become U+FFFD instead of failing the conversion.
inline pybind11::str model_text(const std::string& bytes) {
  return pybind11::reinterpret_steal<pybind11::str>(PyUnicode_DecodeUTF8(bytes.data(), pybind11::ssize_t(bytes.size()), "replace"));
}

// Extractions ({name: text}) with each text as model_text makes it.
inline pybind11::dict model_texts(const std::map<std::string, std::string>& named) {
  pybind11::dict d;
  for (const auto& [name, text] : named) d[pybind11::str(name)] = model_text(text);
  return d;
}

// A shape as Python prints a tuple: "(3,)", "(2, 4)", "()".
inline std::string shape_text(const std::vector<pybind11::ssize_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}
inline std::string shape_text(const pybind11::array& a) {
  return shape_text(std::vector<pybind11::ssize_t>(a.shape(), a.shape() + a.ndim()));
}

// BadInput "<what>, got dtype D" unless the array holds signed or unsigned integers.
inline void require_integer_dtype(const pybind11::array& a, const std::string& what) {
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u') fail(ErrorCode::BadInput, what + ", got dtype " + std::string(pybind11::str(pybind11::handle(a.dtype()))));
}

// A 1-D sequence or array of integers: its values, in order.
inline std::vector<int64_t> integer_values(pybind11::handle given, const std::string& where) {
  const auto a = pybind11::array::ensure(given);  // a list of Python ints becomes an int64 array
  if (!a) fail(ErrorCode::BadInput, where + ": expected a sequence of integers, got " + std::string(pybind11::str(given.get_type())));
  if (a.size() == 0 && a.ndim() == 1) return {};  // numpy gives an empty list a float dtype
  require_integer_dtype(a, where + ": expected integers");
  if (a.ndim() != 1) fail(ErrorCode::BadInput, where + ": expected a 1-D sequence, got " + std::to_string(a.ndim()) + " dimensions");
  if (a.dtype().kind() == 'u' && a.itemsize() == 8 && pybind11::int_(a.attr("max")()).cast<uint64_t>() > uint64_t(INT64_MAX))
    fail(ErrorCode::BadInput, where + ": " + std::string(pybind11::str(a.attr("max")())) + " does not fit a signed 64-bit integer");
  const auto values = pybind11::array_t<int64_t, pybind11::array::c_style | pybind11::array::forcecast>::ensure(a);
  if (!values) fail(ErrorCode::BadInput, where + ": not convertible to 64-bit integers");
  return std::vector<int64_t>(values.data(), values.data() + values.size());
}

}  // namespace weft::python
