// Copyright 2026 The inflow Authors.

#include "threads/run_catching.h"

#include <cxxabi.h>

#include <exception>
#include <string>

namespace inflow::internal {

Status RunCatching(const std::function<Status()>& fn, std::string_view prefix) {
  try {
    return fn();
  } catch (abi::__forced_unwind&) {
    throw;
  } catch (const std::exception& e) {
    return UnknownError(std::string(prefix) + ": " + e.what());
  } catch (...) {
    return UnknownError("non-standard " + std::string(prefix));
  }
}

}  // namespace inflow::internal
