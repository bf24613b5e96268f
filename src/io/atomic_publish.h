// Copyright 2026 The inflow Authors.
//
// AtomicPublish: files written under temporary names and then published
// under their final names, so that a reader, a failure or a crash finds
// each final name holding its old content or its new content, never part
// of either. The four steps, as LevelDB and TensorFlow take them:
//   1. write the bytes to a temporary in the final file's directory;
//   2. make them durable (WritableFile::Sync);
//   3. rename the temporary over the final name (Env::RenameFile, atomic);
//   4. make the rename durable (Env::SyncDir of that directory).
// Without step 2 the rename could survive a crash that loses the bytes (a
// short file under the final name); without step 4 a crash could take the
// rename back (the old file returns, which callers that go on to name the
// new one elsewhere must not allow).
//
//   AtomicPublish publish(env);
//   INFLOW_ASSIGN_OR_RETURN(WritableFile* file,
//                           publish.Create("d/f", "d/f.tmp1234"));
//   INFLOW_RETURN_IF_ERROR(file->Append(bytes));
//   INFLOW_RETURN_IF_ERROR(publish.Commit());
//
// Several files: each rename is atomic, the set is not (a crash part-way
// leaves some under their final names, each of them complete), and the
// files renamed into one directory are made durable by one SyncDir. The
// temporaries' names are the caller's: each user has its own scheme, which
// its cleanup of a killed process's leftovers recognises.
//
// Errors name the final file ("publishing d/f: ..."). After any failure of
// Close() or Rename() the temporaries not yet renamed are deleted; so are
// they by Abandon() and by the destructor. Thread-compatible.

#ifndef INFLOW_IO_ATOMIC_PUBLISH_H_
#define INFLOW_IO_ATOMIC_PUBLISH_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow::internal {

class AtomicPublish {
 public:
  // `sync`: steps 2 and 4 run (Close() syncs the files Create() opened,
  // SyncDirs() syncs the directories). Without it the renames are atomic
  // but not durable, for callers that choose speed over crash safety.
  explicit AtomicPublish(Env& env, bool sync = true);
  ~AtomicPublish();
  AtomicPublish(const AtomicPublish&) = delete;
  AtomicPublish& operator=(const AtomicPublish&) = delete;

  // Creates (or truncates) `temp_path`, to be published as `final_path`.
  // The file is owned here: write it through the pointer until Close().
  [[nodiscard]] Result<WritableFile*> Create(std::string final_path,
                                             std::string temp_path);
  // Registers `temp_path`, which the caller writes, syncs and closes
  // itself, to be published as `final_path`.
  void Add(std::string final_path, std::string temp_path);

  // Syncs (with `sync`) and closes the files Create() opened that are
  // still open, in order.
  [[nodiscard]] Status Close();
  // Renames each temporary not yet renamed over its final name, in the
  // order registered. Stops at the first failure.
  [[nodiscard]] Status Rename();
  // Syncs (with `sync`) each directory a rename changed since the last
  // call, once each; tries every one and returns the first error.
  [[nodiscard]] Status SyncDirs();
  // Close(), Rename(), then SyncDirs() (after a failed Rename too, so that
  // the renames made are durable). The first error.
  [[nodiscard]] Status Commit();

  // Closes and deletes every temporary not yet renamed (errors ignored).
  void Abandon();

  // How many files have been renamed to their final names.
  size_t renamed() const { return renamed_; }

 private:
  struct File {
    std::string final_path;
    std::string temp_path;
    std::unique_ptr<WritableFile> file;  // Create()'s, until closed
  };

  Env& env_;
  const bool sync_;
  std::vector<File> files_;  // files_[0, renamed_) are published
  size_t renamed_ = 0;
  // Directories to sync, each with the first file renamed into it (for
  // the error message).
  std::vector<std::pair<std::string, std::string>> dirs_to_sync_;
};

// Publishes `data` as `final_path` through `temp_path`: the four steps
// above for one file. On failure `final_path` holds what it held before,
// unless only the directory sync failed (`*renamed`, when given, says
// whether the rename was made: then it holds `data`, perhaps not durably),
// and no temporary is left, unless deleting it failed too.
[[nodiscard]] Status WriteFileAtomically(Env& env, std::string final_path,
                                         std::string temp_path,
                                         std::string_view data,
                                         bool sync = true,
                                         bool* renamed = nullptr);

// `digits` random lowercase hexadecimal digits (a per-thread generator
// seeded from std::random_device), for temporaries' names.
std::string RandomHex(size_t digits);

}  // namespace inflow::internal

#endif  // INFLOW_IO_ATOMIC_PUBLISH_H_
