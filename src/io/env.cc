// Copyright 2026 The inflow Authors.

#include "inflow/io/env.h"

#include <string>
#include <vector>

#include "io/path.h"

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

namespace {}  // namespace

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
        for (std::string up = internal::Dirname(dir);
             !up.empty() &&
             env.IsDirectory(up).code() == StatusCode::kFailedPrecondition;
             up = internal::Dirname(up)) {
          dir = up;
        }
        return FailedPreconditionError("cannot create directory " + path +
                                       ": " + dir + " is not a directory");
      }
      return s.WithContext("creating directory " + path);
    }
    missing.push_back(dir);
    if (dir == "/") break;
    dir = internal::Dirname(dir);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    INFLOW_RETURN_IF_ERROR(env.CreateDir(*it));
    INFLOW_RETURN_IF_ERROR(env.SyncDir(internal::DirectoryOf(*it)));
  }
  return OkStatus();
}

}  // namespace inflow
