// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/pending_files.h"

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>

#include "io/atomic_publish.h"

namespace inflow {
namespace {

constexpr char kTmpMarker[] = ".tmp-";

std::pair<std::string, std::string> SplitPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

}  // namespace

PendingFiles::PendingFiles(Env& env)
    : publish_(std::make_unique<internal::AtomicPublish>(env)) {}

// The AtomicPublish deletes the temporaries not yet renamed.
PendingFiles::~PendingFiles() = default;

std::string PendingFiles::TemporaryPath(const std::string& final_path) {
  auto [dir, name] = SplitPath(final_path);
  return dir + "." + name + kTmpMarker + std::to_string(::getpid());
}

bool PendingFiles::IsTemporaryName(const std::string& name) {
  if (name.empty() || name[0] != '.') return false;
  const size_t marker = name.rfind(kTmpMarker);
  if (marker == std::string::npos || marker < 2) return false;
  const std::string pid = name.substr(marker + sizeof(kTmpMarker) - 1);
  return !pid.empty() && pid.find_first_not_of("0123456789") == pid.npos;
}

std::string PendingFiles::Add(const std::string& final_path) {
  std::string tmp = TemporaryPath(final_path);
  // The caller writes and syncs the temporary; Commit() renames it and
  // syncs its directory.
  publish_->Add(final_path, tmp);
  return tmp;
}

Status PendingFiles::Commit() { return publish_->Commit(); }

void PendingFiles::Abandon() { publish_->Abandon(); }

}  // namespace inflow
