// Copyright 2026 The inflow Authors.

#include "inflow/io/env.h"

#include <string>
#include <vector>

namespace inflow {

Result<size_t> ReadFully(const RandomAccessFile& file, uint64_t offset,
                         size_t n, char* scratch) {
  size_t done = 0;
  while (done < n) {
    INFLOW_ASSIGN_OR_RETURN(size_t got,
                            file.Read(offset + done, n - done, scratch + done));
    if (got == 0) break;
    done += got;
  }
  return done;
}

Result<std::string> ReadFileToString(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(uint64_t size, env.GetFileSize(path));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  std::string data(size, '\0');
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadFully(*file, 0, size, data.data()));
  data.resize(got);
  // The file may have grown since GetFileSize(); keep reading to its end.
  char chunk[4096];
  while (true) {
    INFLOW_ASSIGN_OR_RETURN(size_t more,
                            file->Read(data.size(), sizeof(chunk), chunk));
    if (more == 0) break;
    data.append(chunk, more);
  }
  return data;
}

Status WriteStringToFile(Env& env, const std::string& path,
                         std::string_view data) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          env.NewWritableFile(path));
  INFLOW_RETURN_IF_ERROR(file->Append(data));
  return file->Close();
}

namespace {

// "a/b/c" -> "a/b"; "/a" -> "/"; "a" -> "".
std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status RecursivelyCreateDir(Env& env, const std::string& path) {
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.empty())
    return InvalidArgumentError("cannot create a directory \"\"");
  // Walk up to the deepest component that exists, then create downwards.
  std::vector<std::string> missing;
  while (!dir.empty()) {
    Status s = env.IsDirectory(dir);
    if (s.ok()) break;
    if (!IsNotFound(s)) {
      if (s.code() == StatusCode::kFailedPrecondition) {
        // Name the file: the topmost component that is not a directory.
        for (std::string up = ParentDir(dir);
             !up.empty() &&
             env.IsDirectory(up).code() == StatusCode::kFailedPrecondition;
             up = ParentDir(up)) {
          dir = up;
        }
        return FailedPreconditionError("cannot create directory " + path +
                                       ": " + dir + " is not a directory");
      }
      return s.WithContext("creating directory " + path);
    }
    missing.push_back(dir);
    if (dir == "/") break;
    dir = ParentDir(dir);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    INFLOW_RETURN_IF_ERROR(env.CreateDir(*it));
    const std::string parent = ParentDir(*it);
    INFLOW_RETURN_IF_ERROR(env.SyncDir(parent.empty() ? "." : parent));
  }
  return OkStatus();
}

}  // namespace inflow
