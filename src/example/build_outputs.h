// Copyright 2026 The inflow Authors.
//
// The last step of the Example and SequenceExample parsers: the output
// tensors of a schema from the winning feature view of each (example,
// spec), with TensorFlow's checks of presence, kind and value count.

#ifndef INFLOW_EXAMPLE_BUILD_OUTPUTS_H_
#define INFLOW_EXAMPLE_BUILD_OUTPUTS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

#include "example/parsed_schema.h"

namespace inflow::internal {

// Copies the values of `view` (whose kind matches dtype) to dst.
inline void CopyValues(const FeatureView& view, DType dtype, void* dst) {
  switch (dtype) {
    case DType::kFloat32:
      view.CopyFloats(static_cast<float*>(dst));
      break;
    case DType::kInt64:
      view.CopyInt64s(static_cast<int64_t*>(dst));
      break;
    default:
      view.CopyBytes(static_cast<std::string*>(dst));
      break;
  }
}

// Where the values of view slot b * S + s already are, when ExampleParser's
// fast path (ParseExampleFast, example_fast_parser.h) filled them while
// parsing.
inline constexpr int64_t kSlotFromView = -1;  // nowhere yet: copy the view
inline constexpr int64_t kSlotInPlace = -2;   // in the FixedLen output row
// (>= 0: var-len values at that offset of the int64 arena, for int64
// features, or of the bytes arena, for bytes features)

// Outputs filled while parsing, for BuildOutputs.
struct Prefilled {
  // By out_index: the FixedLen outputs, allocated before parsing (other
  // entries empty). BuildOutputs takes the vector over as its dense
  // outputs.
  std::vector<Tensor>* dense;
  std::span<const int64_t> slots;  // per view slot, as views
  const int64_t* int64_arena;
  const std::string_view* bytes_arena;
};

// Builds the tensors of `schema` from views[b * S + s], the winning feature
// of spec s in example b (kind kNone when missing). When `present` is not
// empty, present[b * S + s] marks a kNone view as a feature that is there
// with no kind (SequenceExample context, where TensorFlow counts it as
// zero values) rather than missing. `single` drops the batch dimension
// (then batch is 1). Error messages name example b + index_offset.
// `prefilled`, when given, says which values are already in place.
Result<ParsedFeatures> BuildOutputs(const ParsedSchema& schema,
                                    std::span<const FeatureView> views,
                                    std::span<const uint8_t> present,
                                    int64_t batch, bool single,
                                    int64_t index_offset,
                                    const Prefilled* prefilled = nullptr);

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_BUILD_OUTPUTS_H_
