// Copyright 2026 The inflow Authors.

#include "inflow/io/compression.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "io/record_format.h"

namespace inflow {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string_view CompressionTypeName(CompressionType type) {
  switch (type) {
    case CompressionType::kNone:
      return "";
    case CompressionType::kZlib:
      return "ZLIB";
    case CompressionType::kGzip:
      return "GZIP";
  }
  return "";
}

Result<CompressionType> ParseCompressionType(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (upper.empty() || upper == "NONE") return CompressionType::kNone;
  if (upper == "ZLIB") return CompressionType::kZlib;
  if (upper == "GZIP") return CompressionType::kGzip;
  return InvalidArgumentError("unknown compression type \"" +
                              std::string(name) +
                              "\" (expected \"\", \"ZLIB\" or \"GZIP\")");
}

CompressionType CompressionFromFileName(std::string_view path) {
  if (EndsWith(path, ".gz") || EndsWith(path, ".gzip")) {
    return CompressionType::kGzip;
  }
  if (EndsWith(path, ".zlib") || EndsWith(path, ".zz")) {
    return CompressionType::kZlib;
  }
  return CompressionType::kNone;
}

CompressionType DetectCompression(std::string_view path,
                                  std::string_view first_bytes) {
  if (first_bytes.empty()) return CompressionType::kNone;
  if (first_bytes.size() >= internal::kRecordHeaderSize &&
      internal::DecodeRecordHeader(first_bytes.data()).has_value()) {
    return CompressionType::kNone;
  }
  const auto* b = reinterpret_cast<const unsigned char*>(first_bytes.data());
  if (first_bytes.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    return CompressionType::kGzip;
  }
  if (first_bytes.size() >= 2 && (b[0] & 0x0f) == 8 && (b[0] >> 4) <= 7 &&
      (b[0] * 256 + b[1]) % 31 == 0) {
    return CompressionType::kZlib;
  }
  return CompressionFromFileName(path);
}

Result<CompressionType> DetectFileCompression(Env& env,
                                              const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  char head[internal::kRecordHeaderSize];
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadFully(*file, 0, sizeof(head), head));
  return DetectCompression(path, std::string_view(head, got));
}

}  // namespace inflow
