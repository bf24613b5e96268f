// Copyright 2026 The inflow Authors.

#include "input/batch_signature.h"

#include <optional>
#include <string>
#include <vector>

namespace inflow::internal {
namespace {

std::string DTypeList(const std::vector<DType>& dtypes) {
  std::string out;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (i > 0) out += ", ";
    out += DTypeName(dtypes[i]);
  }
  return out;
}

// TF's TensorShape.merge_with: nullopt when the shapes are incompatible.
std::optional<PartialShape> Merge(const PartialShape& a,
                                  const PartialShape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (a.rank() != b.rank()) return std::nullopt;
  std::vector<int64_t> dims(a.dims());
  for (int d = 0; d < a.rank(); ++d) {
    const int64_t y = b.dim(d);
    if (dims[d] == PartialShape::kUnknownDim) {
      dims[d] = y;
    } else if (y != PartialShape::kUnknownDim && y != dims[d]) {
      return std::nullopt;
    }
  }
  return PartialShape(std::move(dims));
}

Status CheckInput(const BatchInput& input, size_t index,
                  const std::string& where) {
  const std::string which = where + "input " + std::to_string(index) + " ";
  if (input.dtypes.empty()) {
    return InvalidArgumentError(where + "expected at least one tensor in " +
                                "input " + std::to_string(index));
  }
  if (input.shapes.size() != input.dtypes.size()) {
    return InvalidArgumentError(
        which + "has " + std::to_string(input.shapes.size()) + " shapes for " +
        std::to_string(input.dtypes.size()) + " dtypes");
  }
  if (!input.names.empty() && input.names.size() != input.dtypes.size()) {
    return InvalidArgumentError(
        which + "has " + std::to_string(input.names.size()) + " names for " +
        std::to_string(input.dtypes.size()) + " dtypes");
  }
  if (!input.step) return InvalidArgumentError(which + "has no step");
  return OkStatus();
}

// The element shape of component `c` of `input`, as TF infers it.
Result<PartialShape> ElementShape(const BatchInput& input, size_t c,
                                  bool enqueue_many, const std::string& where) {
  const PartialShape& shape = input.shapes[c];
  if (!shape.rank_known()) {
    return InvalidArgumentError(where + "cannot infer the rank of component " +
                                std::to_string(c));
  }
  if (!enqueue_many) return shape;
  if (shape.rank() < 1) {
    return InvalidArgumentError(
        where + "component " + std::to_string(c) +
        " is a scalar, but enqueue_many needs a batch (rank >= 1)");
  }
  return PartialShape(
      std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end()));
}

}  // namespace

Result<BatchSignature> MakeBatchSignature(const std::vector<BatchInput>& inputs,
                                          const BatchOptions& options,
                                          const std::string& function) {
  const std::string where = function + ": ";
  if (inputs.empty()) {
    return InvalidArgumentError(where + "expected at least one input");
  }
  if (options.batch_size <= 0) {
    return InvalidArgumentError(where + "batch_size must be positive, got " +
                                std::to_string(options.batch_size));
  }
  if (options.num_threads < 1) {
    return InvalidArgumentError(where + "num_threads must be positive, got " +
                                std::to_string(options.num_threads));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFLOW_RETURN_IF_ERROR(CheckInput(inputs[i], i, where));
  }

  BatchSignature sig;
  sig.dtypes = inputs[0].dtypes;
  sig.names = inputs[0].names;
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].dtypes != sig.dtypes) {
      return InvalidArgumentError(
          where + "Expected types to be consistent: " + DTypeList(sig.dtypes) +
          " vs. " + DTypeList(inputs[i].dtypes) + ".");
    }
    if (inputs[i].names != sig.names) {
      return InvalidArgumentError(where + "input " + std::to_string(i) +
                                  " has other component names than input 0");
    }
  }

  const size_t n = sig.dtypes.size();
  if (!options.shapes.empty()) {
    if (options.shapes.size() != n) {
      return InvalidArgumentError(
          where + "got " + std::to_string(options.shapes.size()) +
          " shapes for " + std::to_string(n) + " components");
    }
    sig.shapes = options.shapes;
  } else {
    for (size_t c = 0; c < n; ++c) {
      INFLOW_ASSIGN_OR_RETURN(
          PartialShape merged,
          ElementShape(inputs[0], c, options.enqueue_many, where));
      for (size_t i = 1; i < inputs.size(); ++i) {
        INFLOW_ASSIGN_OR_RETURN(
            PartialShape other,
            ElementShape(inputs[i], c, options.enqueue_many, where));
        std::optional<PartialShape> m = Merge(merged, other);
        if (!m) {
          return InvalidArgumentError(
              where + "Shapes " + merged.DebugString() + " and " +
              other.DebugString() + " of component " + std::to_string(c) +
              " (inputs 0 and " + std::to_string(i) + ") are incompatible");
        }
        merged = std::move(*m);
      }
      sig.shapes.push_back(std::move(merged));
    }
  }

  for (size_t c = 0; c < n; ++c) {
    const PartialShape& shape = sig.shapes[c];
    if (!shape.rank_known()) {
      return InvalidArgumentError(where + "component " + std::to_string(c) +
                                  " has an unknown rank");
    }
    if (!options.dynamic_pad && !shape.IsFullyDefined()) {
      return InvalidArgumentError(
          where +
          "All shapes must be fully defined without dynamic_pad: "
          "component " +
          std::to_string(c) + " has shape " + shape.DebugString());
    }
  }
  return sig;
}

}  // namespace inflow::internal
