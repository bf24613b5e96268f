// Copyright 2026 The inflow Authors.

#include "py_tensors.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "inflow/core/result.h"

// NumPy's C API, for NumericArray, in this file alone (its table is static
// here). Built against NumPy 2's headers it runs on NumPy 1.x too.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "py_dtypes.h"
#include "py_interpreter.h"

namespace inflow::py {

namespace {

using internal::AsArray;
using internal::BFloat16Type;
using internal::IsNdarray;
using internal::Numpy;
using internal::StrOf;

// _TensorView's type object, registered by InitTensors (leaked on
// purpose, as the numpy objects).
PyObject* g_tensor_view_type = nullptr;

// What a _TensorView holds: the tensor an array views.
struct TensorView {
  Tensor tensor;
};

// An array over the tensor's buffer, made through NumPy's C API with a
// _TensorView as its base (the view keeps the buffer alive). The dtype is
// DTypeToNumpy's (bfloat16 when ml_dtypes can be imported). numpy.asarray
// on an __array_struct__ costs 4-5 us per array (it formats and parses a
// type string); this costs well under one, which a batch of two arrays
// pays on every next() (docs/PERFORMANCE.md, "Python peers").
nb::object NumericArray(const Tensor& tensor) {
  const int nd = tensor.rank();
  // NumPy 1.x's limit (2.x allows 64).
  constexpr int kMaxDims = 32;
  if (nd > kMaxDims) {
    throw nb::value_error(("a NumPy array has at most 32 dimensions; the "
                           "tensor has " +
                           std::to_string(nd))
                              .c_str());
  }
  npy_intp dims[kMaxDims];
  for (int i = 0; i < nd; ++i) dims[i] = tensor.dim_size(i);
  nb::object view = nb::handle(g_tensor_view_type)();
  nb::inst_ptr<TensorView>(view)->tensor = tensor;
  // PyArray_NewFromDescr steals the dtype's reference.
  auto* descr = reinterpret_cast<PyArray_Descr*>(
      DTypeToNumpy(tensor.dtype()).release().ptr());
  const int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                    (tensor.read_only() ? 0 : NPY_ARRAY_WRITEABLE);
  PyObject* arr = PyArray_NewFromDescr(
      &PyArray_Type, descr, nd, dims, /*strides=*/nullptr,
      const_cast<void*>(tensor.raw_data()), flags, /*obj=*/nullptr);
  if (arr == nullptr) throw nb::python_error();
  nb::object out = nb::steal(arr);
  // Steals the view's reference, also when it fails.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr),
                            view.release().ptr()) != 0) {
    throw nb::python_error();
  }
  return out;
}

nb::object StringArray(const Tensor& tensor) {
  std::span<const std::string> values = tensor.flat<std::string>();
  if (tensor.rank() == 0) {
    return nb::steal(
        PyBytes_FromStringAndSize(values[0].data(), values[0].size()));
  }
  nb::list items;
  for (const std::string& v : values) {
    items.append(nb::steal(PyBytes_FromStringAndSize(v.data(), v.size())));
  }
  nb::object arr =
      nb::borrow(Numpy().numpy).attr("empty")(values.size(), "object");
  // Element-wise assignment keeps bytes objects as they are (np.array on a
  // list would look into equal-length bytes).
  arr[nb::slice(nb::none(), nb::none(), nb::none())] = items;
  nb::list dims;
  for (int64_t d : tensor.shape().dims()) dims.append(d);
  return arr.attr("reshape")(nb::tuple(dims));
}

