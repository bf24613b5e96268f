// Copyright 2026 The inflow Authors.
//
// Env: the file-system seam. Every reader, writer, checkpoint and offset
// index in inflow reaches files through an Env, so tests can substitute an
// in-memory one with injected faults (io/mem_env.h) and other back ends
// (object stores) can slot in later.
//
// Errors: a missing file is NOT_FOUND; a permission problem is
// PERMISSION_DENIED; other OS failures are UNAVAILABLE or INTERNAL, with
// the path and errno text in the message.

#ifndef INFLOW_IO_ENV_H_
#define INFLOW_IO_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"

namespace inflow {

// A file read at arbitrary offsets. Thread-safe: Read() may be called from
// several threads at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads up to `n` bytes starting at `offset` into `scratch` and returns
  // how many it read. Returns 0 only at end of file (or for n == 0); a
  // result short of `n` does not mean end of file (callers loop, or use
  // ReadFully()).
  [[nodiscard]] virtual Result<size_t> Read(uint64_t offset, size_t n,
                                            char* scratch) const = 0;

  // The name the file was opened with, for error messages.
  virtual const std::string& name() const = 0;
};

// Reads until `n` bytes or end of file; returns the count read.
[[nodiscard]] Result<size_t> ReadFully(const RandomAccessFile& file,
                                       uint64_t offset, size_t n,
                                       char* scratch);

// A file written sequentially. Not thread-safe.
class WritableFile {
 public:
  virtual ~WritableFile() = default;

  [[nodiscard]] virtual Status Append(std::string_view data) = 0;
  // Hands buffered bytes to the operating system (or back end).
  [[nodiscard]] virtual Status Flush() = 0;
  // Makes every appended byte durable.
  [[nodiscard]] virtual Status Sync() = 0;
  // Flushes and closes; later calls fail with FAILED_PRECONDITION, except
  // Close() itself, which is idempotent. The destructor closes a file
  // that is still open and drops any error.
  [[nodiscard]] virtual Status Close() = 0;

  virtual const std::string& name() const = 0;
};

// Thread-safe: every method may be called from any thread.
class Env {
 public:
  virtual ~Env() = default;

  // The POSIX file system. Never destroyed.
  static Env& Default();

  [[nodiscard]] virtual Result<std::unique_ptr<RandomAccessFile>>
  NewRandomAccessFile(const std::string& path) = 0;
  // Creates or truncates `path`.
  [[nodiscard]] virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  // Opens `path` for appending, creating it if missing.
  [[nodiscard]] virtual Result<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) = 0;

  [[nodiscard]] virtual Result<uint64_t> GetFileSize(
      const std::string& path) = 0;
  // OK if `path` exists, NOT_FOUND if not.
  [[nodiscard]] virtual Status FileExists(const std::string& path) = 0;
  [[nodiscard]] virtual Status DeleteFile(const std::string& path) = 0;
  // Replaces `to` atomically if it exists.
  [[nodiscard]] virtual Status RenameFile(const std::string& from,
                                          const std::string& to) = 0;
  // Creates one directory (its parent must exist: NOT_FOUND if not); OK
  // if it already exists as a directory, FAILED_PRECONDITION if a file is
  // there.
  [[nodiscard]] virtual Status CreateDir(const std::string& path) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..".
  [[nodiscard]] virtual Result<std::vector<std::string>> GetChildren(
      const std::string& dir) = 0;
  // Makes the directory's entries durable: the files and directories
  // created in it, renamed into or out of it, deleted from it. Until then
  // a crash may undo any of those (a file's bytes are WritableFile::Sync's
  // business, its name in a directory is this one's).
  [[nodiscard]] virtual Status SyncDir(const std::string& dir) = 0;

  // Deletes an empty directory: NOT_FOUND if missing, FAILED_PRECONDITION
  // if it is not empty or not a directory.
  [[nodiscard]] virtual Status DeleteDir(const std::string& path) = 0;
  // OK if `path` is a directory, FAILED_PRECONDITION if it is something
  // else (or a file stands in its directory part), NOT_FOUND if missing.
  [[nodiscard]] virtual Status IsDirectory(const std::string& path) = 0;
  // Last modification time of a file or directory, seconds since the
  // epoch; NOT_FOUND if missing.
  [[nodiscard]] virtual Result<double> GetModificationTime(
      const std::string& path) = 0;
};

// Creates `path` and every missing parent (mkdir -p); OK if it exists as
// a directory, FAILED_PRECONDITION if a component is a file (as TF's
// RecursivelyCreateDir). Each directory it creates is made durable at once
// (SyncDir of its parent), so a crash cannot take it back.
[[nodiscard]] Status RecursivelyCreateDir(Env& env, const std::string& path);

// The paths matching the glob `pattern` (wildcards in the file-name part
// only, io/glob.h; docs/conformance.md "File patterns"), sorted; empty
// when nothing matches or the directory is missing. A pattern without
// wildcards gives itself if that file exists. INVALID_ARGUMENT for
// wildcards in the directory part.
[[nodiscard]] Result<std::vector<std::string>> GetMatchingPaths(
    Env& env, const std::string& pattern);

// Reads a whole file into a string.
[[nodiscard]] Result<std::string> ReadFileToString(Env& env,
                                                   const std::string& path);
// Creates or truncates `path` with `data` (no Sync).
[[nodiscard]] Status WriteStringToFile(Env& env, const std::string& path,
                                       std::string_view data);

}  // namespace inflow

#endif  // INFLOW_IO_ENV_H_
