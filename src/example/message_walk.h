// Copyright 2026 The inflow Authors.
//
// What the general (validating) paths of the Example parsers share: the
// error for a malformed message.

#ifndef INFLOW_EXAMPLE_MESSAGE_WALK_H_
#define INFLOW_EXAMPLE_MESSAGE_WALK_H_

#include <string>
#include <string_view>

#include "inflow/core/status.h"

namespace inflow::internal {

// INVALID_ARGUMENT naming the message (or list) `what` and the byte offset
// of `pos` from the start of the record, `base`.
inline Status Malformed(std::string_view what, const char* pos,
                        const char* base) {
  return InvalidArgumentError("Could not parse example input: malformed " +
                              std::string(what) + " at byte offset " +
                              std::to_string(pos - base));
}

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_MESSAGE_WALK_H_
