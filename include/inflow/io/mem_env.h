// Copyright 2026 The inflow Authors.
//
// MemEnv: an in-memory Env for tests, with fault injection at the OS
// boundary and a crash model as strict as POSIX allows (LevelDB's
// FaultInjectionTestEnv).
//
// The crash model. A file's bytes are durable up to its last Sync(); a
// directory's entries (a file created in it, renamed into or out of it,
// deleted from it, a directory created or deleted in it) are durable only
// once SyncDir() of that directory ran after the change. SimulateCrash()
// is the machine losing power: every directory goes back to its entries
// at its last SyncDir (files created since vanish, a renamed file is back
// under its old name and the file it replaced is back too, deleted files
// reappear, a directory whose own creation was not synced vanishes with
// everything in it), and every file is cut back to its synced bytes (a
// file never synced, or truncated by NewWritableFile and not synced since,
// is empty). Files opened for writing before the crash refuse every later
// call with FAILED_PRECONDITION.
//
// Mutating calls are NewWritableFile, NewAppendableFile, Append, Flush,
// Sync, Close (the first on a file; later ones are no-ops), RenameFile,
// DeleteFile, CreateDir, DeleteDir and SyncDir. Each one made counts
// (mutation_count()), whether it succeeds or not; a call that a closed or
// stale file refuses does not. A test counts the calls of one operation,
// then fails each in turn:
//
//   const uint64_t before = env.mutation_count();
//   Save(env);
//   const uint64_t steps = env.mutation_count() - before;
//   for (uint64_t n = 1; n <= steps; ++n) {
//     // ...fresh env and state...
//     env.FailMutation(n, UnavailableError("injected"), MemEnv::kSticky);
//     Save(env);            // dies at step n
//     env.ClearFaults();
//     env.SimulateCrash();  // what the disk holds after the power cut
//     // ...check recovery...
//   }
//
// An injected failure has no effect (no bytes appended, nothing renamed,
// nothing synced), except that a failed Close() still closes the file.
// Its message names the call: "injected at mutating call 7 (RenameFile
// /d/a.tmp -> /d/a): ...".
//
// Directories: "" (relative paths) and "/" always exist. Unlike POSIX, a
// file (or directory) created in a directory that does not exist creates
// that directory and its missing parents, and those are durable at once.
// RenameFile moves files only (directories: UNIMPLEMENTED).
//
// Thread-safe: every method, and every file it hands out, may be used from
// any thread.

#ifndef INFLOW_IO_MEM_ENV_H_
#define INFLOW_IO_MEM_ENV_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/io/env.h"

namespace inflow {

// The kinds of mutating call, for MemEnv::FailNext().
enum class MemEnvOp {
  kNewWritableFile,
  kNewAppendableFile,
  kAppend,
  kFlush,
  kSync,
  kClose,
  kRenameFile,
  kDeleteFile,
  kCreateDir,
  kDeleteDir,
  kSyncDir,
};

// "RenameFile", "Sync", ...
std::string_view MemEnvOpName(MemEnvOp op);

class MemEnv final : public Env {
 public:
  MemEnv();
  ~MemEnv() override;

  // --- Read and write faults at byte offsets. ---

  // Every Read() returns at most `n` bytes (0 lifts the limit), as a
  // network file system or a pipe may.
  void SetMaxReadChunk(size_t n);
  // A Read() of `path` that reaches byte `offset` returns the bytes before
  // it, and the next Read() at `offset` fails with `error`.
  void InjectReadError(const std::string& path, uint64_t offset, Status error);
  // An Append() to `path` that would grow it past `offset` bytes stores the
  // bytes up to `offset` and fails with `error`; so do later appends.
  void InjectWriteError(const std::string& path, uint64_t offset, Status error);

  // --- Mutating-call faults (see the top of this file). ---

  enum FaultMode {
    kOnce,    // that call fails, later ones run
    kSticky,  // that call and every later mutating call fail: a crash
  };
  // The mutating calls made so far.
  uint64_t mutation_count() const;
  // The `n`th mutating call from now (1: the next one) fails with `error`.
  // Replaces an earlier FailMutation().
  void FailMutation(uint64_t n, Status error, FaultMode mode = kOnce);
  // The next call of kind `op` fails with `error`, once; several kinds
  // may be armed at a time.
  void FailNext(MemEnvOp op, Status error);
  // While on, each mutating call is described in mutation_log()
  // ("Append 12 bytes to /d/f"), in order. Off at first.
  void set_log_mutations(bool on);
  std::vector<std::string> mutation_log() const;

  // Lifts every fault above (read, write and mutating-call ones); the
  // count and the log stay.
  void ClearFaults();

  // --- The crash model. ---

  // The power cut described at the top of this file.
  void SimulateCrash();

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
  Status DeleteDir(const std::string& path) override;
  Status IsDirectory(const std::string& path) override;
  Result<double> GetModificationTime(const std::string& path) override;

  // Shared with the open files; public only for them.
  struct State;

 private:
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path,
                                                     bool truncate);

  std::shared_ptr<State> state_;
};

}  // namespace inflow

#endif  // INFLOW_IO_MEM_ENV_H_
