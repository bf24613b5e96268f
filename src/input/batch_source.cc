// Copyright 2026 The inflow Authors.

#include "inflow/input/batch_source.h"

#include <utility>

namespace inflow {

const std::vector<bool>& BatchSource::sparse() const {
  static const std::vector<bool>* const kNone = new std::vector<bool>();
  return *kNone;
}

Result<NamedTuple> BatchSource::NextNamed(const CallOptions& options) {
  if (names().empty()) {
    return InvalidArgumentError("NextNamed: this source has no names");
  }
  for (size_t c = 0; c < sparse().size(); ++c) {
    if (sparse()[c]) {
      return InvalidArgumentError(
          "NextNamed cannot return the SparseTensor \"" + names()[c] +
          "\" (three tensors); use Next()");
    }
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple batch, Next(options));
  NamedTuple named;
  for (size_t i = 0; i < batch.size() && i < names().size(); ++i) {
    named.emplace(names()[i], std::move(batch[i]));
  }
  return named;
}

}  // namespace inflow
