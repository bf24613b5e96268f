// Copyright 2026 The inflow Authors.

#include "checkpoint/saver_files.h"

#include <cctype>
#include <vector>

#include "inflow/checkpoint/bundle.h"

#include "checkpoint/path.h"

namespace inflow {
namespace internal {
namespace {

// The prefix's file-name part with glob metacharacters escaped, so that
// only the data-file suffix's '?'s match anything.
std::string GlobEscapedPrefix(const std::string& prefix) {
  const size_t slash = prefix.rfind('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  std::string out = prefix.substr(0, name_start);
  for (size_t i = name_start; i < prefix.size(); ++i) {
    const char c = prefix[i];
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void DeleteIfExists(Env& env, const std::string& path, Status* first_error) {
  Status s = env.DeleteFile(path);
  if (!s.ok() && !IsNotFound(s) && first_error->ok()) *first_error = s;
}

}  // namespace

std::string MetaGraphFilename(std::string_view prefix) {
  // Strip "-[0-9?]+-of-[0-9]+" at the end.
  std::string_view p = prefix;
  size_t i = p.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(p[i - 1]))) --i;
  const size_t shards_start = i;
  constexpr std::string_view kOf = "-of-";
  if (shards_start < p.size() && i >= kOf.size() &&
      p.substr(i - kOf.size(), kOf.size()) == kOf) {
    i -= kOf.size();
    const size_t shard_end = i;
    while (i > 0 && (std::isdigit(static_cast<unsigned char>(p[i - 1])) ||
                     p[i - 1] == '?')) {
      --i;
    }
    if (i < shard_end && i > 0 && p[i - 1] == '-') p = p.substr(0, i - 1);
  }
  return std::string(p) + ".meta";
}

Status DeleteCheckpointFiles(Env& env, const std::string& prefix) {
  Status first_error;
  DeleteIfExists(env, MetaGraphFilename(prefix), &first_error);
  DeleteIfExists(env, BundleIndexFilename(prefix), &first_error);
  // "?????" spelled so that it is not read as a trigraph.
  const std::string five(5, '?');
  Result<std::vector<std::string>> data = GetMatchingPaths(
      env, GlobEscapedPrefix(prefix) + ".data-" + five + "-of-" + five);
  if (!data.ok()) {
    if (!IsNotFound(data.status()) && first_error.ok()) {
      first_error = data.status();
    }
  } else {
    for (const std::string& path : *data) {
      DeleteIfExists(env, path, &first_error);
    }
  }
  return first_error.WithContext("deleting checkpoint " + prefix);
}

Result<std::optional<double>> CheckpointMtime(Env& env,
                                              const std::string& prefix) {
  for (const std::string& path : {BundleIndexFilename(prefix), prefix}) {
    Result<double> mtime = env.GetModificationTime(path);
    if (mtime.ok()) return std::optional<double>(*mtime);
    if (!IsNotFound(mtime.status())) return mtime.status();
  }
  return std::optional<double>();
}

}  // namespace internal
}  // namespace inflow
