// Copyright 2026 The inflow Authors.
//
// The files MemEnv hands out.

#include <algorithm>
#include <cstring>
#include <utility>

#include "mem_env_state.h"

namespace inflow {
namespace internal {
namespace {

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  MemRandomAccessFile(std::string name, std::shared_ptr<MemEnv::State> state,
                      std::shared_ptr<MemFile> file)
      : name_(std::move(name)),
        state_(std::move(state)),
        file_(std::move(file)) {}

  Result<size_t> Read(uint64_t offset, size_t n, char* scratch) const override {
    MutexLock lock(&state_->mu);
    if (state_->max_read_chunk > 0) n = std::min(n, state_->max_read_chunk);
    auto fault = state_->read_faults.find(name_);
    if (fault != state_->read_faults.end() && n > 0) {
      const uint64_t at = fault->second.offset;
      if (offset == at) {
        return fault->second.error.WithContext(
            "read at offset " + std::to_string(offset) + " of " + name_);
      }
      if (offset < at && at - offset < n) n = static_cast<size_t>(at - offset);
    }
    const std::string& data = file_->data;
    if (offset >= data.size()) return size_t{0};
    n = std::min<uint64_t>(n, data.size() - offset);
    std::memcpy(scratch, data.data() + offset, n);
    return n;
  }
  const std::string& name() const override { return name_; }

 private:
  const std::string name_;
  const std::shared_ptr<MemEnv::State> state_;
  const std::shared_ptr<MemFile> file_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string name, std::shared_ptr<MemEnv::State> state,
                  std::shared_ptr<MemFile> file, uint64_t generation)
      : name_(std::move(name)),
        state_(std::move(state)),
        file_(std::move(file)),
        generation_(generation) {}

  Status Append(std::string_view data) override {
    MutexLock lock(&state_->mu);
    INFLOW_RETURN_IF_ERROR(Usable());
    INFLOW_RETURN_IF_ERROR(state_->Mutate(MemEnvOp::kAppend, name_, {},
                                          static_cast<int64_t>(data.size())));
    std::string& bytes = file_->data;
    file_->mtime = WallTime();
    auto fault = state_->write_faults.find(name_);
    if (fault != state_->write_faults.end() &&
        bytes.size() + data.size() > fault->second.offset) {
      const uint64_t at = fault->second.offset;
      if (bytes.size() < at) {
        bytes.append(data.substr(0, static_cast<size_t>(at - bytes.size())));
      }
      return fault->second.error.WithContext("write to " + name_);
    }
    bytes.append(data);
    return OkStatus();
  }

  Status Flush() override {
    MutexLock lock(&state_->mu);
    INFLOW_RETURN_IF_ERROR(Usable());
    return state_->Mutate(MemEnvOp::kFlush, name_);
  }

  Status Sync() override {
    MutexLock lock(&state_->mu);
    INFLOW_RETURN_IF_ERROR(Usable());
    INFLOW_RETURN_IF_ERROR(state_->Mutate(MemEnvOp::kSync, name_));
    file_->synced = file_->data.size();
    return OkStatus();
  }

  Status Close() override {
    MutexLock lock(&state_->mu);
    if (closed_ || generation_ != state_->generation) {
      closed_ = true;
      return OkStatus();
    }
    closed_ = true;
    return state_->Mutate(MemEnvOp::kClose, name_);
  }

  const std::string& name() const override { return name_; }

 private:
  Status Usable() const INFLOW_REQUIRES(state_->mu) {
    if (closed_) return FailedPreconditionError("file " + name_ + " is closed");
    if (generation_ != state_->generation) {
      return FailedPreconditionError("file " + name_ +
                                     " was opened before a simulated crash");
    }
    return OkStatus();
  }

  const std::string name_;
  const std::shared_ptr<MemEnv::State> state_;
  const std::shared_ptr<MemFile> file_;
  const uint64_t generation_;
  bool closed_ = false;  // the file is not thread-safe: no lock needed
};

}  // namespace

std::unique_ptr<WritableFile> NewMemWritableFile(
    std::string name, std::shared_ptr<MemEnv::State> state,
    std::shared_ptr<MemFile> file, uint64_t generation) {
  return std::make_unique<MemWritableFile>(std::move(name), std::move(state),
                                           std::move(file), generation);
}

std::unique_ptr<RandomAccessFile> NewMemRandomAccessFile(
    std::string name, std::shared_ptr<MemEnv::State> state,
    std::shared_ptr<MemFile> file) {
  return std::make_unique<MemRandomAccessFile>(
      std::move(name), std::move(state), std::move(file));
}

}  // namespace internal
}  // namespace inflow
