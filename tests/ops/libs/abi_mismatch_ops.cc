// Copyright 2026 The inflow Authors.
//
// What an op library built against another inflow looks like to
// LoadOpLibrary: the info of ABI version 999 (inflow 9.9.9). Written by
// hand, since INFLOW_OP_LIBRARY records this build's version.

#include <cstdint>

#include "inflow/ops/op_library.h"

namespace {

void RegisterNothing(inflow::ops::OpLibraryBuilder* /*builder*/) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) const InflowOpLibraryInfo*
inflow_op_library_info() {
  static const InflowOpLibraryInfo info = {999, "9.9.9", RegisterNothing,
                                           INFLOW_OPS_CXX_LIBRARY_};
  return &info;
}
