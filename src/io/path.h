// Copyright 2026 The inflow Authors.
//
// Lexical path helpers with Python's os.path semantics on POSIX, which is
// what TensorFlow's checkpoint bookkeeping uses, and the directory a
// file's publication syncs. They never touch the file system.

#ifndef INFLOW_IO_PATH_H_
#define INFLOW_IO_PATH_H_

#include <string>
#include <string_view>

namespace inflow {
namespace internal {

// os.path.isabs: starts with '/'.
bool IsAbsolutePath(std::string_view path);
// os.path.dirname: everything before the last '/', trailing slashes
// stripped unless it is all slashes ("a/b" -> "a", "b" -> "", "/b" -> "/").
std::string Dirname(std::string_view path);
// The directory `path` lies in, as SyncDir takes it: "a/b" -> "a",
// "/b" -> "/", "b" -> "." (Dirname, with "." for "").
std::string DirectoryOf(std::string_view path);
// os.path.basename: everything after the last '/'.
std::string Basename(std::string_view path);
// os.path.join(a, b): b if it is absolute, else a + '/' + b (no '/' added
// when a is empty or already ends with one).
std::string JoinPath(std::string_view a, std::string_view b);
// os.path.normpath: collapses "//", "." and "a/.."; "" -> ".".
std::string NormalizePath(std::string_view path);
// os.path.relpath(path, start) for two paths that are both absolute or
// both relative (relative ones are taken from the same directory).
std::string RelativePath(std::string_view path, std::string_view start);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_IO_PATH_H_
