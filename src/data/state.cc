// Copyright 2026 The inflow Authors.
//
// StateWriter / StateReader (docs/formats.md, "Dataset iterator state"), the
// stage base and the error context every stage uses.

#include <algorithm>
#include <random>
#include <string>

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

// Field types: a tag starts a stage's fields.
constexpr char kTag = 't';
constexpr char kInt = 'i';
constexpr char kBytes = 'b';

}  // namespace

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void StateWriter::Tag(std::string_view stage) {
  out_.push_back(kTag);
  PutVarint(out_, stage.size());
  out_.append(stage);
}

void StateWriter::Int(int64_t value) {
  out_.push_back(kInt);
  const uint64_t u = value;
  PutVarint(out_, (u << 1) ^ static_cast<uint64_t>(value >> 63));
}

void StateWriter::Bytes(std::string_view bytes) {
  out_.push_back(kBytes);
  PutVarint(out_, bytes.size());
  out_.append(bytes);
}

Status StateReader::Damaged(std::string_view what) const {
  return InvalidArgumentError("dataset iterator state: " + std::string(what) +
                              " at byte " + std::to_string(pos_) + " of " +
                              std::to_string(in_.size()) +
                              " (damaged, or the state of another pipeline)");
}

bool GetVarint(std::string_view in, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in[(*pos)++]);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

Status StateReader::Tag(std::string_view stage) {
  const size_t at = pos_;
  if (pos_ >= in_.size() || in_[pos_] != kTag) {
    return Damaged("expected the state of stage \"" + std::string(stage) +
                   "\"");
  }
  ++pos_;
  uint64_t n = 0;
  if (!GetVarint(in_, &pos_, &n) || n > in_.size() - pos_) {
    pos_ = at;
    return Damaged("a truncated stage tag");
  }
  const std::string_view got = in_.substr(pos_, n);
  if (got != stage) {
    pos_ = at;
    return Damaged("the state of stage \"" + std::string(got) +
                   "\" where this pipeline has \"" + std::string(stage) + "\"");
  }
  pos_ += n;
  return OkStatus();
}

Result<int64_t> StateReader::Int() {
  if (pos_ >= in_.size() || in_[pos_] != kInt) {
    return Damaged("expected a number");
  }
  ++pos_;
  uint64_t u = 0;
  if (!GetVarint(in_, &pos_, &u)) return Damaged("a truncated number");
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

Result<int64_t> StateReader::IntIn(std::string_view what, int64_t lo,
                                   int64_t hi) {
  const size_t at = pos_;
  INFLOW_ASSIGN_OR_RETURN(int64_t v, Int());
  if (v < lo || v > hi) {
    pos_ = at;
    return Damaged(std::string(what) + " " + std::to_string(v) + " outside [" +
                   std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

Result<std::string_view> StateReader::Bytes() {
  if (pos_ >= in_.size() || in_[pos_] != kBytes) {
    return Damaged("expected bytes");
  }
  ++pos_;
  uint64_t n = 0;
  if (!GetVarint(in_, &pos_, &n) || n > in_.size() - pos_) {
    return Damaged("truncated bytes");
  }
  std::string_view out = in_.substr(pos_, n);
  pos_ += n;
  return out;
}

Result<bool> IteratorBase::NextString(const CallOptions& options,
                                      std::string* out) {
  INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, Next(options));
  if (!e) return false;
  if (e->size() != 1 || (*e)[0].dtype() != DType::kString ||
      (*e)[0].shape().rank() != 0) {
    return InternalError("an element that is not one scalar string: " +
                         DebugString(*e));
  }
  *out = (*e)[0].flat<std::string>()[0];  // shared: copied, not moved
  return true;
}

DatasetBase::DatasetBase(std::string kind, std::vector<DatasetPtr> inputs,
                         Status status)
    : kind_(std::move(kind)), inputs_(std::move(inputs)) {
  for (const DatasetPtr& in : inputs_) {
    depth_ = std::max(depth_, in->depth_ + 1);
  }
  label_ = kind_ + " (stage " + std::to_string(depth_) + ")";
  status_ = status.ok() ? OkStatus() : status.WithContext(label_);
  for (const DatasetPtr& in : inputs_) {
    if (status_.ok() && !in->status().ok()) status_ = in->status();
  }
}

Status PositionIterator::Restore(StateReader& r) {
  INFLOW_RETURN_IF_ERROR(r.Tag(stage_.kind()));
  INFLOW_ASSIGN_OR_RETURN(i_, r.IntIn("position", 0, n_));
  return OkStatus();
}

Status RestoreFrom(IteratorBase& it, std::string_view state,
                   const DatasetBase& stage) {
  StateReader inner(state);
  INFLOW_RETURN_IF_ERROR(it.Restore(inner));
  if (!inner.done()) {
    return InvalidArgumentError(stage.label() +
                                ": the input's state has bytes left over");
  }
  return OkStatus();
}

Result<Tuple> ElementAt(IteratorBase& it, std::string_view state,
                        const DatasetBase& stage) {
  INFLOW_RETURN_IF_ERROR(RestoreFrom(it, state, stage));
  INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, it.Next({}));
  if (!e) {
    return InvalidArgumentError(stage.label() +
                                ": the input ended before a saved element");
  }
  return std::move(*e);
}

int64_t SeedOrRandom(std::optional<int64_t> seed) {
  if (seed.has_value()) return *seed;
  std::random_device random;
  return static_cast<int64_t>(random() >> 1) ^
         (static_cast<int64_t>(random()) << 31);
}

Status StartStageThreads(const DatasetBase& stage, int n,
                         const std::function<void(std::stop_token, int)>& work,
                         std::vector<std::unique_ptr<Thread>>* threads) {
  for (int t = 0; t < n; ++t) {
    auto thread = std::make_unique<Thread>(
        "inflow-data-" + stage.kind() + "-" + std::to_string(t),
        [work, t](std::stop_token stop) { work(stop, t); });
    if (Status s = thread->Start(); !s.ok()) {
      return s.WithContext(stage.label() + ": starting its threads");
    }
    threads->push_back(std::move(thread));
  }
  return OkStatus();
}

Status ElementError(const Status& s, const DatasetBase& stage, int64_t k) {
  return s.WithContext(stage.label() + ", element " + std::to_string(k));
}

}  // namespace inflow::data::internal
