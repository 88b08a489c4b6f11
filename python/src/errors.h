// The Python package's exception classes: weft.Error, one subclass per weft::ErrorCode, and
// weft.ArgumentError, with the translation of every C++ exception a binding lets escape.
#pragma once

#include <pybind11/pybind11.h>

namespace weft::python {

// Creates the classes in m and installs m's exception translator; called once, first.
void bind_errors(pybind11::module_& m);

// weft.Error, for bindings that re-export it.
pybind11::handle error_class();

}  // namespace weft::python
