// Copyright 2026 The inflow Authors.

#include "py_interpreter.h"

#include <nanobind/stl/string.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace inflow::py {

namespace {

// The error classes, kept for the life of the process (leaked on purpose:
// dropping them after the interpreter is gone would crash).
PyObject* g_error_classes[kNumStatusCodes] = {};
unsigned long g_main_thread = 0;
std::atomic<bool> g_exiting{false};

}  // namespace

nb::handle ErrorClass(StatusCode code) {
  int c = static_cast<int>(code);
  if (c <= 0 || c >= kNumStatusCodes || g_error_classes[c] == nullptr) {
    c = static_cast<int>(StatusCode::kUnknown);
  }
  return nb::handle(g_error_classes[c]);
}

void ThrowStatus(const Status& status) {
  Status s = status.ok() ? InternalError("ThrowStatus called with OK") : status;
  nb::handle cls = ErrorClass(s.code());
  std::string_view message = s.message();
  nb::object text = nb::steal(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()),
      "backslashreplace"));
  if (!text.is_valid()) throw nb::python_error();
  nb::object exc = cls(nb::none(), nb::none(), text);
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw nb::python_error();
}

// A Python object that may be dropped on any thread: the reference goes
// with the GIL taken, or is leaked once the interpreter is going away.
std::shared_ptr<nb::object> ShareObject(nb::handle object) {
  return std::shared_ptr<nb::object>(
      new nb::object(nb::borrow(object)), [](nb::object* o) {
        PyGILState_STATE state;
        if (AcquireGil(&state)) {
          delete o;
          ReleaseGil(state);
        } else {
          o->release();  // leaked: the interpreter is gone or going
          delete o;
        }
      });
}

// The Status a Python exception maps to: an inflow OpError keeps its code,
// StopIteration is the end of input (OUT_OF_RANGE, as TF's py_func),
// ValueError and TypeError are INVALID_ARGUMENT, anything else UNKNOWN;
// the message carries the traceback. Call with the GIL held.
Status StatusFromPythonError(nb::python_error& e, const std::string& where) {
  StatusCode code = StatusCode::kUnknown;
  nb::handle type = e.type();
  if (PyErr_GivenExceptionMatches(type.ptr(), PyExc_StopIteration)) {
    code = StatusCode::kOutOfRange;
  } else if (PyErr_GivenExceptionMatches(type.ptr(), PyExc_ValueError) ||
             PyErr_GivenExceptionMatches(type.ptr(), PyExc_TypeError)) {
    code = StatusCode::kInvalidArgument;
  } else if (nb::hasattr(e.value(), "error_code")) {
    try {
      const int c = nb::cast<int>(e.value().attr("error_code"));
      if (c > 0 && c < kNumStatusCodes) code = static_cast<StatusCode>(c);
    } catch (...) {
    }
  }
  std::string text = e.what();
  e.restore();
  PyErr_Clear();
  return Status(code, where + ": " + text);
}

nb::object StatusToPython(const Status& s) {
  if (s.ok()) return nb::none();
  return nb::make_tuple(static_cast<int>(s.code()), std::string(s.message()));
}

namespace internal {

void SetErrorClass(StatusCode code, nb::handle cls) {
  const int c = static_cast<int>(code);
  if (c <= 0 || c >= kNumStatusCodes) return;
  g_error_classes[c] = cls.inc_ref().ptr();
}

void InitInterpreter() {
  nb::module_ threading = nb::module_::import_("threading");
  g_main_thread =
      nb::cast<unsigned long>(threading.attr("main_thread")().attr("ident"));
  // Runs before the interpreter finalizes: from then on inflow threads
  // leave Python alone (AcquireGil says no).
  nb::module_::import_("atexit").attr("register")(
      nb::cpp_function([] { g_exiting.store(true); }));
}

}  // namespace internal

bool OnMainThread() { return PyThread_get_thread_ident() == g_main_thread; }

bool PythonIsExiting() {
  if (g_exiting.load()) return true;
  if (!Py_IsInitialized()) return true;
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

bool AcquireGil(PyGILState_STATE* state) {
  if (PythonIsExiting()) return false;
  *state = PyGILState_Ensure();
  return true;
}

void ReleaseGil(PyGILState_STATE state) { PyGILState_Release(state); }

}  // namespace inflow::py
