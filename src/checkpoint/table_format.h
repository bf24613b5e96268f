// Copyright 2026 The inflow Authors.
//
// The fixed parts of a LevelDB-format table (docs/formats.md, "The .index
// file"): block handles, the 48-byte footer with its magic number, and the
// 5-byte block trailer (compression type, masked CRC32C over the block and
// the type byte). ReadBlock() reads and checks one block.
//
// Thread-safe: pure functions, and ReadBlock() only reads its file.

#ifndef INFLOW_CHECKPOINT_TABLE_FORMAT_H_
#define INFLOW_CHECKPOINT_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow::internal {

inline constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
// Type byte and masked CRC32C after every block.
inline constexpr size_t kBlockTrailerSize = 5;
// Two varint64 pairs at most.
inline constexpr size_t kMaxBlockHandleLength = 20;
inline constexpr size_t kFooterSize = 2 * kMaxBlockHandleLength + 8;

enum class BlockCompression : uint8_t { kNone = 0, kSnappy = 1 };

// Where a block lies in the file; `size` excludes the trailer.
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;

  void EncodeTo(std::string* dst) const;
  // Parses from the front of *input and advances; false when the varints
  // are malformed.
  [[nodiscard]] bool DecodeFrom(std::string_view* input);
};

struct Footer {
  BlockHandle metaindex;
  BlockHandle index;

  // Exactly kFooterSize bytes.
  std::string Encode() const;
};

// Decodes the last kFooterSize bytes of a `file_size`-byte file called
// `file_name` (`bytes` must be exactly kFooterSize long).
Result<Footer> DecodeFooter(std::string_view bytes,
                            const std::string& file_name, uint64_t file_size);

// A block's uncompressed contents and where it came from, for messages.
struct BlockContents {
  std::string data;
  BlockHandle handle;
  bool compressed = false;
};

// The trailer for `contents` stored with `type`.
std::string BlockTrailer(std::string_view contents, BlockCompression type);

// Reads the block at `handle` (already checked to lie within the file),
// checks its CRC and type and uncompresses it. `what` ("data block",
// "index block") names it in messages. DATA_LOSS on damage; read errors
// from the file are returned with the file name and offset added.
Result<BlockContents> ReadBlock(const RandomAccessFile& file,
                                const BlockHandle& handle,
                                std::string_view what);

// "<message> at offset <offset> in <file>": the form of every table error.
Status TableDataLoss(std::string_view message, uint64_t offset,
                     const std::string& file_name);

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_TABLE_FORMAT_H_
