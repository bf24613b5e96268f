// Copyright 2026 The inflow Authors.
//
// Values between NumPy and inflow: Tensor <-> NumPy array (zero copy where
// the layout allows), Tuple <-> list, PartialShape <-> list (DType <->
// numpy dtype: py_dtypes.h). Every function runs with the GIL held.

#ifndef INFLOW_PYTHON_SRC_PY_TENSORS_H_
#define INFLOW_PYTHON_SRC_PY_TENSORS_H_

#include <nanobind/nanobind.h>

#include <optional>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::py {

namespace nb = nanobind;

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

// The DType of a buffer-protocol format (Py_buffer::format, "B" when it
// has none) of `itemsize` bytes per item; nullopt for one inflow has no
// DType for.
std::optional<DType> DTypeFromFormat(std::string_view format,
                                     Py_ssize_t itemsize);

// Lists of arrays <-> Tuples.
nb::list TupleToPython(const Tuple& tuple);
// A list/tuple of array-likes (one per component) or a single array-like
// (one component); `dtypes` empty or one per component (ValueError when
// the count differs, as TF).
Tuple TupleFromPython(nb::handle value, const std::vector<DType>& dtypes = {});

// Shapes: None is an unknown rank; a sequence of ints has None (or -1) for
// an unknown dimension. To Python: None, or a list with None for unknown
// dimensions.
PartialShape PartialShapeFromPython(nb::handle shape);
nb::object PartialShapeToPython(const PartialShape& shape);

// Used by BindCore: registers _TensorView (what an array over a tensor
// keeps alive) and the test helpers _buffer_address, _tensor_address and
// _roundtrip.
namespace internal {
void InitTensors(nb::module_& m);
}  // namespace internal

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_TENSORS_H_
