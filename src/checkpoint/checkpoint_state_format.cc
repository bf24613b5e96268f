// Copyright 2026 The inflow Authors.
//
// FormatCheckpointState: the bytes Python protobuf's
// text_format.MessageToString writes for a CheckpointState, which is what
// TensorFlow's Saver and CheckpointManager write.

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "inflow/checkpoint/checkpoint_state.h"

#include "proto/text_format.h"

namespace inflow {

std::string FormatCheckpointState(const CheckpointState& state) {
  std::string out;
  auto string_field = [&out](std::string_view name, std::string_view value) {
    out += name;
    out += ": \"";
    out += internal::TextFormatCEscape(value);
    out += "\"\n";
  };
  auto double_field = [&out](std::string_view name, double value) {
    out += name;
    out += ": ";
    out += internal::PythonFloatRepr(value);
    out += '\n';
  };
  if (!state.model_checkpoint_path.empty()) {
    string_field("model_checkpoint_path", state.model_checkpoint_path);
  }
  for (const std::string& path : state.all_model_checkpoint_paths) {
    string_field("all_model_checkpoint_paths", path);
  }
  for (const double t : state.all_model_checkpoint_timestamps) {
    double_field("all_model_checkpoint_timestamps", t);
  }
  // proto3 omits a double whose bits are all zero; -0.0 is written.
  if (std::bit_cast<uint64_t>(state.last_preserved_timestamp) != 0) {
    double_field("last_preserved_timestamp", state.last_preserved_timestamp);
  }
  return out;
}

}  // namespace inflow
