// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/util/event.proto and
// tensorflow/core/framework/summary.proto.

#include "inflow/summary/event.h"

#include <cstring>

#include "proto/wire.h"

namespace inflow {
namespace {

using internal::kWireFixed32;
using internal::kWireFixed64;
using internal::kWireLen;
using internal::kWireVarint;
using internal::PutFixed32;
using internal::PutFixed64Field;
using internal::PutLengthDelimited;
using internal::PutTag;
using internal::PutVarintField;
using internal::WalkFields;
using internal::WireReader;

// Event
constexpr int kWallTime = 1;
constexpr int kStep = 2;
constexpr int kSourceMetadata = 10;
// SourceMetadata
constexpr int kWriter = 1;
// Summary
constexpr int kSummaryValue = 1;
// Summary.Value
constexpr int kTag = 1;
constexpr int kNodeName = 7;
constexpr int kMetadata = 9;

std::string SerializeValue(const SummaryValue& v) {
  using Kind = SummaryValue::Kind;
  std::string out;
  if (!v.tag.empty()) PutLengthDelimited(&out, kTag, v.tag);
  if (v.kind == Kind::kSimpleValue) {
    uint32_t bits;
    std::memcpy(&bits, &v.simple_value, 4);
    // A oneof member: written when set, even as 0.0.
    PutTag(&out, static_cast<int>(Kind::kSimpleValue), kWireFixed32);
    PutFixed32(&out, bits);
  } else if (v.kind != Kind::kNone && v.kind != Kind::kTensor) {
    PutLengthDelimited(&out, static_cast<int>(v.kind), v.payload);
  }
  if (!v.node_name.empty()) PutLengthDelimited(&out, kNodeName, v.node_name);
  if (v.kind == Kind::kTensor) {
    PutLengthDelimited(&out, static_cast<int>(Kind::kTensor), v.payload);
  }
  if (v.has_metadata) PutLengthDelimited(&out, kMetadata, v.metadata);
  return out;
}

Status Malformed(std::string_view what, size_t offset) {
  return InvalidArgumentError("malformed " + std::string(what) +
                              " at byte offset " + std::to_string(offset));
}

// Walks the message `bytes`, which starts `base` bytes into the event,
// with on_field(field, wire_type, reader, &status) -> bool (as WalkFields'
// on_field; a nested message's error goes in `status`). A field that does
// not parse is INVALID_ARGUMENT naming `what` and the field's offset.
template <typename OnField>
Status WalkMessage(std::string_view bytes, size_t base, std::string_view what,
                   OnField&& on_field) {
  Status nested;
  size_t bad = 0;
  const bool ok = WalkFields(
      bytes,
      [&](uint32_t field, int wire_type, WireReader& r) {
        return on_field(field, wire_type, r, &nested);
      },
      &bad);
  if (ok) return OkStatus();
  if (!nested.ok()) return nested;
  return Malformed(what, base + bad);
}

// SummaryMetadata is kept as its bytes, but they must parse as
// TensorFlow's reader parses them: its fields, and those of its
// plugin_data (1), well-formed.
bool WellFormedMetadata(std::string_view bytes) {
  return WalkFields(bytes, [](uint32_t field, int wt, WireReader& r) {
    if (field != 1 || wt != kWireLen) return true;
    std::string_view plugin_data;
    return r.ReadLengthDelimited(&plugin_data) &&
           WalkFields(plugin_data,
                      [](uint32_t, int, WireReader&) { return true; });
  });
}

// Parses a Summary.Value at `base` bytes into the event.
Status ParseValue(std::string_view bytes, size_t base, SummaryValue* v) {
  using Kind = SummaryValue::Kind;
  return WalkMessage(
      bytes, base, "Summary.Value",
      [&](uint32_t field, int wt, WireReader& r, Status*) {
        if (field == static_cast<uint32_t>(Kind::kSimpleValue) &&
            wt == kWireFixed32) {
          uint32_t bits;
          if (!r.ReadFixed32(&bits)) return false;
          std::memcpy(&v->simple_value, &bits, 4);
          v->kind = Kind::kSimpleValue;
          v->payload.clear();
          return true;
        }
        if (wt != kWireLen ||
            !(field == kTag || field == kNodeName || field == kMetadata ||
              (field >= 3 && field <= 8))) {
          return true;  // skipped
        }
        std::string_view payload;
        if (!r.ReadLengthDelimited(&payload)) return false;
        if (field == kTag) {
          v->tag = std::string(payload);
        } else if (field == kNodeName) {
          v->node_name = std::string(payload);
        } else if (field == kMetadata) {
          if (!WellFormedMetadata(payload)) return false;
          v->metadata = std::string(payload);
          v->has_metadata = true;
        } else {
          v->kind = static_cast<Kind>(field);
          v->payload = std::string(payload);
          v->simple_value = 0;
        }
        return true;
      });
}

Status ParseSummary(std::string_view bytes, size_t base,
                    std::vector<SummaryValue>* values) {
  return WalkMessage(
      bytes, base, "Summary",
      [&](uint32_t field, int wt, WireReader& r, Status* nested) {
        if (field != kSummaryValue || wt != kWireLen) return true;
        std::string_view payload;
        if (!r.ReadLengthDelimited(&payload)) return false;
        SummaryValue v;
        *nested =
            ParseValue(payload, base + (payload.data() - bytes.data()), &v);
        if (!nested->ok()) return false;
        values->push_back(std::move(v));
        return true;
      });
}

Status ParseSourceMetadata(std::string_view bytes, size_t base,
                           std::string* writer) {
  return WalkMessage(bytes, base, "SourceMetadata",
                     [&](uint32_t field, int wt, WireReader& r, Status*) {
                       if (field != kWriter || wt != kWireLen) return true;
                       std::string_view payload;
                       if (!r.ReadLengthDelimited(&payload)) return false;
                       *writer = std::string(payload);
                       return true;
                     });
}

}  // namespace

Event ScalarEvent(std::string_view tag, float value, int64_t step,
                  double wall_time) {
  Event event;
  event.wall_time = wall_time;
  event.step = step;
  event.what = Event::What::kSummary;
  SummaryValue v;
  v.tag = std::string(tag);
  v.kind = SummaryValue::Kind::kSimpleValue;
  v.simple_value = value;
  event.summary.push_back(std::move(v));
  return event;
}

std::string SerializeEvent(const Event& event) {
  using What = Event::What;
  std::string out;
  uint64_t wall_bits;
  std::memcpy(&wall_bits, &event.wall_time, 8);
  PutFixed64Field(&out, kWallTime, wall_bits);
  PutVarintField(&out, kStep, event.step);
  switch (event.what) {
    case What::kNone:
      break;
    case What::kFileVersion:
      PutLengthDelimited(&out, static_cast<int>(What::kFileVersion),
                         event.file_version);
      break;
    case What::kSummary: {
      std::string summary;
      for (const SummaryValue& v : event.summary) {
        PutLengthDelimited(&summary, kSummaryValue, SerializeValue(v));
      }
      PutLengthDelimited(&out, static_cast<int>(What::kSummary), summary);
      break;
    }
    default:
      PutLengthDelimited(&out, static_cast<int>(event.what), event.payload);
      break;
  }
  if (event.has_source_metadata) {
    std::string meta;
    if (!event.source_writer.empty()) {
      PutLengthDelimited(&meta, kWriter, event.source_writer);
    }
    PutLengthDelimited(&out, kSourceMetadata, meta);
  }
  return out;
}

Result<Event> ParseEvent(std::string_view bytes) {
  using What = Event::What;
  Event event;
  INFLOW_RETURN_IF_ERROR(WalkMessage(
      bytes, 0, "Event",
      [&](uint32_t field, int wt, WireReader& r, Status* nested) {
        if (field == kWallTime && wt == kWireFixed64) {
          uint64_t bits;
          if (!r.ReadFixed64(&bits)) return false;
          std::memcpy(&event.wall_time, &bits, 8);
          return true;
        }
        if (field == kStep && wt == kWireVarint) {
          return r.ReadInt64(&event.step);
        }
        if (wt != kWireLen || field < 3 || field > kSourceMetadata) {
          return true;  // skipped
        }
        std::string_view payload;
        if (!r.ReadLengthDelimited(&payload)) return false;
        const size_t base = static_cast<size_t>(payload.data() - bytes.data());
        if (field == kSourceMetadata) {
          event.has_source_metadata = true;
          *nested = ParseSourceMetadata(payload, base, &event.source_writer);
          return nested->ok();
        }
        const What what = static_cast<What>(field);
        // A oneof: the last member on the wire wins; a repeated Summary
        // merges (its values concatenate), as protobuf's parser does.
        if (what != event.what) {
          event.file_version.clear();
          event.summary.clear();
          event.payload.clear();
          event.what = what;
        }
        if (what == What::kFileVersion) {
          event.file_version = std::string(payload);
        } else if (what == What::kSummary) {
          *nested = ParseSummary(payload, base, &event.summary);
          return nested->ok();
        } else {
          event.payload = std::string(payload);
        }
        return true;
      }));
  return event;
}

std::string_view EventWhatName(Event::What what) {
  switch (what) {
    case Event::What::kNone:
      return "none";
    case Event::What::kFileVersion:
      return "file_version";
    case Event::What::kGraphDef:
      return "graph_def";
    case Event::What::kSummary:
      return "summary";
    case Event::What::kLogMessage:
      return "log_message";
    case Event::What::kSessionLog:
      return "session_log";
    case Event::What::kTaggedRunMetadata:
      return "tagged_run_metadata";
    case Event::What::kMetaGraphDef:
      return "meta_graph_def";
  }
  return "unknown";
}

std::string_view SummaryKindName(SummaryValue::Kind kind) {
  switch (kind) {
    case SummaryValue::Kind::kNone:
      return "none";
    case SummaryValue::Kind::kSimpleValue:
      return "simple_value";
    case SummaryValue::Kind::kObsoleteHistogram:
      return "obsolete_old_style_histogram";
    case SummaryValue::Kind::kImage:
      return "image";
    case SummaryValue::Kind::kHistogram:
      return "histo";
    case SummaryValue::Kind::kAudio:
      return "audio";
    case SummaryValue::Kind::kTensor:
      return "tensor";
  }
  return "unknown";
}

}  // namespace inflow
