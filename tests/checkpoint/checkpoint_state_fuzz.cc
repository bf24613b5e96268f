// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a `checkpoint` state file. Anything may
// be rejected (DATA_LOSS); nothing may crash or read out of bounds. A state
// that parses must format to text that parses back to the same state.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inflow/checkpoint/checkpoint_state.h"

namespace {

// NaN never equals itself: compare doubles by their bits' meaning.
bool SameDouble(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

bool Same(const inflow::CheckpointState& a, const inflow::CheckpointState& b) {
  if (a.model_checkpoint_path != b.model_checkpoint_path ||
      a.all_model_checkpoint_paths != b.all_model_checkpoint_paths ||
      a.all_model_checkpoint_timestamps.size() !=
          b.all_model_checkpoint_timestamps.size() ||
      !SameDouble(a.last_preserved_timestamp, b.last_preserved_timestamp)) {
    return false;
  }
  for (size_t i = 0; i < a.all_model_checkpoint_timestamps.size(); ++i) {
    if (!SameDouble(a.all_model_checkpoint_timestamps[i],
                    b.all_model_checkpoint_timestamps[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  inflow::Result<inflow::CheckpointState> state =
      inflow::ParseCheckpointState(text);
  if (!state.ok()) return 0;
  const std::string formatted = inflow::FormatCheckpointState(*state);
  inflow::Result<inflow::CheckpointState> again =
      inflow::ParseCheckpointState(formatted);
  if (!again.ok() || !Same(*again, *state)) std::abort();
  return 0;
}
