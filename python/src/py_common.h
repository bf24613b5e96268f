// Copyright 2026 The inflow Authors.
//
// What every binding file of the extension shares: Status -> exception,
// Tensor <-> NumPy (zero copy where the layout allows), Tuple <-> list,
// DType <-> numpy dtype, and the GIL rules (docs/python.md).
//
// GIL rules: a binding releases the GIL (nb::gil_scoped_release) around
// every call into inflow that may block or take an inflow lock; inflow's
// own threads never hold it; only user Python callables take it (through
// nb::gil_scoped_acquire), and never while an inflow lock is held.

#ifndef INFLOW_PYTHON_SRC_PY_COMMON_H_
#define INFLOW_PYTHON_SRC_PY_COMMON_H_

#include <nanobind/nanobind.h>

#include <string>

#include "inflow/core/call_options.h"
#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow::py {

namespace nb = nanobind;

// Raises the inflow.errors class of `status`'s code (OutOfRangeError,
// CancelledError, ...; all derive from inflow.errors.OpError, which
// carries .error_code and .message). `status` must not be OK.
[[noreturn]] void ThrowStatus(const Status& status);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return *std::move(result);
}

// A NumPy array over the tensor's buffer, which the array keeps alive (no
// copy; read-only buffers give read-only arrays). String tensors become
// object arrays of bytes (a copy).
nb::object TensorToNumpy(const Tensor& tensor);

// A Tensor from any array-like: a C-contiguous NumPy array of a supported
// dtype is wrapped without a copy (the tensor holds a reference to the
// array, released with the GIL taken); anything else is converted with
// numpy.asarray first. `dtype` kInvalid: the array's own dtype. Bytes,
// str and object arrays of them: string tensors.
Tensor TensorFromPython(nb::handle value, DType dtype = DType::kInvalid);

// Lists of arrays <-> Tuples.
nb::list TupleToPython(const Tuple& tuple);
// A single array-like or a list/tuple of them; `dtypes` empty or one per
// component.
Tuple TupleFromPython(nb::handle value, const std::vector<DType>& dtypes = {});

// DType from a numpy dtype, a numpy scalar type, a Python type (float,
// int, bool, bytes, str), or a TF-style name ("float32", "int64",
// "string"); INVALID_ARGUMENT naming the value otherwise.
DType DTypeFromPython(nb::handle value);
nb::object DTypeToNumpy(DType dtype);

// CallOptions for a blocking call from Python: `timeout` in seconds
// (None: none); SIGINT while it blocks raises KeyboardInterrupt within
// 0.5 s (the call is re-issued in slices and PyErr_CheckSignals run
// between them, with the GIL taken only for that check).
CallOptions MakeCallOptions(nb::handle timeout);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_COMMON_H_
