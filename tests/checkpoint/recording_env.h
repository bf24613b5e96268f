// Copyright 2026 The inflow Authors.
//
// RecordingEnv: an Env over MemEnv that logs every mutating call, in
// order ("create dir/f", "sync dir/f", "rename a -> b", "syncdir dir",
// "delete f", "mkdir d", "rmdir d"), can fail the n-th call of a kind on a
// chosen path, and reports modification times the test sets, for tests
// that pin the order of a crash-safe write (MemEnv's own faults count
// calls of every path). Thread-compatible (tests use
// it from one thread).

#ifndef INFLOW_TESTS_CHECKPOINT_RECORDING_ENV_H_
#define INFLOW_TESTS_CHECKPOINT_RECORDING_ENV_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/io/env.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace testing {

class RecordingEnv final : public Env {
 public:
  MemEnv& mem() { return mem_; }
  std::vector<std::string>& log() { return log_; }

  // The `nth` (0-based) call of `kind` ("create", "write", "sync",
  // "rename", "syncdir", "delete", "mkdir", "rmdir") whose logged argument
  // contains `path` fails with `error` (and is logged with a trailing "
  // FAILED"). One failure per kind; a new one replaces it and restarts the
  // count.
  void FailCall(std::string kind, int nth, Status error,
                std::string path = "") {
    failures_[kind] = Failure{nth, std::move(error), std::move(path), 0};
  }

  // Modification times GetModificationTime reports, by path.
  void SetModificationTime(const std::string& path, double t) {
    mtimes_[path] = t;
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return mem_.NewRandomAccessFile(path);
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(Record("create", path));
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                            mem_.NewWritableFile(path));
    return std::unique_ptr<WritableFile>(
        std::make_unique<File>(this, std::move(file)));
  }
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(Record("append", path));
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                            mem_.NewAppendableFile(path));
    return std::unique_ptr<WritableFile>(
        std::make_unique<File>(this, std::move(file)));
  }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    return mem_.GetFileSize(path);
  }
  Status FileExists(const std::string& path) override {
    return mem_.FileExists(path);
  }
  Status DeleteFile(const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(Record("delete", path));
    return mem_.DeleteFile(path);
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    INFLOW_RETURN_IF_ERROR(Record("rename", from + " -> " + to));
    return mem_.RenameFile(from, to);
  }
  Status CreateDir(const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(Record("mkdir", path));
    return mem_.CreateDir(path);
  }
  Result<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    return mem_.GetChildren(dir);
  }
  Status SyncDir(const std::string& dir) override {
    INFLOW_RETURN_IF_ERROR(Record("syncdir", dir));
    return mem_.SyncDir(dir);
  }
  Status DeleteDir(const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(Record("rmdir", path));
    return mem_.DeleteDir(path);
  }
  Status IsDirectory(const std::string& path) override {
    return mem_.IsDirectory(path);
  }
  Result<double> GetModificationTime(const std::string& path) override {
    INFLOW_RETURN_IF_ERROR(mem_.FileExists(path));
    auto it = mtimes_.find(path);
    if (it == mtimes_.end()) return 0.0;
    return it->second;
  }

 private:
  class File final : public WritableFile {
   public:
    File(RecordingEnv* env, std::unique_ptr<WritableFile> file)
        : env_(env), file_(std::move(file)) {}
    Status Append(std::string_view data) override {
      INFLOW_RETURN_IF_ERROR(env_->Record("write", file_->name()));
      return file_->Append(data);
    }
    Status Flush() override { return file_->Flush(); }
    Status Sync() override {
      INFLOW_RETURN_IF_ERROR(env_->Record("sync", file_->name()));
      return file_->Sync();
    }
    Status Close() override { return file_->Close(); }
    const std::string& name() const override { return file_->name(); }

   private:
    RecordingEnv* env_;
    std::unique_ptr<WritableFile> file_;
  };

  Status Record(const std::string& kind, const std::string& what) {
    std::string line = kind + " " + what;
    auto it = failures_.find(kind);
    if (it != failures_.end() &&
        what.find(it->second.path) != std::string::npos &&
        it->second.seen++ == it->second.nth) {
      log_.push_back(line + " FAILED");
      return it->second.error;
    }
    log_.push_back(std::move(line));
    return OkStatus();
  }

  MemEnv mem_;
  std::vector<std::string> log_;
  struct Failure {
    int nth;
    Status error;
    std::string path;
    int seen;
  };
  std::map<std::string, Failure> failures_;
  std::map<std::string, double> mtimes_;
};

}  // namespace testing
}  // namespace inflow

#endif  // INFLOW_TESTS_CHECKPOINT_RECORDING_ENV_H_
