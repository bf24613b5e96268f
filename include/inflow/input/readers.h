// Copyright 2026 The inflow Authors.
//
// TensorFlow's four file readers (docs/formats.md, "Reader ops"), each
// pulling filenames from a queue (input/reader_base.h). Keys:
//   TFRecordReader           "<file>:<offset of the record in the
//                            (decompressed) stream>"
//   TextLineReader           "<file>:<1-based line number, counting skipped
//                            header lines>"
//   FixedLengthRecordReader  "<file>:<0-based record index>"
//   WholeFileReader          "<file>"
// Every reader is thread-safe (see ReaderBase).

#ifndef INFLOW_INPUT_READERS_H_
#define INFLOW_INPUT_READERS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "inflow/core/result.h"
#include "inflow/input/reader_base.h"
#include "inflow/io/env.h"

namespace inflow {

// Records of TFRecord files; values are payloads. Errors as RecordReader.
// `compression_type`: "", "ZLIB" or "GZIP" (else INVALID_ARGUMENT).
Result<std::unique_ptr<ReaderBase>> NewTFRecordReader(
    Env& env, const std::string& compression_type = "");

// Lines without their "\n" (and one trailing "\r"). A final line without
// a newline counts if non-empty. skip_header_lines < 0: INVALID_ARGUMENT.
Result<std::unique_ptr<ReaderBase>> NewTextLineReader(
    Env& env, int64_t skip_header_lines = 0);

struct FixedLengthRecordOptions {
  int64_t header_bytes = 0;
  int64_t record_bytes = 0;  // must be > 0
  int64_t footer_bytes = 0;
  // Record i starts at header_bytes + i * (hop_bytes > 0 ? hop_bytes :
  // record_bytes).
  int64_t hop_bytes = 0;
  // "", "ZLIB" or "GZIP": the whole file is compressed.
  std::string encoding = {};
};
// A record is produced only if it ends at or before (stream size -
// footer_bytes); leftover bytes are ignored. Negative sizes, record_bytes
// of 0 or an unknown encoding: INVALID_ARGUMENT.
Result<std::unique_ptr<ReaderBase>> NewFixedLengthRecordReader(
    Env& env, const FixedLengthRecordOptions& options);

// One record per file, its whole contents (an empty file gives one empty
// value).
std::unique_ptr<ReaderBase> NewWholeFileReader(Env& env);

}  // namespace inflow

#endif  // INFLOW_INPUT_READERS_H_
