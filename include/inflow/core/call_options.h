// Copyright 2026 The inflow Authors.
//
// CallOptions: how long one blocking call may wait and what releases it.
// Queues, readers and anything else that blocks take one; a Coordinator
// hands out its stop token through Coordinator::MakeCallOptions().

#ifndef INFLOW_CORE_CALL_OPTIONS_H_
#define INFLOW_CORE_CALL_OPTIONS_H_

#include <chrono>
#include <optional>
#include <stop_token>

namespace inflow {

// Options for one blocking call. Copyable and cheap (a duration and a
// shared stop state).
struct CallOptions {
  // How long the call may block; nullopt = forever (TF's timeout_in_ms).
  // A timeout <= 0 never blocks: a call that cannot complete at once fails
  // with DEADLINE_EXCEEDED, leaving the queue untouched.
  std::optional<std::chrono::milliseconds> timeout = {};
  // A stop request releases the blocked call with CANCELLED. A call made
  // with a token already stopped fails with CANCELLED without touching the
  // queue (as TF's already-cancelled ops).
  std::stop_token stop = {};
};

}  // namespace inflow

#endif  // INFLOW_CORE_CALL_OPTIONS_H_
