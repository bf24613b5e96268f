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

namespace inflow::internal {

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

struct ParsedSchema {
  enum class Type { kFixedLen, kVarLen, kFixedLenSequence };
  struct Spec {
    std::string key;
    KeyWords words;  // of key
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
        const KeyWords words = WordsOf(key);
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

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_PARSED_SCHEMA_H_
