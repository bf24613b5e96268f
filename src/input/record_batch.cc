// Copyright 2026 The inflow Authors.

#include "inflow/input/record_batch.h"

#include <utility>

namespace inflow {

RecordBatch::RecordBatch(RecordBatch&& other) noexcept {
  *this = std::move(other);
}

RecordBatch& RecordBatch::operator=(RecordBatch&& other) noexcept {
  if (this == &other) return *this;
  file_ = std::move(other.file_);
  data_ = std::move(other.data_);
  borrowed_ = std::move(other.borrowed_);
  ends_ = std::move(other.ends_);
  positions_ = std::move(other.positions_);
  keys_ = std::move(other.keys_);
  borrow_ = other.borrow_;
  const bool sealed = !other.views_.empty();
  other.Clear();
  views_.clear();
  if (sealed) Seal();
  return *this;
}

std::string RecordBatch::key(size_t i) const {
  if (positions_[i] == kExplicitKey) return keys_[i];
  std::string k = file_;
  k.push_back(':');
  k.append(std::to_string(positions_[i]));
  return k;
}

void RecordBatch::Clear() {
  data_.clear();
  borrowed_.clear();
  ends_.clear();
  positions_.clear();
  keys_.clear();
  views_.clear();
}

void RecordBatch::AppendAt(const std::string& file, uint64_t position,
                           std::string_view value) {
  if (file != file_) file_ = file;
  data_.append(value);
  borrowed_.push_back(nullptr);
  ends_.push_back(data_.size());
  positions_.push_back(position);
  if (!keys_.empty()) keys_.emplace_back();
}

void RecordBatch::AppendBorrowedAt(const std::string& file, uint64_t position,
                                   std::string_view value) {
  if (value.data() == nullptr) return AppendAt(file, position, value);
  if (file != file_) file_ = file;
  borrowed_.push_back(value.data());
  ends_.push_back(value.size());
  positions_.push_back(position);
  if (!keys_.empty()) keys_.emplace_back();
}

void RecordBatch::AppendKeyed(const std::string& file, std::string key,
                              std::string_view value) {
  if (file != file_) file_ = file;
  data_.append(value);
  borrowed_.push_back(nullptr);
  ends_.push_back(data_.size());
  positions_.push_back(kExplicitKey);
  // keys_ runs parallel to positions_ once any key is explicit.
  keys_.resize(positions_.size() - 1);
  keys_.push_back(std::move(key));
}

void RecordBatch::Seal() {
  views_.clear();
  size_t begin = 0;
  for (size_t i = 0; i < ends_.size(); ++i) {
    if (borrowed_[i] != nullptr) {
      views_.emplace_back(borrowed_[i], ends_[i]);
      continue;
    }
    views_.emplace_back(data_.data() + begin, ends_[i] - begin);
    begin = ends_[i];
  }
}

}  // namespace inflow
