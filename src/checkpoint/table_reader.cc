// Copyright 2026 The inflow Authors.
//
// Table::Open and the table iterator. Open reads the footer, checks the
// metaindex block and reads the whole index block into memory (one entry
// per data block), checking every handle against the file; the iterator
// reads one data block at a time and checks that each key lies in the
// range the index gives its block.

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/block_reader.h"
#include "checkpoint/table.h"
#include "checkpoint/table_format.h"

namespace inflow::internal {

struct IndexEntry {
  // >= every key of the block and < every key of the next one.
  std::string key;
  BlockHandle handle;
};

struct TableRep {
  std::unique_ptr<RandomAccessFile> file;
  std::string name;
  std::vector<IndexEntry> index;
};

namespace {

Result<std::shared_ptr<const Block>> ReadAndParse(const RandomAccessFile& file,
                                                  const BlockHandle& handle,
                                                  const std::string& what) {
  INFLOW_ASSIGN_OR_RETURN(BlockContents contents,
                          ReadBlock(file, handle, what));
  return Block::Parse(std::move(contents), what, file.name());
}

class TableIteratorImpl final : public TableIterator {
 public:
  explicit TableIteratorImpl(std::shared_ptr<const TableRep> rep)
      : rep_(std::move(rep)) {}

  void SeekToFirst() override {
    if (!status_.ok()) return;
    if (!LoadBlock(0)) return;
    block_->SeekToFirst();
    SkipToValid();
  }

  void Seek(std::string_view target) override {
    if (!status_.ok()) return;
    const std::vector<IndexEntry>& index = rep_->index;
    const auto it = std::lower_bound(
        index.begin(), index.end(), target,
        [](const IndexEntry& e, std::string_view t) { return e.key < t; });
    if (!LoadBlock(static_cast<size_t>(it - index.begin()))) return;
    block_->Seek(target);
    SkipToValid();
  }

  void Next() override {
    if (!Valid()) return;
    block_->Next();
    SkipToValid();
  }

  bool Valid() const override {
    return status_.ok() && block_.has_value() && block_->Valid();
  }
  std::string_view key() const override { return block_->key(); }
  std::string_view value() const override { return block_->value(); }
  Status status() const override { return status_; }

 private:
  // Loads block `i`; false at the end of the table or on an error.
  bool LoadBlock(size_t i) {
    block_.reset();
    block_index_ = i;
    if (i >= rep_->index.size()) return false;
    Result<std::shared_ptr<const Block>> block =
        ReadAndParse(*rep_->file, rep_->index[i].handle, "data block");
    if (!block.ok()) {
      status_ = std::move(block).status();
      return false;
    }
    block_.emplace(*std::move(block));
    return true;
  }

  // Moves past the ends of blocks to the next entry, and checks it.
  void SkipToValid() {
    while (block_.has_value() && !block_->Valid()) {
      if (!block_->status().ok()) {
        status_ = block_->status();
        block_.reset();
        return;
      }
      if (!LoadBlock(block_index_ + 1)) return;
      block_->SeekToFirst();
    }
    if (!block_.has_value()) return;
    const std::vector<IndexEntry>& index = rep_->index;
    const std::string_view key = block_->key();
    if (key > std::string_view(index[block_index_].key) ||
        (block_index_ > 0 &&
         key <= std::string_view(index[block_index_ - 1].key))) {
      status_ = block_->CorruptionAtEntry(
          "bad entry in block (key outside the range the index gives its "
          "block)");
      block_.reset();
    }
  }

  const std::shared_ptr<const TableRep> rep_;
  size_t block_index_ = 0;
  std::optional<BlockIterator> block_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<Table>> Table::Open(
    std::unique_ptr<RandomAccessFile> file, uint64_t file_size) {
  auto rep = std::make_shared<TableRep>();
  rep->name = file->name();
  rep->file = std::move(file);
  const std::string& name = rep->name;
  if (file_size < kFooterSize) {
    return TableDataLoss("file is too short to be an sstable (" +
                             std::to_string(file_size) +
                             " bytes, the footer "
                             "alone is 48)",
                         0, name);
  }
  const uint64_t footer_offset = file_size - kFooterSize;
  std::string footer_bytes(kFooterSize, '\0');
  Result<size_t> got =
      ReadFully(*rep->file, footer_offset, kFooterSize, footer_bytes.data());
  if (!got.ok()) {
    return got.status().WithContext("reading the footer at offset " +
                                    std::to_string(footer_offset) + " of " +
                                    name);
  }
  if (*got != kFooterSize) {
    return TableDataLoss("truncated block read (footer)", footer_offset, name);
  }
  INFLOW_ASSIGN_OR_RETURN(Footer footer,
                          DecodeFooter(footer_bytes, name, file_size));

  // Nothing is kept from the metaindex (it has no entries TensorFlow or
  // inflow use), but it must be intact.
  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<const Block> metaindex,
      ReadAndParse(*rep->file, footer.metaindex, "metaindex block"));
  BlockIterator meta(metaindex);
  for (meta.SeekToFirst(); meta.Valid(); meta.Next()) {
  }
  INFLOW_RETURN_IF_ERROR(meta.status());

  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<const Block> index_block,
      ReadAndParse(*rep->file, footer.index, "index block"));
  BlockIterator it(index_block);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    IndexEntry entry{std::string(it.key()), {}};
    std::string_view value = it.value();
    if (!entry.handle.DecodeFrom(&value) || !value.empty()) {
      return it.CorruptionAtEntry("bad block handle (in the index block)");
    }
    const BlockHandle& h = entry.handle;
    if (h.offset > footer_offset || h.size > footer_offset - h.offset ||
        footer_offset - h.offset - h.size < kBlockTrailerSize) {
      return it.CorruptionAtEntry(
          "bad block handle (data block at offset " + std::to_string(h.offset) +
          ", size " + std::to_string(h.size) + ", runs into the footer)");
    }
    rep->index.push_back(std::move(entry));
  }
  INFLOW_RETURN_IF_ERROR(it.status());
  return std::unique_ptr<Table>(new Table(std::move(rep)));
}

Table::Table(std::shared_ptr<const TableRep> rep) : rep_(std::move(rep)) {}

Table::~Table() = default;

std::unique_ptr<TableIterator> Table::NewIterator() const {
  return std::make_unique<TableIteratorImpl>(rep_);
}

const std::string& Table::name() const { return rep_->name; }

}  // namespace inflow::internal
