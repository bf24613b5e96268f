// Copyright 2026 The inflow Authors.
//
// Compression of TFRecord (and other record) files: the whole byte stream
// is one zlib (RFC 1950) or gzip (RFC 1952) deflate stream, with
// TensorFlow's writer settings by default. Thread-safe (pure functions).

#ifndef INFLOW_IO_COMPRESSION_H_
#define INFLOW_IO_COMPRESSION_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/io/env.h"

namespace inflow {

// The numbers are those of TF's Python TFRecordCompressionType.
enum class CompressionType : int { kNone = 0, kZlib = 1, kGzip = 2 };

// "", "ZLIB" or "GZIP": TF's compression_type strings.
std::string_view CompressionTypeName(CompressionType type);

// Accepts TF's strings "", "ZLIB", "GZIP" and also "NONE", in any case.
// Anything else is INVALID_ARGUMENT (TF would log and read uncompressed).
Result<CompressionType> ParseCompressionType(std::string_view name);

// The compression a file's name asks for: ".gz" or ".gzip" means GZIP,
// ".zlib" or ".zz" means ZLIB, anything else none. Suffixes are matched
// exactly (".GZ" is none). What `inflow records write` uses for
// --compression auto, where there are no bytes to look at yet.
CompressionType CompressionFromFileName(std::string_view path);

// Guesses how a record file is compressed from its first bytes (at least
// 12 when the file has them) and, when those do not decide, its name:
// a valid TFRecord header or an empty file means none; gzip's magic
// 1f 8b means GZIP; a zlib header (CMF low nibble 8, CMF*256+FLG a
// multiple of 31) means ZLIB; otherwise CompressionFromFileName().
// Opt-in only: TF never guesses.
CompressionType DetectCompression(std::string_view path,
                                  std::string_view first_bytes);
// Reads the first bytes of `path` and calls DetectCompression().
Result<CompressionType> DetectFileCompression(Env& env,
                                              const std::string& path);

// zlib settings. The defaults are TF's ZlibCompressionOptions, so files
// written with them are byte-identical to TF's.
struct ZlibOptions {
  int level = -1;        // Z_DEFAULT_COMPRESSION; 0..9 otherwise
  int mem_level = 9;     // TF's default (Python's zlib uses 8)
  int strategy = 0;      // Z_DEFAULT_STRATEGY
  int window_bits = 15;  // 8..15; gzip adds 16 itself
  size_t input_buffer_size = 256 << 10;
  size_t output_buffer_size = 256 << 10;
};

}  // namespace inflow

#endif  // INFLOW_IO_COMPRESSION_H_
