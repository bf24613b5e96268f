// Copyright 2026 The inflow Authors.
//
// Zero-copy views of serialized tf.train.Example and SequenceExample
// records. Parsing validates the whole record against the protobuf wire
// rules (docs/formats.md, "Example") and records where each feature's
// values lie; the values themselves are read in place, so a bytes value is
// a std::string_view into the record.
//
// Lifetimes: every view references the serialized bytes it was parsed
// from; those bytes must outlive the view. Views are values;
// thread-compatible.

#ifndef INFLOW_EXAMPLE_FEATURE_VIEW_H_
#define INFLOW_EXAMPLE_FEATURE_VIEW_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/status.h"

namespace inflow {

// Which list a tf.train.Feature holds (its oneof `kind`).
enum class FeatureKind : uint8_t {
  kNone = 0,
  kBytes = 1,
  kFloat = 2,
  kInt64 = 3
};

// "none", "bytes_list", "float_list", "int64_list".
std::string_view FeatureKindName(FeatureKind kind);
// The kind that holds `dtype` values (string, float32, int64), else kNone.
FeatureKind FeatureKindFor(DType dtype);

namespace internal {
struct FeatureViewAccess;
}  // namespace internal

// One tf.train.Feature. When the oneof appears several times on the wire,
// the last member wins, and repeated occurrences of that member merge
// (their values concatenate), as in libprotobuf.
class FeatureView {
 public:
  // A feature with no kind set.
  FeatureView() = default;

  // Validates one serialized Feature message. INVALID_ARGUMENT (with the
  // byte offset relative to `base`, the start of the record) when
  // malformed.
  static Status Parse(std::string_view feature, const char* base,
                      FeatureView* out);

  FeatureKind kind() const { return kind_; }
  // Number of values in the list.
  int64_t size() const { return size_; }

  // Copy the values in wire order into out[0, size()). Precondition: the
  // kind matches.
  void CopyFloats(float* out) const;
  void CopyInt64s(int64_t* out) const;
  void CopyBytes(std::string* out) const;

  // Calls f(std::string_view) for each bytes value, in wire order; the
  // views point into the record. Precondition: kind() == kBytes.
  template <typename F>
  void ForEachBytes(F&& f) const {
    BytesIterator it(*this);
    std::string_view v;
    while (it.Next(&v)) f(v);
  }

  // Iterates bytes values without copying them.
  class BytesIterator {
   public:
    explicit BytesIterator(const FeatureView& view);
    bool Next(std::string_view* value);

   private:
    std::string_view outer_;  // remaining Feature fields (multi-list case)
    std::string_view list_;   // remaining fields of the current BytesList
    bool single_;
  };

 private:
  friend class BytesIterator;
  // The parsers in src/example fill views directly.
  friend struct internal::FeatureViewAccess;
  // Calls f(list payload) for each list message that counts.
  template <typename F>
  void ForEachList(F&& f) const;

  // single_list_: data_ is one list payload. Otherwise data_ is the tail of
  // the Feature message from the first list field that counts.
  std::string_view data_;
  int64_t size_ = 0;
  FeatureKind kind_ = FeatureKind::kNone;
  bool single_list_ = true;
};

struct FeatureEntry {
  std::string_view key;
  FeatureView value;
};

// A tf.train.Example (or any tf.train.Features) as a list of map entries.
// Not thread-safe; reusable: Parse() keeps its storage.
class ExampleView {
 public:
  // Parses and validates `serialized`. INVALID_ARGUMENT when malformed;
  // the view is then empty.
  Status Parse(std::string_view serialized);

  // Map entries in wire order. A key may appear more than once; the last
  // entry wins (Find does that).
  std::span<const FeatureEntry> entries() const { return entries_; }
  // The winning entry for `key`, or nullptr when the key is absent.
  const FeatureView* Find(std::string_view key) const;
  // Whether the record held a `features` field at all.
  bool has_features() const { return has_features_; }

 private:
  std::vector<FeatureEntry> entries_;
  // Feature messages that were split over several value fields of one
  // map entry, joined so that a FeatureView can cover them (rare).
  std::vector<std::unique_ptr<std::string>> joined_;
  bool has_features_ = false;
};

struct FeatureListEntry {
  std::string_view key;
  std::span<const FeatureView> features;  // the steps, in order
};

// A tf.train.SequenceExample: context features and feature lists.
// Not thread-safe; reusable.
class SequenceExampleView {
 public:
  Status Parse(std::string_view serialized);

  std::span<const FeatureEntry> context() const { return context_; }
  std::span<const FeatureListEntry> feature_lists() const {
    return feature_lists_;
  }
  const FeatureView* FindContext(std::string_view key) const;
  // nullptr when absent; last entry wins.
  const FeatureListEntry* FindFeatureList(std::string_view key) const;
  bool has_context() const { return has_context_; }
  bool has_feature_lists() const { return has_feature_lists_; }

 private:
  std::vector<FeatureEntry> context_;
  std::vector<FeatureListEntry> feature_lists_;
  std::vector<FeatureView> steps_;
  std::vector<std::unique_ptr<std::string>> joined_;
  bool has_context_ = false;
  bool has_feature_lists_ = false;
};

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_FEATURE_VIEW_H_
