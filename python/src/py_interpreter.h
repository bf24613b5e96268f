// Copyright 2026 The inflow Authors.
//
// What the binding files need of the interpreter itself: Status values
// raised as inflow.errors exceptions, the GIL for inflow's own threads, the
// main thread and the interpreter's exit.
//
// GIL rules (docs/python.md): a binding releases the GIL around every call
// into inflow that may block or take an inflow lock (CallBlocking,
// py_blocking.h, does it for blocking calls; nb::gil_scoped_release
// otherwise); inflow's own threads never hold it; only user Python
// callables take it (AcquireGil), and never while an inflow lock is held.
// AcquireGil is called without the GIL, OnMainThread and PythonIsExiting
// with or without it, every other function below with it held.

#ifndef INFLOW_PYTHON_SRC_PY_INTERPRETER_H_
#define INFLOW_PYTHON_SRC_PY_INTERPRETER_H_

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <utility>

#include "inflow/core/result.h"
#include "inflow/core/status.h"

namespace inflow::py {

namespace nb = nanobind;

// Raises the inflow.errors class of `status`'s code (OutOfRangeError,
// CancelledError, ...; all derive from inflow.errors.OpError, which
// carries .error_code and .message). `status` must not be OK (an OK status
// raises InternalError).
[[noreturn]] void ThrowStatus(const Status& status);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return *std::move(result);
}

// The inflow.errors class for `code` (OpError's subclasses; UnknownError
// for a code inflow does not know).
nb::handle ErrorClass(StatusCode code);

// A Status for Python code that raises it itself
// (inflow.train._coordination): None when OK, else (code, message).
nb::object StatusToPython(const Status& s);

// A Python object that may be dropped on any thread: the reference goes
// with the GIL taken, or is leaked once the interpreter is going away.
std::shared_ptr<nb::object> ShareObject(nb::handle object);

// The Status a Python exception maps to: an inflow OpError keeps its code,
// StopIteration is the end of input (OUT_OF_RANGE, as TF's py_func),
// ValueError and TypeError are INVALID_ARGUMENT, anything else UNKNOWN.
// The message is "`where`: " and the exception's text, traceback included.
// Clears the exception.
Status StatusFromPythonError(nb::python_error& e, const std::string& where);

// For code on threads Python did not start (inflow threads) that must run
// Python: takes the GIL unless the interpreter is finalizing or gone (then
// returns false and takes nothing; the caller must not touch Python).
// Release with ReleaseGil(state).
bool AcquireGil(PyGILState_STATE* state);
void ReleaseGil(PyGILState_STATE state);
// True on the thread Python handles signals on (the main thread).
bool OnMainThread();
// True once the interpreter began to exit (atexit ran) or is gone.
bool PythonIsExiting();

// Used by BindCore: registers the error classes, then the main thread and
// the atexit hook.
namespace internal {
void SetErrorClass(StatusCode code, nb::handle cls);
void InitInterpreter();
}  // namespace internal

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_INTERPRETER_H_
