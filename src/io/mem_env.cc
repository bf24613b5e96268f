// Copyright 2026 The inflow Authors.

#include "inflow/io/mem_env.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace inflow {
namespace {

// One file's bytes. Guarded by MemEnv::State::mu (every access below holds
// it).
struct FileData {
  std::string data;
  size_t synced = 0;  // bytes that survive DropUnsyncedData()
};

struct Fault {
  uint64_t offset;
  Status error;
};

}  // namespace

struct MemEnv::State {
  Mutex mu;
  std::map<std::string, std::shared_ptr<FileData>> files INFLOW_GUARDED_BY(mu);
  std::set<std::string> dirs INFLOW_GUARDED_BY(mu);
  size_t max_read_chunk INFLOW_GUARDED_BY(mu) = 0;
  std::map<std::string, Fault> read_faults INFLOW_GUARDED_BY(mu);
  std::map<std::string, Fault> write_faults INFLOW_GUARDED_BY(mu);
};

namespace {

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  MemRandomAccessFile(std::string name, std::shared_ptr<MemEnv::State> state,
                      std::shared_ptr<FileData> file)
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
  const std::shared_ptr<FileData> file_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string name, std::shared_ptr<MemEnv::State> state,
                  std::shared_ptr<FileData> file)
      : name_(std::move(name)),
        state_(std::move(state)),
        file_(std::move(file)) {}

  Status Append(std::string_view data) override {
    if (closed_) return Closed();
    MutexLock lock(&state_->mu);
    std::string& bytes = file_->data;
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
  Status Flush() override { return closed_ ? Closed() : OkStatus(); }
  Status Sync() override {
    if (closed_) return Closed();
    MutexLock lock(&state_->mu);
    file_->synced = file_->data.size();
    return OkStatus();
  }
  Status Close() override {
    closed_ = true;
    return OkStatus();
  }
  const std::string& name() const override { return name_; }

 private:
  Status Closed() const {
    return FailedPreconditionError("file " + name_ + " is closed");
  }

  const std::string name_;
  const std::shared_ptr<MemEnv::State> state_;
  const std::shared_ptr<FileData> file_;
  bool closed_ = false;
};

std::string Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

MemEnv::MemEnv() : state_(std::make_shared<State>()) {}
MemEnv::~MemEnv() = default;

void MemEnv::SetMaxReadChunk(size_t n) {
  MutexLock lock(&state_->mu);
  state_->max_read_chunk = n;
}

void MemEnv::InjectReadError(const std::string& path, uint64_t offset,
                             Status error) {
  MutexLock lock(&state_->mu);
  state_->read_faults[path] = {offset, std::move(error)};
}

void MemEnv::InjectWriteError(const std::string& path, uint64_t offset,
                              Status error) {
  MutexLock lock(&state_->mu);
  state_->write_faults[path] = {offset, std::move(error)};
}

void MemEnv::ClearFaults() {
  MutexLock lock(&state_->mu);
  state_->max_read_chunk = 0;
  state_->read_faults.clear();
  state_->write_faults.clear();
}

void MemEnv::DropUnsyncedData() {
  MutexLock lock(&state_->mu);
  for (auto& [path, file] : state_->files) file->data.resize(file->synced);
}

Result<std::string> MemEnv::Contents(const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(path);
  if (it == state_->files.end()) return NotFoundError(path + " not found");
  return it->second->data;
}

Result<std::unique_ptr<RandomAccessFile>> MemEnv::NewRandomAccessFile(
    const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(path);
  if (it == state_->files.end()) return NotFoundError(path + " not found");
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<MemRandomAccessFile>(path, state_, it->second));
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewWritableFile(
    const std::string& path) {
  MutexLock lock(&state_->mu);
  auto file = std::make_shared<FileData>();
  state_->files[path] = file;
  return std::unique_ptr<WritableFile>(
      std::make_unique<MemWritableFile>(path, state_, file));
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewAppendableFile(
    const std::string& path) {
  MutexLock lock(&state_->mu);
  std::shared_ptr<FileData>& file = state_->files[path];
  if (file == nullptr) file = std::make_shared<FileData>();
  return std::unique_ptr<WritableFile>(
      std::make_unique<MemWritableFile>(path, state_, file));
}

Result<uint64_t> MemEnv::GetFileSize(const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(path);
  if (it == state_->files.end()) return NotFoundError(path + " not found");
  return static_cast<uint64_t>(it->second->data.size());
}

Status MemEnv::FileExists(const std::string& path) {
  MutexLock lock(&state_->mu);
  if (state_->files.count(path) > 0 || state_->dirs.count(path) > 0) {
    return OkStatus();
  }
  return NotFoundError(path + " not found");
}

Status MemEnv::DeleteFile(const std::string& path) {
  MutexLock lock(&state_->mu);
  if (state_->files.erase(path) == 0) return NotFoundError(path + " not found");
  return OkStatus();
}

Status MemEnv::RenameFile(const std::string& from, const std::string& to) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(from);
  if (it == state_->files.end()) return NotFoundError(from + " not found");
  std::shared_ptr<FileData> file = it->second;
  state_->files.erase(it);
  state_->files[to] = std::move(file);
  return OkStatus();
}

Status MemEnv::CreateDir(const std::string& path) {
  MutexLock lock(&state_->mu);
  state_->dirs.insert(path);
  return OkStatus();
}

Result<std::vector<std::string>> MemEnv::GetChildren(const std::string& dir) {
  MutexLock lock(&state_->mu);
  std::set<std::string> names;
  bool exists = state_->dirs.count(dir) > 0;
  auto add = [&](const std::string& path) {
    if (Parent(path) == dir) {
      names.insert(path.substr(dir.empty() ? 0 : dir.size() + 1));
      exists = true;
    }
  };
  for (const auto& [path, file] : state_->files) add(path);
  for (const std::string& d : state_->dirs) add(d);
  if (!exists) return NotFoundError(dir + " not found");
  return std::vector<std::string>(names.begin(), names.end());
}

Status MemEnv::SyncDir(const std::string&) { return OkStatus(); }

}  // namespace inflow
