// Copyright 2026 The inflow Authors.

#include "checkpoint/block_builder.h"

#include <algorithm>
#include <cassert>

#include "proto/wire.h"

namespace inflow::internal {

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(restart_interval) {
  assert(restart_interval >= 1);
  Reset();
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);  // the first entry is always a restart point
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  return buffer_.size() + restarts_.size() * sizeof(uint32_t) +
         sizeof(uint32_t);
}

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;
  PutVarint(&buffer_, static_cast<uint32_t>(shared));
  PutVarint(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.substr(shared));
  buffer_.append(value);
  last_key_.resize(shared);
  last_key_.append(key.substr(shared));
  ++counter_;
}

std::string_view BlockBuilder::Finish() {
  if (!finished_) {
    for (uint32_t restart : restarts_) PutFixed32(&buffer_, restart);
    PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return buffer_;
}

}  // namespace inflow::internal
