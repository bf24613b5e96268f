// Copyright 2026 The inflow Authors.

#ifndef INFLOW_VERSION_H_
#define INFLOW_VERSION_H_

namespace inflow {

inline constexpr char kVersion[] = "0.1.0";

// The binary interface between inflow and the op libraries built against
// it (ops/op_library.h): the layout of the classes an op library and the
// process that loads it share (Tensor and its TensorBuffer, whose fields
// Tensor's inline accessors read; Status; the ops/ headers). A
// library records the number it was built with, and LoadOpLibrary refuses
// one of another number. Raised with any change to that layout.
inline constexpr int kAbiVersion = 1;

}  // namespace inflow

#endif  // INFLOW_VERSION_H_
