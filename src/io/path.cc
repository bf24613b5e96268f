// Copyright 2026 The inflow Authors.

#include "io/path.h"

#include <cstddef>
#include <vector>

namespace inflow {
namespace internal {
namespace {

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    const size_t j = path.find('/', i);
    const size_t end = j == std::string_view::npos ? path.size() : j;
    std::string_view part = path.substr(i, end - i);
    if (part.empty() || part == ".") {
      // Skipped.
    } else if (part == ".." && !(parts.empty() || parts.back() == "..")) {
      parts.pop_back();
    } else if (!(part == ".." && IsAbsolutePath(path) && parts.empty())) {
      parts.push_back(part);
    }
    i = end + 1;
  }
  return parts;
}

}  // namespace

bool IsAbsolutePath(std::string_view path) {
  return !path.empty() && path[0] == '/';
}

std::string Dirname(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  std::string_view head = path.substr(0, slash + 1);
  if (head.find_first_not_of('/') == std::string_view::npos) {
    return std::string(head);
  }
  while (!head.empty() && head.back() == '/') head.remove_suffix(1);
  return std::string(head);
}

std::string Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path
                                                     : path.substr(slash + 1));
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (IsAbsolutePath(b) || a.empty()) return std::string(b);
  std::string joined(a);
  if (joined.back() != '/') joined += '/';
  joined += b;
  return joined;
}

std::string NormalizePath(std::string_view path) {
  if (path.empty()) return ".";
  std::string out;
  if (IsAbsolutePath(path)) {
    // POSIX keeps exactly two leading slashes; Python does too.
    out = path.substr(0, 2) == "//" && path.substr(0, 3) != "///" ? "//" : "/";
  }
  bool first = true;
  for (std::string_view part : Components(path)) {
    if (!first) out += '/';
    out += part;
    first = false;
  }
  return out.empty() ? "." : out;
}

std::string RelativePath(std::string_view path, std::string_view start) {
  const std::vector<std::string_view> to = Components(path);
  const std::vector<std::string_view> from = Components(start);
  size_t common = 0;
  while (common < to.size() && common < from.size() &&
         to[common] == from[common]) {
    ++common;
  }
  std::string out;
  for (size_t i = common; i < from.size(); ++i) {
    if (!out.empty()) out += '/';
    out += "..";
  }
  for (size_t i = common; i < to.size(); ++i) {
    if (!out.empty()) out += '/';
    out += to[i];
  }
  return out.empty() ? "." : out;
}

std::string DirectoryOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  std::string_view dir = path.substr(0, slash + 1);
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  return std::string(dir);
}

}  // namespace internal
}  // namespace inflow
