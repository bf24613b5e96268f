// Copyright 2026 The inflow Authors.

#include "py_common.h"

namespace inflow::py {

// Implemented by the py-core work (see py_common.h).

}  // namespace inflow::py
