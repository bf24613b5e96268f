// Copyright 2026 The inflow Authors.
//
// BindCore: the exception classes (inflow.errors re-exports them), the
// error-code constants, dtype helpers and the module's version.

#include <nanobind/stl/string.h>

#include <string>

#include "inflow/version.h"

#include "bindings.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

// The classes, written in Python: TF's OpError(node_def, op, message,
// error_code) and one subclass per code taking (node_def, op, message).
constexpr char kErrorsSource[] = R"PY(
class OpError(Exception):
    """An inflow operation failed (tf.errors.OpError).

    Carries the canonical ``error_code`` (TF's numbers: OUT_OF_RANGE is 11)
    and the ``message``. ``op`` and ``node_def`` exist for TF code that
    reads them; inflow has no graph, so they are None.
    """

    def __init__(self, node_def=None, op=None, message="", error_code=2,
                 *args):
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        """The error message."""
        return self._message

    @property
    def error_code(self):
        """The canonical error code (an int, TF's numbering)."""
        return self._error_code

    @property
    def op(self):
        """Always None (inflow has no graph ops)."""
        return self._op

    @property
    def node_def(self):
        """Always None (inflow has no graph)."""
        return self._node_def

    def __str__(self):
        return self._message

    def __reduce__(self):
        if type(self)._code is None:
            return (type(self), (self._node_def, self._op, self._message,
                                 self._error_code))
        return (type(self), (self._node_def, self._op, self._message))

    _code = None


def _make(name, code, doc):
    def __init__(self, node_def=None, op=None, message="", *args):
        OpError.__init__(self, node_def, op, message, code, *args)
    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc,
                                   "_code": code, "__module__": "inflow.errors"})

OpError.__module__ = "inflow.errors"
)PY";

struct ErrorSpec {
  StatusCode code;
  const char* class_name;
  const char* doc;
};

constexpr ErrorSpec kErrors[] = {
    {StatusCode::kCancelled, "CancelledError",
     "An operation was cancelled: an enqueue on a closed queue, a call "
     "released by a stop request (CANCELLED, 1)."},
    {StatusCode::kUnknown, "UnknownError", "An unknown error (UNKNOWN, 2)."},
    {StatusCode::kInvalidArgument, "InvalidArgumentError",
     "An operation received an invalid argument (INVALID_ARGUMENT, 3)."},
    {StatusCode::kDeadlineExceeded, "DeadlineExceededError",
     "A blocking call's timeout expired (DEADLINE_EXCEEDED, 4)."},
    {StatusCode::kNotFound, "NotFoundError",
     "A file or entity was not found (NOT_FOUND, 5)."},
    {StatusCode::kAlreadyExists, "AlreadyExistsError",
     "An entity already exists (ALREADY_EXISTS, 6)."},
    {StatusCode::kPermissionDenied, "PermissionDeniedError",
     "The caller lacks permission (PERMISSION_DENIED, 7)."},
    {StatusCode::kResourceExhausted, "ResourceExhaustedError",
     "A resource ran out (RESOURCE_EXHAUSTED, 8)."},
    {StatusCode::kFailedPrecondition, "FailedPreconditionError",
     "A call was made in the wrong state (FAILED_PRECONDITION, 9)."},
    {StatusCode::kAborted, "AbortedError",
     "An operation was aborted (ABORTED, 10)."},
    {StatusCode::kOutOfRange, "OutOfRangeError",
     "End of input: a dequeue on a closed queue with too few elements, the "
     "end of a file (OUT_OF_RANGE, 11)."},
    {StatusCode::kUnimplemented, "UnimplementedError",
     "An operation is not implemented (UNIMPLEMENTED, 12)."},
    {StatusCode::kInternal, "InternalError",
     "An internal invariant broke: a bug in inflow (INTERNAL, 13)."},
    {StatusCode::kUnavailable, "UnavailableError",
     "A service is unavailable (UNAVAILABLE, 14)."},
    {StatusCode::kDataLoss, "DataLossError",
     "Unrecoverable data loss or corruption: a CRC mismatch, a truncated "
     "record (DATA_LOSS, 15)."},
};

}  // namespace

void BindCore(nb::module_& m) {
  // Some objects live until the process ends on purpose (the error
  // classes, a queue a daemon thread still fills): no leak report at exit.
  nb::set_leak_warnings(false);
  m.attr("__version__") = kVersion;
  internal::InitTensors(m);
  internal::InitInterpreter();

  nb::dict scope;
  scope["__builtins__"] = nb::module_::import_("builtins");
  scope["__name__"] = "inflow.errors";
  nb::object code = nb::steal(
      Py_CompileString(kErrorsSource, "<inflow.errors>", Py_file_input));
  if (!code.is_valid()) throw nb::python_error();
  nb::object done =
      nb::steal(PyEval_EvalCode(code.ptr(), scope.ptr(), scope.ptr()));
  if (!done.is_valid()) throw nb::python_error();
  nb::object op_error = scope["OpError"];
  m.attr("OpError") = op_error;
  nb::object make = scope["_make"];
  for (const ErrorSpec& e : kErrors) {
    nb::object cls =
        make(e.class_name, static_cast<int>(e.code), nb::str(e.doc));
    m.attr(e.class_name) = cls;
    internal::SetErrorClass(e.code, cls);
  }
  // UNAUTHENTICATED (16) is TF's last code; inflow never reports it.
  m.attr("UnauthenticatedError") =
      make("UnauthenticatedError", 16,
           nb::str("The request lacks valid credentials (UNAUTHENTICATED, "
                   "16); inflow never raises it."));
  for (int c = 0; c <= kNumStatusCodes - 1; ++c) {
    m.attr(("_CODE_" + std::string(StatusCodeName(static_cast<StatusCode>(c))))
               .c_str()) = c;
  }

  m.def(
      "_raise_status",
      [](int code, const std::string& message) {
        ThrowStatus(Status(static_cast<StatusCode>(code), message));
      },
      "Raises the inflow.errors class of `code` with `message` (for "
      "tests).");
  m.def(
      "as_numpy_dtype",
      [](nb::handle dtype) { return DTypeToNumpy(DTypeFromPython(dtype)); },
      "The numpy dtype inflow uses for `dtype` (a numpy dtype, a Python "
      "type or a TF name such as 'float32' or 'string'; object for "
      "strings).");
  m.def(
      "dtype_name",
      [](nb::handle dtype) {
        return std::string(DTypeName(DTypeFromPython(dtype)));
      },
      "TF's name for `dtype` ('float32', 'string', ...).");
}

}  // namespace inflow::py
