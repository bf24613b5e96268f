// Copyright 2026 The inflow Authors.

#include "inflow/io/env.h"

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

// Back ends that do not have these yet say so.
Status Env::DeleteDir(const std::string& path) {
  return UnimplementedError("DeleteDir is not supported by this Env: " + path);
}

Status Env::IsDirectory(const std::string& path) {
  return UnimplementedError("IsDirectory is not supported by this Env: " +
                            path);
}

Result<double> Env::GetModificationTime(const std::string& path) {
  return UnimplementedError(
      "GetModificationTime is not supported by this Env: " + path);
}

}  // namespace inflow
