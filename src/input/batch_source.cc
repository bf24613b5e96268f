// Copyright 2026 The inflow Authors.

#include "inflow/input/batch_source.h"

#include <utility>

namespace inflow {

Result<NamedTuple> BatchSource::NextNamed(const CallOptions& options) {
  if (names().empty()) {
    return InvalidArgumentError("NextNamed: this source has no names");
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple batch, Next(options));
  NamedTuple named;
  for (size_t i = 0; i < batch.size() && i < names().size(); ++i) {
    named.emplace(names()[i], std::move(batch[i]));
  }
  return named;
}

}  // namespace inflow
