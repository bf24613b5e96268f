// Copyright 2026 The inflow Authors.
//
// BlockBuilder: the entries of one table block with prefix compression.
// Each entry stores the length of the prefix it shares with the previous
// key, the rest of the key and the value; every `restart_interval`-th
// entry shares nothing and its offset goes into the restart array at the
// block's end (docs/formats.md, "The .index file").
//
// Not thread-safe.

#ifndef INFLOW_CHECKPOINT_BLOCK_BUILDER_H_
#define INFLOW_CHECKPOINT_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inflow::internal {

class BlockBuilder {
 public:
  // `restart_interval` >= 1.
  explicit BlockBuilder(int restart_interval);

  // Starts an empty block.
  void Reset();
  // `key` must sort after the previous key added since Reset() (the
  // caller checks).
  void Add(std::string_view key, std::string_view value);
  // Appends the restart array and returns the block; valid until Reset().
  std::string_view Finish();

  // The size the block would have if finished now.
  size_t CurrentSizeEstimate() const;
  bool empty() const { return buffer_.empty(); }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;  // entries since the last restart
  bool finished_ = false;
  std::string last_key_;
};

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_BLOCK_BUILDER_H_
