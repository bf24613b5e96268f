// Copyright 2026 The inflow Authors.
//
// What every binding file of the extension shares: Status -> exception,
// Tensor <-> NumPy (zero copy where the layout allows), Tuple <-> list,
// DType <-> numpy dtype, blocking calls that Ctrl-C interrupts, and the GIL
// rules (docs/python.md).
//
// GIL rules: a binding releases the GIL around every call into inflow that
// may block or take an inflow lock (CallBlocking does it for blocking
// calls; nb::gil_scoped_release otherwise); inflow's own threads never hold
// it; only user Python callables take it (AcquireGil), and never while an
// inflow lock is held. Every function below but CallBlocking's `call` runs
// with the GIL held.

#ifndef INFLOW_PYTHON_SRC_PY_COMMON_H_
#define INFLOW_PYTHON_SRC_PY_COMMON_H_

#include <nanobind/nanobind.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

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

// A NumPy array over the tensor's buffer, which the array keeps alive (no
// copy; read-only buffers give read-only arrays; `arr.base` is
// (inflow._inflow._TensorView, capsule)). String tensors become object arrays
// of bytes (a copy). Rank-0 tensors become NumPy scalars (np.float32(...), and
// bytes for strings), as TF1's Session.run returns them.
nb::object TensorToNumpy(const Tensor& tensor);

// A Tensor from any array-like: a C-contiguous NumPy array of a supported
// dtype is wrapped without a copy (the tensor holds a reference to the
// array, released with the GIL taken; a read-only array gives a read-only
// tensor); anything else is converted with numpy.asarray first. `dtype`
// kInvalid: the array's own dtype; otherwise a value of another dtype is
// cast when NumPy's "same_kind" rule allows it (a copy), TypeError if not.
// Bytes, str and arrays of them (object, S or U arrays): string tensors
// (str encoded as UTF-8).
Tensor TensorFromPython(nb::handle value, DType dtype = DType::kInvalid);

// Lists of arrays <-> Tuples.
nb::list TupleToPython(const Tuple& tuple);
// A list/tuple of array-likes (one per component) or a single array-like
// (one component); `dtypes` empty or one per component (ValueError when
// the count differs, as TF).
Tuple TupleFromPython(nb::handle value, const std::vector<DType>& dtypes = {});

// DType from a numpy dtype, a numpy scalar type, a Python type (float ->
// float32, int -> int64, bool, bytes and str -> string), an object with a
// TF-style `.name` (tf.float32), or a TF-style name ("float32", "int64",
// "string"); InvalidArgumentError naming the value otherwise.
DType DTypeFromPython(nb::handle value);
// numpy.dtype objects; object for string (bfloat16: ml_dtypes.bfloat16
// when ml_dtypes can be imported, uint16 otherwise). ml_dtypes is imported
// the first time a bfloat16 dtype or tensor is needed, not at import.
nb::object DTypeToNumpy(DType dtype);

// Shapes: None is an unknown rank; a sequence of ints has None (or -1) for
// an unknown dimension. To Python: None, or a list with None for unknown
// dimensions.
PartialShape PartialShapeFromPython(nb::handle shape);
nb::object PartialShapeToPython(const PartialShape& shape);

// The timeout of a blocking call from Python: `timeout` in seconds (None:
// none; <= 0: never block). ValueError for NaN, TypeError for a
// non-number.
std::optional<std::chrono::milliseconds> TimeoutFromPython(nb::handle timeout);

// CallOptions with TimeoutFromPython(timeout) and no stop token. It does
// not make a call interruptible by itself: use CallBlocking for that.
CallOptions MakeCallOptions(nb::handle timeout);

namespace internal {
// CallBlocking's engine; `attempt` returns the status of one call made
// with the options it is given.
void RunBlocking(std::optional<std::chrono::milliseconds> timeout,
                 std::stop_token stop,
                 const std::function<Status(const CallOptions&)>& attempt);
inline Status StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

// Runs the blocking inflow call `call(options)` (returning Status or
// Result<T>) with the GIL released, and returns what it returned. Called
// and returning with the GIL held; `call` runs without it and must not
// touch Python objects.
//
// Ctrl-C: on the main thread, SIGINT while the call blocks raises
// KeyboardInterrupt within 0.5 s: the call first runs with a zero timeout
// on the calling thread (no blocking, leaves the queue untouched when it
// cannot complete); when it would block, it runs once more on a helper
// thread with the full timeout and a stop token, while the calling thread
// checks for signals every 50 ms and fires the token on KeyboardInterrupt
// (the call then ends CANCELLED, as any stopped call, and the exception is
// raised). A call that completes anyway keeps its result and the interrupt
// is raised at Python's next check. So `call` may run twice: it must not
// consume its inputs on a failed attempt (pass copies of Tuples).
// Elsewhere (other threads, timeout <= 0) `call` runs once, here.
//
// `stop`, when it can fire, also releases the call (CANCELLED).
template <typename F>
auto CallBlocking(nb::handle timeout, F&& call, std::stop_token stop = {})
    -> std::invoke_result_t<F&, const CallOptions&> {
  using R = std::invoke_result_t<F&, const CallOptions&>;
  std::optional<R> result;
  internal::RunBlocking(TimeoutFromPython(timeout), std::move(stop),
                        [&](const CallOptions& options) {
                          result.reset();
                          result.emplace(call(options));
                          return internal::StatusOf(*result);
                        });
  return *std::move(result);
}

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

// Used by BindCore: registers the error classes and the atexit hook.
namespace internal {
void SetErrorClass(StatusCode code, nb::handle cls);
void InitCommon(nb::module_& m);
}  // namespace internal

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_COMMON_H_
