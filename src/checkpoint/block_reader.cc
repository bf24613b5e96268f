// Copyright 2026 The inflow Authors.

#include "checkpoint/block_reader.h"

#include <limits>
#include <utility>

#include "proto/wire.h"

namespace inflow::internal {

namespace {

struct EntryHeader {
  uint32_t shared = 0;
  uint32_t non_shared = 0;
  uint32_t value_length = 0;
  size_t header_length = 0;  // bytes of the three varints
};

// Decodes the lengths at the front of `in` (the bytes from the entry to
// the restart array) and checks that key and value fit in `in`. Returns
// the message for the damage, or nullptr.
const char* DecodeEntryHeader(std::string_view in, EntryHeader* h) {
  const size_t available = in.size();
  if (!GetVarint32(&in, &h->shared) || !GetVarint32(&in, &h->non_shared) ||
      !GetVarint32(&in, &h->value_length)) {
    return "bad entry in block (malformed length varints)";
  }
  h->header_length = available - in.size();
  if (uint64_t{h->non_shared} + h->value_length > in.size()) {
    return "bad entry in block (key and value run past the entries' end)";
  }
  return nullptr;
}

}  // namespace

Result<std::shared_ptr<const Block>> Block::Parse(BlockContents contents,
                                                  std::string what,
                                                  std::string file_name) {
  std::shared_ptr<Block> block(new Block());
  block->contents_ = std::move(contents);
  block->what_ = std::move(what);
  block->file_name_ = std::move(file_name);
  const std::string_view data = block->contents_.data;
  if (data.size() < sizeof(uint32_t)) {
    return block->Corruption(
        "bad block contents (too short for the restart count)", 0);
  }
  if (data.size() > std::numeric_limits<uint32_t>::max()) {
    return block->Corruption("bad block contents (larger than 4 GiB)", 0);
  }
  const uint32_t count_at = static_cast<uint32_t>(data.size() - 4);
  const uint32_t num_restarts = DecodeFixed32(data.data() + count_at);
  if (num_restarts == 0 || num_restarts > count_at / 4) {
    return block->Corruption("bad block contents (restart count " +
                                 std::to_string(num_restarts) +
                                 " does not fit the block)",
                             count_at);
  }
  block->restarts_offset_ = count_at - 4 * num_restarts;
  const uint32_t end = block->restarts_offset_;
  block->restarts_.reserve(num_restarts);
  for (uint32_t i = 0; i < num_restarts; ++i) {
    const uint32_t at = end + 4 * i;
    const uint32_t restart = DecodeFixed32(data.data() + at);
    // The first entry is a restart point; the others follow in order,
    // each at an entry before the restart array. An empty block has the
    // one restart point 0.
    const bool ok = i == 0 ? restart == 0
                           : restart > block->restarts_.back() && restart < end;
    if (!ok || (i == 0 && end == 0 && num_restarts != 1)) {
      return block->Corruption("bad block contents (restart point " +
                                   std::to_string(i) + " is " +
                                   std::to_string(restart) + ")",
                               at);
    }
    block->restarts_.push_back(restart);
  }
  return std::shared_ptr<const Block>(std::move(block));
}

Status Block::Corruption(std::string_view message, uint64_t pos) const {
  std::string detail(message);
  if (contents_.compressed) {
    // No file offset for bytes inside a compressed block: name the block's
    // and the byte in its uncompressed contents.
    detail +=
        " (byte " + std::to_string(pos) + " of the uncompressed " + what_ + ")";
    return TableDataLoss(detail, contents_.handle.offset, file_name_);
  }
  detail += " (byte " + std::to_string(pos) + " of the " + what_ +
            " at offset " + std::to_string(contents_.handle.offset) + ")";
  return TableDataLoss(detail, contents_.handle.offset + pos, file_name_);
}

BlockIterator::BlockIterator(std::shared_ptr<const Block> block)
    : block_(std::move(block)) {}

void BlockIterator::Fail(std::string_view message, uint64_t pos) {
  valid_ = false;
  key_.clear();
  value_ = {};
  next_ = block_->restarts_offset();
  if (status_.ok()) status_ = block_->Corruption(message, pos);
}

void BlockIterator::SeekToRestart(size_t index) {
  key_.clear();
  value_ = {};
  valid_ = false;
  has_key_ = false;
  next_ = block_->restarts()[index];
  next_restart_ = index;
}

bool BlockIterator::ParseNext() {
  if (!status_.ok()) return false;
  const std::vector<uint32_t>& restarts = block_->restarts();
  const uint32_t end = block_->restarts_offset();
  const uint32_t pos = next_;
  const bool more_restarts = next_restart_ < restarts.size() && end > 0;
  if (more_restarts && restarts[next_restart_] < pos) {
    Fail("bad block contents (restart point " + std::to_string(next_restart_) +
             " is not at an entry)",
         restarts[next_restart_]);
    return false;
  }
  if (pos >= end) {
    valid_ = false;
    key_.clear();
    value_ = {};
    return false;
  }
  const bool at_restart = more_restarts && restarts[next_restart_] == pos;
  EntryHeader h;
  const std::string_view rest = block_->data().substr(pos, end - pos);
  if (const char* damage = DecodeEntryHeader(rest, &h)) {
    Fail(damage, pos);
    return false;
  }
  if (h.shared > key_.size() || (at_restart && h.shared != 0)) {
    Fail("bad entry in block (shares " + std::to_string(h.shared) +
             " bytes with a previous key of " +
             std::to_string(at_restart ? 0 : key_.size()) + ")",
         pos);
    return false;
  }
  const std::string_view delta = rest.substr(h.header_length, h.non_shared);
  if (has_key_) {
    // The new key must sort after the previous one: compare the first
    // differing byte past the shared prefix.
    const std::string_view old_tail = std::string_view(key_).substr(h.shared);
    if (delta.compare(old_tail) <= 0) {
      Fail("bad entry in block (key not after the previous key)", pos);
      return false;
    }
  }
  key_.resize(h.shared);
  key_.append(delta);
  value_ = rest.substr(h.header_length + h.non_shared, h.value_length);
  next_ = pos + static_cast<uint32_t>(h.header_length + h.non_shared +
                                      h.value_length);
  if (at_restart) ++next_restart_;
  current_ = pos;
  valid_ = true;
  has_key_ = true;
  return true;
}

void BlockIterator::SeekToFirst() {
  if (!status_.ok()) return;
  SeekToRestart(0);
  ParseNext();
}

void BlockIterator::Next() {
  if (!valid_) return;
  ParseNext();
}

void BlockIterator::Seek(std::string_view target) {
  if (!status_.ok()) return;
  const std::vector<uint32_t>& restarts = block_->restarts();
  const uint32_t end = block_->restarts_offset();
  // The last restart point whose key is < target (or the first).
  size_t left = 0;
  size_t right = restarts.size() - 1;
  while (left < right) {
    const size_t mid = left + (right - left + 1) / 2;
    const uint32_t pos = restarts[mid];
    const std::string_view rest = block_->data().substr(pos, end - pos);
    EntryHeader h;
    if (const char* damage = DecodeEntryHeader(rest, &h)) {
      Fail(damage, pos);
      return;
    }
    if (h.shared != 0) {
      Fail("bad entry in block (a restart point shares bytes)", pos);
      return;
    }
    if (rest.substr(h.header_length, h.non_shared) < target) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  SeekToRestart(left);
  while (ParseNext()) {
    if (std::string_view(key_) >= target) return;
  }
}

}  // namespace inflow::internal
