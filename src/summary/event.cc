// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/util/event.proto and
// tensorflow/core/framework/summary.proto.

#include "inflow/summary/event.h"

#include <cstring>

#include "example/wire.h"

namespace inflow {
namespace {

using internal::kWireFixed32;
using internal::kWireFixed64;
using internal::kWireLen;
using internal::kWireVarint;
using internal::PutLengthDelimited;
using internal::PutTag;
using internal::PutVarint;
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

void PutFixed64(std::string* out, int field, uint64_t v) {
  PutTag(out, field, kWireFixed64);
  char buf[8];
  std::memcpy(buf, &v, 8);  // little-endian hosts only (see wire.h)
  out->append(buf, 8);
}

void PutFixed32(std::string* out, int field, uint32_t v) {
  PutTag(out, field, kWireFixed32);
  char buf[4];
  std::memcpy(buf, &v, 4);
  out->append(buf, 4);
}

std::string SerializeValue(const SummaryValue& v) {
  using Kind = SummaryValue::Kind;
  std::string out;
  if (!v.tag.empty()) PutLengthDelimited(&out, kTag, v.tag);
  if (v.kind == Kind::kSimpleValue) {
    uint32_t bits;
    std::memcpy(&bits, &v.simple_value, 4);
    PutFixed32(&out, static_cast<int>(Kind::kSimpleValue), bits);
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

// Parses a Summary.Value at `base` bytes into the event.
Status ParseValue(std::string_view bytes, size_t base, SummaryValue* v) {
  using Kind = SummaryValue::Kind;
  WireReader r(bytes);
  while (!r.done()) {
    const size_t at = base + r.offset();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Summary.Value", at);
    if (field == static_cast<uint32_t>(Kind::kSimpleValue) &&
        wt == kWireFixed32) {
      uint32_t bits;
      if (!r.ReadFixed32(&bits)) return Malformed("Summary.Value", at);
      std::memcpy(&v->simple_value, &bits, 4);
      v->kind = Kind::kSimpleValue;
      v->payload.clear();
      continue;
    }
    if (wt == kWireLen && (field == kTag || field == kNodeName ||
                           field == kMetadata || (field >= 3 && field <= 8))) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) {
        return Malformed("Summary.Value", at);
      }
      if (field == kTag) {
        v->tag = std::string(payload);
      } else if (field == kNodeName) {
        v->node_name = std::string(payload);
      } else if (field == kMetadata) {
        v->metadata = std::string(payload);
        v->has_metadata = true;
      } else {
        v->kind = static_cast<Kind>(field);
        v->payload = std::string(payload);
        v->simple_value = 0;
      }
      continue;
    }
    if (!r.SkipField(field, wt)) return Malformed("Summary.Value", at);
  }
  return OkStatus();
}

Status ParseSummary(std::string_view bytes, size_t base,
                    std::vector<SummaryValue>* values) {
  WireReader r(bytes);
  while (!r.done()) {
    const size_t at = base + r.offset();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Summary", at);
    if (field == kSummaryValue && wt == kWireLen) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) return Malformed("Summary", at);
      SummaryValue v;
      INFLOW_RETURN_IF_ERROR(
          ParseValue(payload, base + (payload.data() - bytes.data()), &v));
      values->push_back(std::move(v));
      continue;
    }
    if (!r.SkipField(field, wt)) return Malformed("Summary", at);
  }
  return OkStatus();
}

Status ParseSourceMetadata(std::string_view bytes, size_t base,
                           std::string* writer) {
  WireReader r(bytes);
  while (!r.done()) {
    const size_t at = base + r.offset();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("SourceMetadata", at);
    if (field == kWriter && wt == kWireLen) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) {
        return Malformed("SourceMetadata", at);
      }
      *writer = std::string(payload);
      continue;
    }
    if (!r.SkipField(field, wt)) return Malformed("SourceMetadata", at);
  }
  return OkStatus();
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
  if (wall_bits != 0) PutFixed64(&out, kWallTime, wall_bits);
  if (event.step != 0) {
    PutTag(&out, kStep, kWireVarint);
    PutVarint(&out, static_cast<uint64_t>(event.step));
  }
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
  WireReader r(bytes);
  while (!r.done()) {
    const size_t at = r.offset();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Event", at);
    if (field == kWallTime && wt == kWireFixed64) {
      uint64_t bits;
      if (!r.ReadFixed64(&bits)) return Malformed("Event", at);
      std::memcpy(&event.wall_time, &bits, 8);
      continue;
    }
    if (field == kStep && wt == kWireVarint) {
      uint64_t v;
      if (!r.ReadVarint(&v)) return Malformed("Event", at);
      event.step = static_cast<int64_t>(v);
      continue;
    }
    if (wt == kWireLen && field >= 3 && field <= kSourceMetadata) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) return Malformed("Event", at);
      const size_t base = static_cast<size_t>(payload.data() - bytes.data());
      if (field == kSourceMetadata) {
        event.has_source_metadata = true;
        INFLOW_RETURN_IF_ERROR(
            ParseSourceMetadata(payload, base, &event.source_writer));
        continue;
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
        INFLOW_RETURN_IF_ERROR(ParseSummary(payload, base, &event.summary));
      } else {
        event.payload = std::string(payload);
      }
      continue;
    }
    if (!r.SkipField(field, wt)) return Malformed("Event", at);
  }
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
