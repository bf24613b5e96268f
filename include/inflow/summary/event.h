// Copyright 2026 The inflow Authors.
//
// tensorflow.Event, the record of a TensorBoard event file
// (docs/formats.md "Event files"), as a plain value with an encoder and a
// decoder. The encoder writes what TensorFlow's C++ protobuf writes for
// the same message (fields in number order, proto3 defaults omitted, the
// `what` member always written when set); the decoder accepts any valid
// encoding, skips unknown fields and keeps the members it does not
// interpret (graph_def, session_log, ...) as their serialized bytes.
//
// Values; thread-compatible.

#ifndef INFLOW_SUMMARY_EVENT_H_
#define INFLOW_SUMMARY_EVENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"

namespace inflow {

// One tensorflow.Summary.Value.
struct SummaryValue {
  // Which member of the `value` oneof is set; the numbers are the fields'.
  enum class Kind : int {
    kNone = 0,
    kSimpleValue = 2,
    kObsoleteHistogram = 3,
    kImage = 4,
    kHistogram = 5,
    kAudio = 6,
    kTensor = 8,
  };
  std::string tag;
  std::string node_name;
  Kind kind = Kind::kNone;
  float simple_value = 0;  // kSimpleValue
  std::string payload;     // the other kinds: the member's serialized bytes
  std::string metadata;    // serialized SummaryMetadata; empty when unset
  bool has_metadata = false;

  friend bool operator==(const SummaryValue&, const SummaryValue&) = default;
};

struct Event {
  // Which member of the `what` oneof is set; the numbers are the fields'.
  enum class What : int {
    kNone = 0,
    kFileVersion = 3,
    kGraphDef = 4,
    kSummary = 5,
    kLogMessage = 6,
    kSessionLog = 7,
    kTaggedRunMetadata = 8,
    kMetaGraphDef = 9,
  };
  double wall_time = 0;
  int64_t step = 0;
  What what = What::kNone;
  std::string file_version;           // kFileVersion
  std::vector<SummaryValue> summary;  // kSummary
  std::string payload;                // the other kinds: serialized bytes
  std::string source_writer;          // SourceMetadata.writer
  bool has_source_metadata = false;

  friend bool operator==(const Event&, const Event&) = default;
};

// An event holding one simple_value scalar, as tf.compat.v1.summary.scalar
// and FileWriter.add_summary write it.
Event ScalarEvent(std::string_view tag, float value, int64_t step,
                  double wall_time);

// The proto field names of the event's payload ("file_version",
// "summary", ...) and of a summary value's kind ("simple_value", "histo",
// ...), as TensorFlow names them; "unknown" for a value outside the enum.
std::string_view EventWhatName(Event::What what);
std::string_view SummaryKindName(SummaryValue::Kind kind);

std::string SerializeEvent(const Event& event);

// INVALID_ARGUMENT "malformed Event: ... at byte offset N" when `bytes` is
// not a valid Event.
[[nodiscard]] Result<Event> ParseEvent(std::string_view bytes);

}  // namespace inflow

#endif  // INFLOW_SUMMARY_EVENT_H_
