// Copyright 2026 The inflow Authors.
//
// RecordBatch: the records of one ReaderBase::ReadUpTo into a batch the
// caller keeps and reuses, without a std::string per record. The values
// lie back to back in one buffer the batch owns; values() views them, in
// the form ExampleParser::ParseBatch takes. Keys are built only when asked
// for (most pipelines drop them). Reading into the batch again, or
// Clear(), invalidates the views; the buffers keep their capacity, so a
// batch reused for reads of similar size allocates nothing.
//
// A batch may borrow (set_borrow): a reader may then append values that
// view its own read buffer instead of copies (TFRecordReader does, for
// the records already whole in its buffer, and ends the batch early rather
// than refill that buffer). Such values stay valid until the next read on
// that reader, by any thread, or its destruction: borrow only with a
// reader that this batch's owner alone reads with.
//
//   RecordBatch batch;
//   while (reader->ReadUpTo(*filenames, 128, &batch, options).ok()) {
//     auto parsed = parser.ParseBatch(batch.values());
//     ...
//   }
//
// Not thread-safe (one owner at a time).

#ifndef INFLOW_INPUT_RECORD_BATCH_H_
#define INFLOW_INPUT_RECORD_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace inflow {

class RecordBatch {
 public:
  RecordBatch() = default;
  // Copies would view the source's buffer. A move re-points the views at
  // the moved buffer (a short one moves by copy) and leaves `other` empty.
  RecordBatch(const RecordBatch&) = delete;
  RecordBatch& operator=(const RecordBatch&) = delete;
  RecordBatch(RecordBatch&& other) noexcept;
  RecordBatch& operator=(RecordBatch&& other) noexcept;

  size_t size() const { return views_.size(); }
  bool empty() const { return views_.empty(); }

  // The values, in read order.
  std::span<const std::string_view> values() const { return views_; }
  std::string_view value(size_t i) const { return views_[i]; }
  // Record i's key, as ReaderBase::Read would give it.
  std::string key(size_t i) const;
  // The file the records came from (ReadUpTo never mixes files).
  const std::string& file() const { return file_; }

  // Drops the records, keeping the capacity.
  void Clear();

  // Whether readers may append views of their buffers (see the top of
  // this file). Off by default.
  void set_borrow(bool borrow) { borrow_ = borrow; }
  bool borrow() const { return borrow_; }

  // For readers (ReaderBase::ReadIntoLocked): appends a record of `file`
  // whose key is "<file>:<position>", or whose key is `key`.
  void AppendAt(const std::string& file, uint64_t position,
                std::string_view value);
  void AppendKeyed(const std::string& file, std::string key,
                   std::string_view value);
  // AppendAt of a value the batch does not copy: a view of the reader's
  // buffer (only when borrow()), valid as the top of this file says.
  void AppendBorrowedAt(const std::string& file, uint64_t position,
                        std::string_view value);
  // Makes values() view the appended values (after the last append).
  void Seal();

 private:
  static constexpr uint64_t kExplicitKey = ~uint64_t{0};

  std::string file_;
  std::string data_;  // the copied values back to back
  // Per value: borrowed, its bytes and size; copied, nullptr and its end
  // in data_.
  std::vector<const char*> borrowed_;
  std::vector<size_t> ends_;
  std::vector<uint64_t> positions_;  // kExplicitKey: see keys_
  std::vector<std::string> keys_;    // explicit keys, "" for positioned
  std::vector<std::string_view> views_;
  bool borrow_ = false;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_RECORD_BATCH_H_
