// Copyright 2026 The inflow Authors.

#include "checkpoint/saver_files.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "inflow/checkpoint/bundle.h"

#include "io/path.h"

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

std::string EvictionMarkerFilename(std::string_view prefix) {
  return std::string(prefix) + ".evicting";
}

namespace {

bool AllOf(std::string_view s, size_t n, bool (*pred)(char)) {
  if (s.size() != n) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

// Strips "-<digits>" (a step) from the front of `*rest`, if there; the
// checkpoint's name part is then base + what was stripped.
void StripStep(std::string_view* rest) {
  if (rest->empty() || (*rest)[0] != '-') return;
  size_t i = 1;
  while (i < rest->size() && IsDigit((*rest)[i])) ++i;
  if (i > 1) rest->remove_prefix(i);
}

// ".data-NNNNN-of-NNNNN" exactly.
bool IsDataSuffix(std::string_view s) {
  return s.size() == 20 && s.substr(0, 6) == ".data-" &&
         AllOf(s.substr(6, 5), 5, IsDigit) && s.substr(11, 4) == "-of-" &&
         AllOf(s.substr(15, 5), 5, IsDigit);
}

enum class Kind { kOther, kTemp, kData, kMarker };

// What `name` (a file in base's directory) is to a Saver of `base_name`;
// `*checkpoint` is the checkpoint's file name part.
Kind Classify(std::string_view name, std::string_view base_name,
              std::string* checkpoint) {
  if (name.substr(0, base_name.size()) != base_name) return Kind::kOther;
  std::string_view rest = name.substr(base_name.size());
  StripStep(&rest);
  *checkpoint = std::string(name.substr(0, name.size() - rest.size()));
  constexpr std::string_view kTemp = ".tempstate";
  const size_t temp = rest.find(kTemp);
  if (temp != std::string_view::npos) {
    const std::string_view file = rest.substr(0, temp);
    if ((file == ".index" || IsDataSuffix(file)) &&
        AllOf(rest.substr(temp + kTemp.size()), 16, IsLowerHex)) {
      return Kind::kTemp;
    }
    return Kind::kOther;
  }
  if (IsDataSuffix(rest)) return Kind::kData;
  if (rest == ".evicting") return Kind::kMarker;
  return Kind::kOther;
}

}  // namespace

int RemoveSaverLeftovers(Env& env, const std::string& base,
                         const std::string& latest_filename,
                         const std::vector<std::string>& listed, double now,
                         double grace_seconds) {
  std::string dir = Dirname(base);
  const std::string base_name = Basename(base);
  if (base_name.empty()) return 0;
  Result<std::vector<std::string>> children =
      env.GetChildren(dir.empty() ? "." : dir);
  if (!children.ok()) return 0;
  auto path_of = [&](const std::string& name) {
    return dir.empty() ? name : JoinPath(dir, name);
  };
  auto is_listed = [&](const std::string& checkpoint) {
    return std::find(listed.begin(), listed.end(), checkpoint) != listed.end();
  };
  auto old_enough = [&](const std::string& path) {
    Result<double> mtime = env.GetModificationTime(path);
    return mtime.ok() && now - *mtime >= grace_seconds;
  };
  std::set<std::string> names(children->begin(), children->end());
  int deleted = 0;
  auto remove = [&](const std::string& path) {
    if (env.DeleteFile(path).ok()) ++deleted;
  };
  for (const std::string& name : names) {
    std::string checkpoint;
    const std::string path = path_of(name);
    if (name.size() == latest_filename.size() + 4 + 32 &&
        name.substr(0, latest_filename.size()) == latest_filename &&
        name.substr(latest_filename.size(), 4) == ".tmp" &&
        AllOf(std::string_view(name).substr(latest_filename.size() + 4), 32,
              IsLowerHex)) {
      if (old_enough(path)) remove(path);
      continue;
    }
    switch (Classify(name, base_name, &checkpoint)) {
      case Kind::kTemp:
        if (old_enough(path)) remove(path);
        break;
      case Kind::kData:
        if (names.count(checkpoint + ".index") == 0 && !is_listed(checkpoint) &&
            old_enough(path)) {
          remove(path);
        }
        break;
      case Kind::kMarker:
        if (!is_listed(checkpoint)) {
          // The marker stays if this fails: the next Saver tries again.
          if (!DeleteCheckpointFiles(env, path_of(checkpoint)).ok()) break;
          ++deleted;
        }
        remove(path);
        break;
      case Kind::kOther:
        break;
    }
  }
  return deleted;
}

}  // namespace internal
}  // namespace inflow
