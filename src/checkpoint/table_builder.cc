// Copyright 2026 The inflow Authors.
//
// TableBuilder, as TensorFlow's (tensorflow/core/lib/io/table_builder.cc
// describes the same layout): data blocks closed at block_size, an index
// entry per data block written only once the next block's first key is
// known (so that a short separator can stand for the block), an empty
// metaindex block, the index block and the footer.

#include <snappy.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "checkpoint/block_builder.h"
#include "checkpoint/table.h"
#include "checkpoint/table_format.h"

namespace inflow::internal {

namespace {

// The shortest string s with start <= s < limit, if cutting `start` after
// its first byte that differs from `limit`, incremented, gives one;
// otherwise `start` unchanged.
void ShortenToSeparator(std::string* start, std::string_view limit) {
  const size_t min_length = std::min(start->size(), limit.size());
  size_t i = 0;
  while (i < min_length && (*start)[i] == limit[i]) ++i;
  if (i >= min_length) return;  // one is a prefix of the other
  const auto byte = static_cast<unsigned char>((*start)[i]);
  if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[i])) {
    (*start)[i] = static_cast<char>(byte + 1);
    start->resize(i + 1);
  }
}

// A short string >= key: its first byte that is not 0xff, incremented,
// ends it. A key of 0xff bytes only stays as it is.
void ShortenToSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<unsigned char>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

// A key for messages: printable ASCII as is, other bytes as \xHH, cut
// after 64 bytes.
std::string Quote(std::string_view key) {
  std::string out = "\"";
  for (size_t i = 0; i < key.size() && i < 64; ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  if (key.size() > 64) out += "...";
  out += '"';
  return out;
}

}  // namespace

struct TableBuilder::Rep {
  Rep(TableOptions opt, WritableFile* f)
      : options(opt),
        file(f),
        data_block(std::max(opt.restart_interval, 1)),
        index_block(1) {}

  void Flush();
  void WriteBlock(BlockBuilder* block, BlockHandle* handle);
  void AddIndexEntry(std::string_view key);

  const TableOptions options;
  WritableFile* const file;
  uint64_t offset = 0;
  Status status;
  BlockBuilder data_block;
  BlockBuilder index_block;
  std::string last_key;
  uint64_t num_entries = 0;
  bool finished = false;
  // The last data block's handle waits here for the first key of the
  // next block (or Finish()), which decides its index key. Only true
  // when data_block is empty.
  bool pending_index_entry = false;
  BlockHandle pending_handle;
  std::string compressed;
};

TableBuilder::TableBuilder(TableOptions options, WritableFile* file)
    : rep_(std::make_unique<Rep>(options, file)) {}

TableBuilder::~TableBuilder() = default;

void TableBuilder::Rep::AddIndexEntry(std::string_view key) {
  std::string encoded;
  pending_handle.EncodeTo(&encoded);
  index_block.Add(key, encoded);
  pending_index_entry = false;
}

void TableBuilder::Rep::WriteBlock(BlockBuilder* block, BlockHandle* handle) {
  const std::string_view raw = block->Finish();
  std::string_view contents = raw;
  BlockCompression type = BlockCompression::kNone;
  if (options.snappy) {
    compressed.clear();
    snappy::Compress(raw.data(), raw.size(), &compressed);
    // As LevelDB: only when it saves at least an eighth.
    if (compressed.size() < raw.size() - raw.size() / 8) {
      contents = compressed;
      type = BlockCompression::kSnappy;
    }
  }
  handle->offset = offset;
  handle->size = contents.size();
  status = file->Append(contents);
  if (status.ok()) status = file->Append(BlockTrailer(contents, type));
  if (status.ok()) offset += contents.size() + kBlockTrailerSize;
  block->Reset();
}

void TableBuilder::Rep::Flush() {
  if (!status.ok() || data_block.empty()) return;
  WriteBlock(&data_block, &pending_handle);
  if (status.ok()) {
    pending_index_entry = true;
    status = file->Flush();
  }
}

Status TableBuilder::Add(std::string_view key, std::string_view value) {
  Rep& r = *rep_;
  if (r.finished) {
    return FailedPreconditionError("TableBuilder::Add after Finish");
  }
  if (!r.status.ok()) return r.status;
  if (r.num_entries > 0 && key <= std::string_view(r.last_key)) {
    return InvalidArgumentError(
        key == std::string_view(r.last_key)
            ? "table keys must be unique: " + Quote(key) +
                  " added twice (previous key " + Quote(r.last_key) + ")"
            : "table keys must be added in increasing order: " + Quote(key) +
                  " sorts before the previous key " + Quote(r.last_key));
  }
  // Entry lengths are varint32s, and offsets in a block u32s.
  constexpr uint64_t kMaxEntry = std::numeric_limits<uint32_t>::max() / 2;
  if (uint64_t{key.size()} + value.size() > kMaxEntry) {
    return InvalidArgumentError("table entry too large: key " + Quote(key) +
                                " with a " + std::to_string(value.size()) +
                                "-byte value (at most 2 GiB)");
  }
  // An entry this large would make the current block overly large: it
  // starts a block of its own (as TensorFlow).
  if (r.num_entries > 0 && uint64_t{key.size()} + value.size() >=
                               2 * uint64_t{r.options.block_size}) {
    r.Flush();
    if (!r.status.ok()) return r.status;
  }
  if (r.pending_index_entry) {
    ShortenToSeparator(&r.last_key, key);
    r.AddIndexEntry(r.last_key);
  }
  r.last_key.assign(key);
  ++r.num_entries;
  r.data_block.Add(key, value);
  if (r.data_block.CurrentSizeEstimate() >= r.options.block_size) r.Flush();
  return r.status;
}

Status TableBuilder::Finish() {
  Rep& r = *rep_;
  if (r.finished) return FailedPreconditionError("TableBuilder::Finish twice");
  r.Flush();
  r.finished = true;
  if (!r.status.ok()) return r.status;
  Footer footer;
  BlockBuilder metaindex(std::max(r.options.restart_interval, 1));
  r.WriteBlock(&metaindex, &footer.metaindex);
  if (!r.status.ok()) return r.status;
  if (r.pending_index_entry) {
    ShortenToSuccessor(&r.last_key);
    r.AddIndexEntry(r.last_key);
  }
  r.WriteBlock(&r.index_block, &footer.index);
  if (!r.status.ok()) return r.status;
  const std::string encoded = footer.Encode();
  r.status = r.file->Append(encoded);
  if (r.status.ok()) r.offset += encoded.size();
  return r.status;
}

uint64_t TableBuilder::num_entries() const { return rep_->num_entries; }

uint64_t TableBuilder::file_size() const { return rep_->offset; }

}  // namespace inflow::internal
