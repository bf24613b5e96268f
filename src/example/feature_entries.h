// Copyright 2026 The inflow Authors.
//
// tf.train.Example and tf.train.Features messages as lists of map
// entries: what ExampleView, SequenceExampleView (its context) and
// ExampleParser's general path parse a record into. The whole message is
// validated; entries keep wire order, duplicate keys included (the last
// one wins for the callers).

#ifndef INFLOW_EXAMPLE_FEATURE_ENTRIES_H_
#define INFLOW_EXAMPLE_FEATURE_ENTRIES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/status.h"
#include "inflow/example/feature_view.h"

namespace inflow::internal {

// Parses the body of a tf.train.Features message, appending its entries.
// Offsets in errors are relative to `base`, the start of the record.
// `joined` receives the buffers of Feature values split over several
// fields of one map entry; they must live as long as the entries.
// INVALID_ARGUMENT when malformed; entries may then hold some of the
// message's entries.
Status ParseFeatures(std::string_view features, const char* base,
                     std::vector<FeatureEntry>* entries,
                     std::vector<std::unique_ptr<std::string>>* joined);

// Parses a serialized Example, appending its entries, and sets
// *has_features when it holds a `features` field (several merge their
// maps). Errors as ParseFeatures.
Status ParseExampleEntries(std::string_view example,
                           std::vector<FeatureEntry>* entries,
                           std::vector<std::unique_ptr<std::string>>* joined,
                           bool* has_features);

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_FEATURE_ENTRIES_H_