// A string tensor from bytes, str, or an array-like of them.
Tensor StringTensorFromPython(nb::handle value) {
  auto to_string = [](nb::handle item) -> std::string {
    if (PyBytes_Check(item.ptr())) {
      return std::string(PyBytes_AS_STRING(item.ptr()),
                         PyBytes_GET_SIZE(item.ptr()));
    }
    if (PyUnicode_Check(item.ptr())) {
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
      if (data == nullptr) throw nb::python_error();
      return std::string(data, size);
    }
    if (PyByteArray_Check(item.ptr())) {
      return std::string(PyByteArray_AS_STRING(item.ptr()),
                         PyByteArray_GET_SIZE(item.ptr()));
    }
    nb::object np_bytes = nb::borrow(Numpy().numpy).attr("bytes_");
    nb::object np_str = nb::borrow(Numpy().numpy).attr("str_");
    if (nb::isinstance(item, np_bytes) || nb::isinstance(item, np_str)) {
      nb::object b = PyUnicode_Check(item.ptr())
                         ? nb::steal(PyUnicode_AsUTF8String(item.ptr()))
                         : nb::steal(PyBytes_FromObject(item.ptr()));
      if (!b.is_valid()) throw nb::python_error();
      return std::string(PyBytes_AS_STRING(b.ptr()), PyBytes_GET_SIZE(b.ptr()));
    }
    throw nb::type_error(("a string tensor holds bytes or str, not " +
                          nb::cast<std::string>(nb::repr(item.type())))
                             .c_str());
  };
  if (PyBytes_Check(value.ptr()) || PyUnicode_Check(value.ptr())) {
    return Tensor::Scalar<std::string>(to_string(value));
  }
  nb::object arr = AsArray(value, nb::str("object"));
  nb::tuple shape_obj = nb::tuple(arr.attr("shape"));
  std::vector<int64_t> dims;
  for (nb::handle d : shape_obj) dims.push_back(nb::cast<int64_t>(d));
  Tensor t(DType::kString, TensorShape(dims));
  std::span<std::string> out = *t.mutable_flat<std::string>();
  nb::object flat = arr.attr("ravel")();
  size_t i = 0;
  for (nb::handle item : flat) out[i++] = to_string(item);
  return t;
}

// True for values that are strings or arrays of strings.
bool IsStringLike(nb::handle value) {
  if (PyBytes_Check(value.ptr()) || PyUnicode_Check(value.ptr())) return true;
  if (IsNdarray(value)) {
    std::string kind = nb::cast<std::string>(value.attr("dtype").attr("kind"));
    return kind == "O" || kind == "S" || kind == "U";
  }
  return false;
}

// Holds a Py_buffer until the tensor buffer over it goes.
struct HeldBuffer {
  Py_buffer view;
};

void ReleaseHeldBuffer(HeldBuffer* held) {
  PyGILState_STATE state;
  // At exit the reference is leaked: taking the GIL then may never return.
  if (!AcquireGil(&state)) return;
  PyBuffer_Release(&held->view);
  delete held;
  ReleaseGil(state);
}

// Wraps a C-contiguous array without a copy; nullopt when its layout does
// not allow it (not contiguous, or a format inflow does not hold).
// `want`, unless kInvalid, is the DType the array must have (nullopt
// otherwise).
std::optional<Tensor> WrapArray(nb::handle arr, DType want = DType::kInvalid) {
  auto held = std::make_unique<HeldBuffer>();
  bool writable = true;
  if (PyObject_GetBuffer(arr.ptr(), &held->view,
                         PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) !=
      0) {
    PyErr_Clear();
    writable = false;
    if (PyObject_GetBuffer(arr.ptr(), &held->view,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      return std::nullopt;
    }
  }
  Py_buffer& view = held->view;
  std::optional<DType> dtype =
      DTypeFromFormat(view.format ? view.format : "B", view.itemsize);
  if (!dtype || (want != DType::kInvalid && *dtype != want)) {
    PyBuffer_Release(&view);
    return std::nullopt;
  }
  std::vector<int64_t> dims(view.shape, view.shape + view.ndim);
  TensorShape shape(dims);
  void* data = view.buf;
  const size_t size = static_cast<size_t>(view.len);
  if (reinterpret_cast<uintptr_t>(data) % DTypeSize(*dtype) != 0 || size == 0) {
    // Misaligned (or empty) memory: one copy into an owned buffer.
    Tensor t = Tensor::Uninitialized(*dtype, shape);
    if (size > 0) std::memcpy(*t.mutable_raw_data(), data, size);
    PyBuffer_Release(&view);
    return t;
  }
  HeldBuffer* raw = held.release();
  std::function<void()> release = [raw] { ReleaseHeldBuffer(raw); };
  std::shared_ptr<TensorBuffer> buffer =
      writable ? TensorBuffer::WrapWritable(data, size, std::move(release))
               : TensorBuffer::Wrap(data, size, std::move(release));
  return ValueOrThrow(Tensor::FromBuffer(*dtype, shape, std::move(buffer)));
}

}  // namespace

