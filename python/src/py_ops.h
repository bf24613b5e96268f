// Copyright 2026 The inflow Authors.
//
// What bind_ops.cc hands to bind_data.cc: a Dataset map function that runs
// in C++ (a custom op's), which Dataset.map runs without the GIL.

#ifndef INFLOW_PYTHON_SRC_PY_OPS_H_
#define INFLOW_PYTHON_SRC_PY_OPS_H_

#include "inflow/data/dataset.h"

namespace inflow::py {

struct NativeMapFn {
  data::MapFn fn;
};

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_OPS_H_
