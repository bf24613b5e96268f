// Copyright 2026 The inflow Authors.
//
// RunCatching: runs code a thread of inflow's calls on a user's behalf (a
// queue op, a Sequence's or a generator's methods), so that an exception
// escaping it stops that work with an error instead of the process.

#ifndef INFLOW_THREADS_RUN_CATCHING_H_
#define INFLOW_THREADS_RUN_CATCHING_H_

#include <functional>
#include <string_view>

#include "inflow/core/status.h"

namespace inflow::internal {

// Runs `fn`, turning an exception escaping it into UNKNOWN "<prefix>:
// <what()>", or "non-standard <prefix>" for one that is no
// std::exception. pthread_exit's unwinding (Python ends daemon threads so
// at exit) goes on: stopping it would abort the process.
Status RunCatching(const std::function<Status()>& fn,
                   std::string_view prefix = "exception");

}  // namespace inflow::internal

#endif  // INFLOW_THREADS_RUN_CATCHING_H_
