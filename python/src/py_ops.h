// Copyright 2026 The inflow Authors.
//
// What bind_ops.cc hands to bind_data.cc and bind_pipeline.cc: a custom
// op as a Dataset map function and as a Pipeline map, which run in C++
// without the GIL.

#ifndef INFLOW_PYTHON_SRC_PY_OPS_H_
#define INFLOW_PYTHON_SRC_PY_OPS_H_

#include "inflow/data/dataset.h"
#include "inflow/input/pipeline.h"

namespace inflow::py {

struct NativeMapFn {
  data::MapFn fn;
};

struct NativePipelineMap {
  MapFunction map;
};

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_OPS_H_
