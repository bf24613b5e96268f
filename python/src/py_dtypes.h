// Copyright 2026 The inflow Authors.
//
// DType <-> numpy dtype, and the NumPy objects the tensor conversions
// (py_tensors.cc) share. Every function runs with the GIL held.

#ifndef INFLOW_PYTHON_SRC_PY_DTYPES_H_
#define INFLOW_PYTHON_SRC_PY_DTYPES_H_

#include <nanobind/nanobind.h>

#include <string>

#include "inflow/core/dtype.h"

namespace inflow::py {

namespace nb = nanobind;

// DType from a numpy dtype, a numpy scalar type, a Python type (float ->
// float32, int -> int64, bool, bytes and str -> string), an object with a
// TF-style `.name` (tf.float32), or a TF-style name ("float32", "int64",
// "string"); InvalidArgumentError naming the value otherwise.
DType DTypeFromPython(nb::handle value);
// numpy.dtype objects; object for string (bfloat16: ml_dtypes.bfloat16
// when ml_dtypes can be imported, uint16 otherwise). ml_dtypes is imported
// the first time a bfloat16 dtype or tensor is needed, not at import.
nb::object DTypeToNumpy(DType dtype);

namespace internal {

// The numpy module and the functions of it inflow calls, imported on the
// first call and kept for the life of the process (leaked on purpose:
// dropping them after the interpreter is gone would crash).
struct NumpyObjects {
  PyObject* numpy = nullptr;
  PyObject* ndarray_type = nullptr;
  PyObject* asarray = nullptr;
  PyObject* ascontiguousarray = nullptr;
  PyObject* can_cast = nullptr;
  PyObject* np_dtype = nullptr;
};
const NumpyObjects& Numpy();

// ml_dtypes.bfloat16, or an invalid handle when it cannot be had. With
// `import` false, only when ml_dtypes is already imported (an array can
// only be bfloat16 if it is): no import for every array inflow converts.
// With `import` true it imports ml_dtypes once (a failed import is not
// retried: bfloat16 is then uint16).
nb::handle BFloat16Type(bool import);

// The array-interface type string of a fixed-size DType ("<f4"), or
// nullptr for string and invalid.
const char* TypeStr(DType dtype);

// isinstance(value, numpy.ndarray).
bool IsNdarray(nb::handle value);
// numpy.asarray(value, dtype).
nb::object AsArray(nb::handle value, nb::handle dtype = nb::none());

// str(value) as UTF-8.
std::string StrOf(nb::handle value);

}  // namespace internal

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_DTYPES_H_
