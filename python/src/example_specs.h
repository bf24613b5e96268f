// Copyright 2026 The inflow Authors.
//
// Feature specs from Python, shared by bind_example.cc (parsers) and
// bind_pipeline.cc (Pipeline): python/inflow/io/_parsing.py turns
// FixedLenFeature / VarLenFeature / FixedLenSequenceFeature into plain
// tuples (key, kind, shape, dtype, default or None, allow_missing), kind
// "fixed", "var" or "sequence". Call with the GIL held.

#ifndef INFLOW_PYTHON_SRC_EXAMPLE_SPECS_H_
#define INFLOW_PYTHON_SRC_EXAMPLE_SPECS_H_

#include <nanobind/nanobind.h>

#include "inflow/example/example_parser.h"

namespace inflow::py {

// INVALID_ARGUMENT (raised) for an unknown kind or a bad shape.
FeatureSpecs SpecsFromPython(nanobind::handle specs);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_EXAMPLE_SPECS_H_