std::optional<DType> DTypeFromFormat(std::string_view format,
                                     Py_ssize_t itemsize) {
  if (!format.empty() && (format[0] == '<' || format[0] == '=' ||
                          format[0] == '@' || format[0] == '|')) {
    format.remove_prefix(1);
  }
  if (format == "Zf" && itemsize == 8) return DType::kComplex64;
  if (format == "Zd" && itemsize == 16) return DType::kComplex128;
  if (format.size() != 1) return std::nullopt;
  const char c = format[0];
  const bool is_signed =
      c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n';
  const bool is_unsigned =
      c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N';
  if (c == '?' && itemsize == 1) return DType::kBool;
  if (c == 'e' && itemsize == 2) return DType::kFloat16;
  if (c == 'f' && itemsize == 4) return DType::kFloat32;
  if (c == 'd' && itemsize == 8) return DType::kFloat64;
  if (is_signed || is_unsigned) {
    switch (itemsize) {
      case 1:
        return is_signed ? DType::kInt8 : DType::kUInt8;
      case 2:
        return is_signed ? DType::kInt16 : DType::kUInt16;
      case 4:
        return is_signed ? DType::kInt32 : DType::kUInt32;
      case 8:
        return is_signed ? DType::kInt64 : DType::kUInt64;
    }
  }
  return std::nullopt;
}

nb::object TensorToNumpy(const Tensor& tensor) {
  Numpy();
  if (!tensor.IsInitialized()) {
    throw nb::value_error("an uninitialized tensor has no NumPy value");
  }
  if (tensor.dtype() == DType::kString) return StringArray(tensor);
  nb::object arr;
  if (tensor.num_elements() == 0) {
    nb::list dims;
    for (int64_t d : tensor.shape().dims()) dims.append(d);
    arr = nb::borrow(Numpy().numpy)
              .attr("zeros")(nb::tuple(dims), DTypeToNumpy(tensor.dtype()));
  } else {
    arr = NumericArray(tensor);
  }
  if (tensor.rank() == 0) return arr[nb::tuple()];
  return arr;
}

Tensor TensorFromPython(nb::handle value, DType dtype) {
  Numpy();
  // The common case first: an array of the wanted dtype, wrapped as is.
  if (dtype != DType::kString && IsNdarray(value)) {
    std::optional<Tensor> t = WrapArray(value, dtype);
    if (t) return *std::move(t);
  }
  if (dtype == DType::kString || IsStringLike(value)) {
    if (dtype != DType::kString && dtype != DType::kInvalid) {
      throw nb::type_error(
          ("expected a " + std::string(DTypeName(dtype)) +
           " value, got strings: " + nb::cast<std::string>(nb::repr(value)))
              .c_str());
    }
    if (IsNdarray(value) && !IsStringLike(value)) {
      // A numeric array is no string tensor, even when empty (as TF).
      throw nb::type_error(
          ("expected strings, got a " + StrOf(value.attr("dtype")) + " array")
              .c_str());
    }
    return StringTensorFromPython(value);
  }
  nb::object arr;
  if (IsNdarray(value)) {
    arr = nb::borrow(value);
  } else {
    arr = AsArray(value);
    if (IsStringLike(arr)) {
      if (dtype != DType::kInvalid) {
        throw nb::type_error(("expected a " + std::string(DTypeName(dtype)) +
                              " value, got " +
                              nb::cast<std::string>(nb::repr(value)))
                                 .c_str());
      }
      return StringTensorFromPython(arr);
    }
  }
  if (dtype == DType::kInvalid) {
    nb::handle loaded = BFloat16Type(/*import=*/false);
    if (loaded.is_valid() && arr.attr("dtype").equal(loaded)) {
      dtype = DType::kBFloat16;
    }
  }
  nb::handle bfloat16 =
      dtype == DType::kBFloat16 ? BFloat16Type(/*import=*/true) : nb::handle();
  if (bfloat16.is_valid()) {
    if (!arr.attr("dtype").equal(bfloat16)) arr = AsArray(arr, bfloat16);
    arr = arr.attr("view")("uint16");
    std::optional<Tensor> t = WrapArray(arr);
    if (!t) t = WrapArray(nb::borrow(Numpy().ascontiguousarray)(arr));
    if (!t) throw nb::type_error("cannot hold this array as bfloat16");
    return ValueOrThrow(
        t->buffer()
            ? Tensor::FromBuffer(DType::kBFloat16, t->shape(), t->buffer())
            : Result<Tensor>(Tensor(DType::kBFloat16, t->shape())));
  }
  if (dtype != DType::kInvalid) {
    nb::object want = DTypeToNumpy(dtype);
    nb::object have = arr.attr("dtype");
    if (!have.equal(want)) {
      const bool python_value = !IsNdarray(value);
      // Python numbers and lists take the queue's dtype as TF converts
      // them; arrays must be castable without changing kind.
      if (!python_value && !nb::cast<bool>(nb::borrow(Numpy().can_cast)(
                               have, want, "same_kind"))) {
        throw nb::type_error(("cannot use a " + StrOf(have) + " array as " +
                              std::string(DTypeName(dtype)))
                                 .c_str());
      }
      if (python_value) {
        nb::object kind = have.attr("kind");
        std::string k = nb::cast<std::string>(kind);
        std::string wk = nb::cast<std::string>(want.attr("kind"));
        if (k == "f" && (wk == "i" || wk == "u" || wk == "b")) {
          throw nb::type_error(("expected " + std::string(DTypeName(dtype)) +
                                ", got " +
                                nb::cast<std::string>(nb::repr(value)))
                                   .c_str());
        }
      }
      arr = AsArray(arr, want);
    }
  }
  std::optional<Tensor> t = WrapArray(arr);
  if (!t) {
    t = WrapArray(nb::borrow(Numpy().ascontiguousarray)(arr));
  }
  if (!t) {
    throw nb::type_error(
        ("inflow holds no tensor of dtype " + StrOf(arr.attr("dtype")))
            .c_str());
  }
  return *std::move(t);
}

