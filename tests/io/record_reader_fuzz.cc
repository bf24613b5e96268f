// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a TFRecord file. The first input byte
// picks the compression (mod 3) and the read buffer size; the rest is the
// file. Reading must end in OUT_OF_RANGE or DATA_LOSS (or another error
// status) without crashing, hanging or returning a record whose framing is
// not in the file.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inflow/io/compression.h"
#include "inflow/io/crc32c.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  MemEnv env;
  if (!WriteStringToFile(env, "f", file).ok()) std::abort();
  if (mode & 0x80) env.SetMaxReadChunk(1 + (mode & 7));

  static_cast<void>(DetectCompression("f", file));
  RecordReaderOptions options;
  options.compression = static_cast<CompressionType>(mode % 3);
  options.buffer_size = (mode & 0x40) ? 64 : 4096;
  options.zlib.input_buffer_size = 64;
  auto reader = RecordReader::Open(env, "f", options);
  if (!reader.ok()) std::abort();
  uint64_t last = 0;
  for (int n = 0; n < 100000; ++n) {
    const uint64_t offset = (*reader)->offset();
    Result<std::string_view> record = (*reader)->Next();
    if (!record.ok()) {
      // A failed read does not advance, and fails the same way again.
      if ((*reader)->offset() != offset) std::abort();
      if ((*reader)->Next().status().code() != record.status().code()) {
        std::abort();
      }
      break;
    }
    if ((*reader)->offset() != offset + record->size() + 16) std::abort();
    if (options.compression == CompressionType::kNone &&
        file.compare(offset + 12, record->size(), *record) != 0) {
      std::abort();
    }
    last = offset;
  }
  // Reading again at the last good offset gives the same verdict.
  std::string again;
  (*reader)->ReadRecord(&last, &again).IgnoreError();
  return 0;
}
