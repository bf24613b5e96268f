// Copyright 2026 The inflow Authors.
//
// PendingFiles: output written under temporary names and renamed to the
// final names only once all of it is written, so an interrupted or failed
// run never leaves a file that looks complete under a final name.
//
//   PendingFiles pending(env);
//   std::string tmp = pending.Add("out/train-00000-of-00001.tfrecord");
//   ... write and Sync tmp ...
//   INFLOW_RETURN_IF_ERROR(pending.Commit());
//
// A temporary is ".NAME.tmp-PID" in the final file's directory: hidden,
// and matched by no glob of the final names. Commit() renames every
// temporary (each rename is atomic; a crash part-way leaves some files
// under final names, each of them complete) and syncs the directories,
// as io's one publishing helper does for every file inflow publishes.
// Without Commit(), the destructor deletes the temporaries.
//
// Not thread-safe.

#ifndef INFLOW_DATAFILES_PENDING_FILES_H_
#define INFLOW_DATAFILES_PENDING_FILES_H_

#include <memory>
#include <string>

#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow {
namespace internal {
class AtomicPublish;  // src/io/atomic_publish.h
}  // namespace internal

class PendingFiles {
 public:
  explicit PendingFiles(Env& env);
  ~PendingFiles();
  PendingFiles(const PendingFiles&) = delete;
  PendingFiles& operator=(const PendingFiles&) = delete;

  // Registers `final_path` and returns the temporary path to write.
  std::string Add(const std::string& final_path);

  // Renames every temporary to its final name (replacing what is there),
  // in the order added, then syncs each directory involved. The first
  // error is returned, naming the file; the temporaries not yet renamed
  // are deleted, the renames made are synced.
  [[nodiscard]] Status Commit();

  // Deletes every temporary not yet renamed.
  void Abandon();

  // The temporary that would be used for `final_path`.
  static std::string TemporaryPath(const std::string& final_path);
  // True for names TemporaryPath() makes (of any process).
  static bool IsTemporaryName(const std::string& name);

 private:
  std::unique_ptr<internal::AtomicPublish> publish_;
};

}  // namespace inflow

#endif  // INFLOW_DATAFILES_PENDING_FILES_H_
