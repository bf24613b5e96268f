// Copyright 2026 The inflow Authors.

#include "py_dtypes.h"

#include <nanobind/stl/string.h>

#include <optional>

#include "py_interpreter.h"

namespace inflow::py {

namespace {

// The numpy objects, and the dtype objects made so far (leaked on purpose,
// as NumpyObjects).
struct Globals {
  internal::NumpyObjects numpy;
  PyObject* dtypes[32] = {};  // numpy.dtype per DType value
  // ml_dtypes.bfloat16, looked up on first need (BFloat16Type): importing
  // ml_dtypes costs most of `import inflow`'s time.
  PyObject* bfloat16 = nullptr;
  bool bfloat16_looked_up = false;
};

Globals& G() {
  static Globals* globals = new Globals();
  return *globals;
}

}  // namespace

namespace internal {

const NumpyObjects& Numpy() {
  NumpyObjects& g = G().numpy;
  if (g.numpy == nullptr) {
    nb::module_ np = nb::module_::import_("numpy");
    g.numpy = np.release().ptr();
    nb::handle h(g.numpy);
    g.ndarray_type = h.attr("ndarray").inc_ref().ptr();
    g.asarray = h.attr("asarray").inc_ref().ptr();
    g.ascontiguousarray = h.attr("ascontiguousarray").inc_ref().ptr();
    g.can_cast = h.attr("can_cast").inc_ref().ptr();
    g.np_dtype = h.attr("dtype").inc_ref().ptr();
  }
  return g;
}

nb::handle BFloat16Type(bool import) {
  Globals& g = G();
  if (g.bfloat16 != nullptr || g.bfloat16_looked_up) {
    return nb::handle(g.bfloat16);
  }
  if (!import) {
    PyObject* modules = PyImport_GetModuleDict();  // borrowed
    if (PyDict_GetItemString(modules, "ml_dtypes") == nullptr) {
      return nb::handle();
    }
  }
  g.bfloat16_looked_up = true;
  try {
    nb::module_ ml = nb::module_::import_("ml_dtypes");
    g.bfloat16 = ml.attr("bfloat16").inc_ref().ptr();
  } catch (const nb::python_error&) {
    g.bfloat16 = nullptr;
  }
  return nb::handle(g.bfloat16);
}

std::string StrOf(nb::handle value) {
  nb::object s = nb::steal(PyObject_Str(value.ptr()));
  if (!s.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(s);
}

bool IsNdarray(nb::handle value) {
  return PyObject_TypeCheck(
      value.ptr(), reinterpret_cast<PyTypeObject*>(Numpy().ndarray_type));
}

nb::object AsArray(nb::handle value, nb::handle dtype) {
  return nb::borrow(Numpy().asarray)(value, dtype);
}

const char* TypeStr(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kInt32:
      return "<i4";
    case DType::kUInt8:
      return "|u1";
    case DType::kInt16:
      return "<i2";
    case DType::kInt8:
      return "|i1";
    case DType::kInt64:
      return "<i8";
    case DType::kBool:
      return "|b1";
    case DType::kBFloat16:
      return "<u2";  // viewed as bfloat16 afterwards
    case DType::kUInt16:
      return "<u2";
    case DType::kFloat16:
      return "<f2";
    case DType::kUInt32:
      return "<u4";
    case DType::kUInt64:
      return "<u8";
    case DType::kComplex64:
      return "<c8";
    case DType::kComplex128:
      return "<c16";
    default:
      return nullptr;
  }
}

}  // namespace internal

DType DTypeFromPython(nb::handle value) {
  const internal::NumpyObjects& np = internal::Numpy();
  auto from_name = [](const std::string& name) -> std::optional<DType> {
    std::optional<DType> d = DTypeFromName(name);
    if (d && IsValidDType(*d)) return d;
    if (name == "bytes" || name == "str" || name == "object") {
      return DType::kString;
    }
    return std::nullopt;
  };
  auto fail = [&]() -> DType {
    ThrowStatus(InvalidArgumentError("unsupported dtype: " +
                                     nb::cast<std::string>(nb::repr(value))));
  };
  if (PyUnicode_Check(value.ptr())) {
    std::optional<DType> d = from_name(nb::cast<std::string>(value));
    if (d) return *d;
  }
  if (value.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    return DType::kFloat32;
  }
  if (value.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    return DType::kInt64;
  }
  if (value.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    return DType::kBool;
  }
  if (value.ptr() == reinterpret_cast<PyObject*>(&PyBytes_Type) ||
      value.ptr() == reinterpret_cast<PyObject*>(&PyUnicode_Type)) {
    return DType::kString;
  }
  // TF-style DType objects (tf.float32, tf.string): their .name.
  if (!nb::isinstance(value, nb::handle(np.np_dtype)) &&
      !PyType_Check(value.ptr()) && nb::hasattr(value, "as_numpy_dtype") &&
      nb::hasattr(value, "name")) {
    std::optional<DType> d = from_name(internal::StrOf(value.attr("name")));
    if (d) return *d;
  }
  nb::object np_dtype;
  try {
    np_dtype = nb::borrow(np.np_dtype)(value);
  } catch (const nb::python_error&) {
    fail();
  }
  std::string kind = nb::cast<std::string>(np_dtype.attr("kind"));
  if (kind == "O" || kind == "S" || kind == "U") return DType::kString;
  std::optional<DType> d =
      from_name(nb::cast<std::string>(np_dtype.attr("name")));
  if (!d) fail();
  return *d;
}

nb::object DTypeToNumpy(DType dtype) {
  const internal::NumpyObjects& np = internal::Numpy();
  Globals& g = G();
  const int index = static_cast<int>(dtype);
  if (index <= 0 || index >= 32 || !IsValidDType(dtype)) {
    ThrowStatus(InvalidArgumentError("invalid dtype"));
  }
  if (g.dtypes[index] == nullptr) {
    nb::object d;
    if (dtype == DType::kString) {
      d = nb::borrow(np.np_dtype)("object");
    } else if (dtype == DType::kBFloat16 &&
               internal::BFloat16Type(/*import=*/true).is_valid()) {
      d = nb::borrow(np.np_dtype)(nb::handle(g.bfloat16));
    } else {
      d = nb::borrow(np.np_dtype)(internal::TypeStr(dtype));
    }
    g.dtypes[index] = d.release().ptr();
  }
  return nb::borrow(g.dtypes[index]);
}

}  // namespace inflow::py
