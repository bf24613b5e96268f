// Copyright 2026 The inflow Authors.
//
// A shared library that is no op library: it has no
// inflow_op_library_info.

extern "C" __attribute__((visibility("default"))) int inflow_test_answer() {
  return 42;
}
