// Copyright 2026 The inflow Authors.
//
// What an op library built with another C++ standard library looks like to
// LoadOpLibrary: this inflow's ABI version, another library's name.
// Written by hand, since INFLOW_OP_LIBRARY records this build's.

#include "inflow/ops/op_library.h"

namespace {

void RegisterNothing(inflow::ops::OpLibraryBuilder* /*builder*/) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) const InflowOpLibraryInfo*
inflow_op_library_info() {
  static const InflowOpLibraryInfo info = {inflow::kAbiVersion,
                                           inflow::kVersion, RegisterNothing,
                                           "some other C++ library"};
  return &info;
}
