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
  if (!input.sparse.empty() && input.sparse.size() != input.dtypes.size()) {
    return InvalidArgumentError(
        which + "has " + std::to_string(input.sparse.size()) +
        " sparse flags for " + std::to_string(input.dtypes.size()) + " dtypes");
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

bool IsSparse(const BatchInput& input, size_t c) {
  return !input.sparse.empty() && input.sparse[c];
}

// The rank of one row of sparse component `c` (-1: unknown), as TF's
// _store_sparse_tensors infers it from the static dense shape.
Result<int> SparseRowRank(const BatchInput& input, size_t c, bool enqueue_many,
                          const std::string& where) {
  const PartialShape& shape = input.shapes[c];
  if (!shape.rank_known()) return -1;
  const int rank = shape.rank();
  if (!enqueue_many) return rank;
  if (rank < 2) {
    return InvalidArgumentError(
        where + "SparseTensor component " + std::to_string(c) + " has rank " +
        std::to_string(rank) + ", but enqueue_many needs a batch (rank >= 2)");
  }
  return rank - 1;
}

// The sparse components of `inputs`, the same in every input (TF's
// _store_sparse_tensors_join: "Inconsistent SparseTensors list").
Status SparseComponents(const std::vector<BatchInput>& inputs,
                        bool enqueue_many, const std::string& where,
                        BatchSignature* sig) {
  const size_t n = inputs[0].dtypes.size();
  sig->components.assign(n, SparseRows::Component{});
  for (size_t c = 0; c < n; ++c) {
    SparseRows::Component& comp = sig->components[c];
    comp.sparse = IsSparse(inputs[0], c);
    comp.dtype = inputs[0].dtypes[c];
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (IsSparse(inputs[i], c) != comp.sparse) {
        return InvalidArgumentError(
            where + "Inconsistent SparseTensors list: component " +
            std::to_string(c) + " is " + (comp.sparse ? "" : "not ") +
            "sparse in input 0 but " + (comp.sparse ? "not " : "") +
            "in input " + std::to_string(i));
      }
      if (!comp.sparse) continue;
      INFLOW_ASSIGN_OR_RETURN(int rank,
                              SparseRowRank(inputs[i], c, enqueue_many, where));
      if (i == 0 || comp.rank < 0) {
        comp.rank = rank;
      } else if (rank >= 0 && rank != comp.rank) {
        return InvalidArgumentError(
            where + "Inconsistent SparseTensors list: component " +
            std::to_string(c) + " has rank " + std::to_string(comp.rank) +
            " in input 0 and " + std::to_string(rank) + " in input " +
            std::to_string(i));
      }
    }
    sig->has_sparse = sig->has_sparse || comp.sparse;
  }
  return OkStatus();
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
  INFLOW_RETURN_IF_ERROR(
      SparseComponents(inputs, options.enqueue_many, where, &sig));
  // A sparse component's queue element: its handle, int64 [1].
  const PartialShape handle_shape({1});
  for (size_t c = 0; c < n; ++c) {
    if (sig.components[c].sparse) sig.dtypes[c] = DType::kInt64;
  }
  if (!options.shapes.empty()) {
    if (options.shapes.size() != n) {
      return InvalidArgumentError(
          where + "got " + std::to_string(options.shapes.size()) +
          " shapes for " + std::to_string(n) + " components");
    }
    sig.shapes = options.shapes;
    for (size_t c = 0; c < n; ++c) {
      if (!sig.components[c].sparse) continue;
      if (!Merge(sig.shapes[c], handle_shape).has_value()) {
        return InvalidArgumentError(
            where + "Shapes " + handle_shape.DebugString() + " and " +
            sig.shapes[c].DebugString() + " of component " + std::to_string(c) +
            " are incompatible (a SparseTensor is queued as its int64 [1] "
            "handle)");
      }
      sig.shapes[c] = handle_shape;
    }
  } else {
    for (size_t c = 0; c < n; ++c) {
      if (sig.components[c].sparse) {
        sig.shapes.push_back(handle_shape);
        continue;
      }
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
