// Copyright 2026 The inflow Authors.
//
// MemEnv: an in-memory Env for tests, with fault injection at the OS
// boundary: short reads, read and write errors at chosen byte offsets, and
// a simulated crash that drops every byte not yet made durable by Sync().
//
// Paths are plain strings; a directory exists once CreateDir() made it or
// a file lies under it. Renames and deletions are durable at once (as on a
// file system whose directory is synced right after).
//
// Thread-safe: every method, and every file it hands out, may be used from
// any thread.

#ifndef INFLOW_IO_MEM_ENV_H_
#define INFLOW_IO_MEM_ENV_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "inflow/core/mutex.h"
#include "inflow/io/env.h"

namespace inflow {

class MemEnv final : public Env {
 public:
  MemEnv();
  ~MemEnv() override;

  // --- Fault injection (for tests). ---

  // Every Read() returns at most `n` bytes (0 lifts the limit), as a
  // network file system or a pipe may.
  void SetMaxReadChunk(size_t n);
  // A Read() of `path` that reaches byte `offset` returns the bytes before
  // it, and the next Read() at `offset` fails with `error`.
  void InjectReadError(const std::string& path, uint64_t offset, Status error);
  // An Append() to `path` that would grow it past `offset` bytes stores the
  // bytes up to `offset` and fails with `error`; so do later appends.
  void InjectWriteError(const std::string& path, uint64_t offset, Status error);
  void ClearFaults();
  // A crash: every file is cut back to what its last Sync() covered (a file
  // never synced becomes empty).
  void DropUnsyncedData();

  // The bytes of `path`, synced or not; NOT_FOUND if missing.
  Result<std::string> Contents(const std::string& path);

  // --- Env. ---
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override;
  Result<uint64_t> GetFileSize(const std::string& path) override;
  Status FileExists(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status CreateDir(const std::string& path) override;
  Result<std::vector<std::string>> GetChildren(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;

  // Shared with the open files; public only for them.
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace inflow

#endif  // INFLOW_IO_MEM_ENV_H_
