// Copyright 2026 The inflow Authors.
//
// MemEnv's shared state: the live name space, the durable one (what a
// crash goes back to), the files' bytes and the armed faults. Internal to
// mem_env*.cc.

#ifndef INFLOW_IO_MEM_ENV_STATE_H_
#define INFLOW_IO_MEM_ENV_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace internal {

// One file's bytes (an inode: renames move it, names point at it).
// Guarded by MemEnv::State::mu.
struct MemFile {
  std::string data;
  size_t synced = 0;  // bytes that survive a crash
  double mtime = 0;
};

struct ByteFault {
  uint64_t offset;
  Status error;
};

// Seconds since the epoch, now.
double WallTime();

// The form paths are kept in: os.path.normpath's (io/path.h), with the
// working directory "." as "".
std::string MemEnvKey(std::string_view path);

}  // namespace internal

struct MemEnv::State {
  Mutex mu;
  // The live name space. Every directory but "" and "/" is listed.
  std::map<std::string, std::shared_ptr<internal::MemFile>> files
      INFLOW_GUARDED_BY(mu);
  std::map<std::string, double> dirs INFLOW_GUARDED_BY(mu);  // -> mtime
  // What each directory held at its last SyncDir.
  std::map<std::string, std::shared_ptr<internal::MemFile>> durable_files
      INFLOW_GUARDED_BY(mu);
  std::set<std::string> durable_dirs INFLOW_GUARDED_BY(mu);
  // Bumped by each crash; writable files of an older one are stale.
  uint64_t generation INFLOW_GUARDED_BY(mu) = 0;

  size_t max_read_chunk INFLOW_GUARDED_BY(mu) = 0;
  std::map<std::string, internal::ByteFault> read_faults INFLOW_GUARDED_BY(mu);
  std::map<std::string, internal::ByteFault> write_faults INFLOW_GUARDED_BY(mu);

  uint64_t mutations INFLOW_GUARDED_BY(mu) = 0;
  uint64_t fail_at INFLOW_GUARDED_BY(mu) = 0;  // 0: none armed
  FaultMode fail_mode INFLOW_GUARDED_BY(mu) = kOnce;
  Status fail_error INFLOW_GUARDED_BY(mu);
  bool dead INFLOW_GUARDED_BY(mu) = false;  // a sticky fault fired
  std::map<MemEnvOp, Status> next_faults INFLOW_GUARDED_BY(mu);
  bool log_on INFLOW_GUARDED_BY(mu) = false;
  std::vector<std::string> log INFLOW_GUARDED_BY(mu);

  // Counts one mutating call of `path` (renames: to `to`; appends: of
  // `bytes`) and returns the fault armed for it, if any (the call must
  // then have no effect).
  Status Mutate(MemEnvOp op, std::string_view path, std::string_view to = {},
                int64_t bytes = -1) INFLOW_REQUIRES(mu);

  // True when `path` is "", "/" or a listed directory.
  bool IsDir(const std::string& path) const INFLOW_REQUIRES(mu);
  // Why `dir` (normalized: `d`), not a directory, cannot be listed or
  // synced: FAILED_PRECONDITION for a file or a file in its path, else
  // NOT_FOUND.
  Status NotADirectory(const std::string& dir, const std::string& d) const
      INFLOW_REQUIRES(mu);
  // The nearest proper ancestor of `path` that is a file, if any.
  std::optional<std::string> FileAncestor(const std::string& path) const
      INFLOW_REQUIRES(mu);
  // Lists every missing ancestor of `path` as a directory, durable at once
  // (MemEnv's lenient parents).
  void MakeParents(const std::string& path, double now) INFLOW_REQUIRES(mu);
  // A directory entry changed: the directory's mtime is now.
  void Touch(const std::string& dir, double now) INFLOW_REQUIRES(mu);
};

namespace internal {

// The writable file MemEnv hands out, over `file`.
std::unique_ptr<WritableFile> NewMemWritableFile(
    std::string name, std::shared_ptr<MemEnv::State> state,
    std::shared_ptr<MemFile> file, uint64_t generation);
std::unique_ptr<RandomAccessFile> NewMemRandomAccessFile(
    std::string name, std::shared_ptr<MemEnv::State> state,
    std::shared_ptr<MemFile> file);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_IO_MEM_ENV_STATE_H_
