// Copyright 2026 The inflow Authors.

#ifndef INFLOW_VERSION_H_
#define INFLOW_VERSION_H_

namespace inflow {

inline constexpr char kVersion[] = "0.1.0";

}  // namespace inflow

#endif  // INFLOW_VERSION_H_