nb::list TupleToPython(const Tuple& tuple) {
  nb::list out;
  for (const Tensor& t : tuple) out.append(TensorToNumpy(t));
  return out;
}

Tuple TupleFromPython(nb::handle value, const std::vector<DType>& dtypes) {
  Tuple out;
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    nb::sequence seq = nb::borrow<nb::sequence>(value);
    const size_t n = nb::len(seq);
    if (!dtypes.empty() && n != dtypes.size()) {
      throw nb::value_error(("expected " + std::to_string(dtypes.size()) +
                             " components, got " + std::to_string(n))
                                .c_str());
    }
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      out.push_back(TensorFromPython(
          seq[i], dtypes.empty() ? DType::kInvalid : dtypes[i]));
    }
    return out;
  }
  if (dtypes.size() > 1) {
    throw nb::value_error(("expected " + std::to_string(dtypes.size()) +
                           " components, got one value")
                              .c_str());
  }
  out.push_back(
      TensorFromPython(value, dtypes.empty() ? DType::kInvalid : dtypes[0]));
  return out;
}

PartialShape PartialShapeFromPython(nb::handle shape) {
  if (shape.is_none()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims;
  for (nb::handle d : shape) {
    dims.push_back(d.is_none() ? PartialShape::kUnknownDim
                               : nb::cast<int64_t>(d));
  }
  return PartialShape(std::move(dims));
}

nb::object PartialShapeToPython(const PartialShape& shape) {
  if (!shape.rank_known()) return nb::none();
  nb::list dims;
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      dims.append(nb::none());
    } else {
      dims.append(d);
    }
  }
  return dims;
}

namespace internal {

void InitTensors(nb::module_& m) {
  Numpy();
  // NumPy's C API table (NumericArray).
  if (_import_array() < 0) throw nb::python_error();
  nb::class_<TensorView>(m, "_TensorView",
                         "The inflow tensor a NumPy array views (the "
                         "array's .base); keeps the buffer alive.")
      .def(nb::init<>())
      .def_prop_ro("address",
                   [](const TensorView& v) {
                     return reinterpret_cast<uintptr_t>(v.tensor.raw_data());
                   })
      .def_prop_ro("read_only",
                   [](const TensorView& v) { return v.tensor.read_only(); });
  g_tensor_view_type = nb::type<TensorView>().inc_ref().ptr();

  m.def(
      "_buffer_address",
      [](nb::handle arr) -> uintptr_t {
        nb::handle view_type(g_tensor_view_type);
        nb::object base = nb::borrow(arr);
        // A view of an array chains to it through .base.
        while (IsNdarray(base)) base = base.attr("base");
        if (!base.type().is(view_type)) {
          throw nb::type_error("the array does not view an inflow tensor");
        }
        return reinterpret_cast<uintptr_t>(
            nb::inst_ptr<TensorView>(base)->tensor.raw_data());
      },
      "The address of the inflow buffer under `arr` (a dequeued array or "
      "a view of one); TypeError when no inflow tensor is under it.");
  m.def(
      "_tensor_address",
      [](nb::handle value) {
        Tensor t = TensorFromPython(value);
        return reinterpret_cast<uintptr_t>(t.raw_data());
      },
      "The address of the data of the tensor TensorFromPython(value) "
      "builds (equal to the array's for a zero-copy wrap).");
  m.def(
      "_roundtrip",
      [](nb::handle value) { return TensorToNumpy(TensorFromPython(value)); },
      "TensorToNumpy(TensorFromPython(value)), for tests.");
}

}  // namespace internal

}  // namespace inflow::py
