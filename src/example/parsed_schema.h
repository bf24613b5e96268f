// Copyright 2026 The inflow Authors.
//
// A validated parsing configuration: the specs in a flat form plus a hash
// table from feature key to spec index. Immutable once built; thread-safe.

#ifndef INFLOW_EXAMPLE_PARSED_SCHEMA_H_
#define INFLOW_EXAMPLE_PARSED_SCHEMA_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

namespace inflow {

namespace internal {

// The first and last (up to) 8 bytes of a key. With the length, they are
// the whole key when it has at most 16 bytes: the words overlap rather
// than read past the end (the key lies inside a record).
struct KeyWords {
  uint64_t first = 0;
  uint64_t last = 0;
};

inline KeyWords WordsOf(std::string_view key) {
  const size_t n = key.size();
  const char* p = key.data();
  KeyWords w;
  if (n >= 8) {
    std::memcpy(&w.first, p, 8);
    std::memcpy(&w.last, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a;
    uint32_t b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    w.first = a;
    w.last = b;
  } else {
    for (size_t i = 0; i < n; ++i) {
      w.first |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
    }
  }
  return w;
}

}  // namespace internal

struct ParsedSchema {
  enum class Type { kFixedLen, kVarLen, kFixedLenSequence };
  struct Spec {
    std::string key;
    internal::KeyWords words;  // of key
    Type type;
    DType dtype;
    FeatureKind kind;
    TensorShape shape;  // per element; unused for kVarLen
    int64_t stride;     // shape.num_elements()
    bool allow_missing;
    std::optional<Tensor> default_value;  // FixedLen: prod(shape); else 1
    int out_index;                        // into dense or sparse
  };

  // Where a spec may appear.
  enum class Context { kExample, kSequenceContext, kSequenceFeatureLists };

  static Result<ParsedSchema> Build(FeatureSpecs specs, Context context);

  // The spec index for `key`, or -1.
  int Lookup(std::string_view key) const;
  // The same, trying spec `guess` first (any value; the usual one is the
  // spec after the previous key's, since records list keys in one order).
  int LookupFrom(std::string_view key, int guess) const {
    if (static_cast<size_t>(guess) < specs.size()) {
      const Spec& spec = specs[static_cast<size_t>(guess)];
      if (spec.key.size() == key.size()) {
        const internal::KeyWords words = internal::WordsOf(key);
        if (words.first == spec.words.first && words.last == spec.words.last &&
            (key.size() <= 16 || spec.key == key)) {
          return guess;
        }
      }
    }
    return Lookup(key);
  }

  std::vector<Spec> specs;
  std::vector<std::string> dense_keys;
  std::vector<std::string> sparse_keys;

 private:
  struct Slot {
    uint64_t first = 0;  // the key's first and last (up to) 8 bytes
    uint64_t last = 0;
    size_t size = 0;
    int32_t index = -1;  // -1: empty
  };
  std::vector<Slot> table_;  // open addressing
  uint64_t mask_ = 0;
};

namespace internal {

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

}  // namespace internal

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_PARSED_SCHEMA_H_
