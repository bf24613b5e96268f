// Copyright 2026 The inflow Authors.
//
// Block and BlockIterator: reading one table block. Block::Parse checks
// the restart array (count, every offset in order and inside the entries);
// the iterator checks every entry it decodes (varints, shared prefix no
// longer than the previous key, lengths inside the block, keys strictly
// increasing, restart points on entry boundaries sharing nothing). Damage
// is DATA_LOSS naming the file and the byte offset (of the entry in the
// file, or in the uncompressed block for a compressed one).
//
// A Block is immutable and thread-safe; a BlockIterator is not.

#ifndef INFLOW_CHECKPOINT_BLOCK_READER_H_
#define INFLOW_CHECKPOINT_BLOCK_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"

#include "checkpoint/table_format.h"

namespace inflow::internal {

class Block {
 public:
  // `what` ("data block") and `file_name` are for messages.
  static Result<std::shared_ptr<const Block>> Parse(BlockContents contents,
                                                    std::string what,
                                                    std::string file_name);

  // The error for damage at byte `pos` of the contents.
  Status Corruption(std::string_view message, uint64_t pos) const;

  std::string_view data() const { return contents_.data; }
  // Where the entries end and the restart array begins.
  uint32_t restarts_offset() const { return restarts_offset_; }
  const std::vector<uint32_t>& restarts() const { return restarts_; }

 private:
  Block() = default;

  BlockContents contents_;
  std::string what_;
  std::string file_name_;
  uint32_t restarts_offset_ = 0;
  std::vector<uint32_t> restarts_;
};

class BlockIterator {
 public:
  explicit BlockIterator(std::shared_ptr<const Block> block);

  void SeekToFirst();
  // The first entry whose key is >= target.
  void Seek(std::string_view target);
  void Next();
  bool Valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  const Status& status() const { return status_; }
  // The DATA_LOSS error for damage at the current entry (Valid()).
  Status CorruptionAtEntry(std::string_view message) const {
    return block_->Corruption(message, current_);
  }

 private:
  void SeekToRestart(size_t index);
  // Decodes the entry at next_; false at the end or on damage.
  bool ParseNext();
  void Fail(std::string_view message, uint64_t pos);

  std::shared_ptr<const Block> block_;
  uint32_t current_ = 0;     // offset of the current entry
  uint32_t next_ = 0;        // offset of the entry after the current one
  size_t next_restart_ = 0;  // index of the first restart >= next_
  bool valid_ = false;
  bool has_key_ = false;  // an entry was decoded since the last restart
  std::string key_;
  std::string_view value_;
  Status status_;
};

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_BLOCK_READER_H_
