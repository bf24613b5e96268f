// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as an Event record, and as the messages the
// shared wire module decodes (TensorShapeProto, VersionDef). Anything may
// be rejected; nothing may crash or read out of bounds. An Event that
// parses must re-encode to bytes that parse to an Event that encodes to
// the same bytes (compared as bytes: a NaN wall time or value is not
// equal to itself).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inflow/summary/event.h"

#include "proto/tf_schema.h"
#include "proto/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  inflow::Result<inflow::Event> event = inflow::ParseEvent(bytes);
  if (event.ok()) {
    const std::string once = inflow::SerializeEvent(*event);
    inflow::Result<inflow::Event> again = inflow::ParseEvent(once);
    if (!again.ok() || inflow::SerializeEvent(*again) != once) std::abort();
  }

  inflow::internal::ShapeFields shape;
  inflow::internal::MergeShapeProto(bytes, &shape);
  inflow::internal::VersionDef version;
  inflow::internal::MergeVersionDef(bytes, &version);
  // Every field of a walk that succeeds was inside the buffer.
  size_t bad = 0;
  const bool ok = inflow::internal::WalkFields(
      bytes,
      [&](uint32_t, int, inflow::internal::WireReader& r) {
        if (r.offset() > size) std::abort();
        return true;
      },
      &bad);
  if (!ok && bad >= size) std::abort();
  return 0;
}
