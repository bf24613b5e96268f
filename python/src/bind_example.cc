// Copyright 2026 The inflow Authors.

#include "bindings.h"
#include "py_common.h"

namespace inflow::py {

void BindExample(nb::module_& m) { (void)m; }

}  // namespace inflow::py
