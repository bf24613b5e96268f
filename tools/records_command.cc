// Copyright 2026 The inflow Authors.
//
// `inflow records`: count, verify, print and write TFRecord files.
//
//   inflow records count  [--compression C] FILE...
//       one JSON line per file: {"file": F, "records": N}
//   inflow records verify [--compression C] FILE...
//       checks every CRC; one JSON line per file:
//       {"file": F, "records": N, "bytes": <file size>, "ok": true}
//   inflow records cat    [--as A] [--compression C] FILE...
//   inflow records head   [-n N] [--as A] [--compression C] FILE...
//       one JSON line per record (head: the first N of each file)
//       --as auto|raw|example|sequence_example; --features a,b keeps only
//       those feature keys of decoded records
//   inflow records write  [--compression C] OUT
//       writes one record per stdin line {"raw": "<base64>"} (what
//       `cat --as raw` prints), so the two round-trip
//
// --compression: auto (default: from the file's first bytes and name),
// none, zlib or gzip. On damage the good records before it are printed,
// then the command exits 1 with "DATA_LOSS: ..." (file and byte offset of
// the bad record) on stderr.

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inflow/example/example_json.h"
#include "inflow/example/feature_view.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "command.h"

namespace inflow::tools {
namespace {

enum class RecordFormat { kAuto, kRaw, kExample, kSequenceExample };

std::string Base64(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t v = (uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8) |
                       uint8_t(data[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == data.size()) {
    const uint32_t v = uint8_t(data[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    const uint32_t v = (uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> Unbase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) return InvalidArgumentError("bad base64 character");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

// One record as one JSON line (without the newline).
//
// --as example / sequence_example print protobuf's canonical JSON
// (inflow/example/example_json.h); auto tries SequenceExample (when the
// record has feature lists), then Example (when it has features), then
// falls back to raw.
Result<std::string> RecordToJson(std::string_view record, RecordFormat as,
                                 const ExampleJsonOptions& options) {
  switch (as) {
    case RecordFormat::kAuto: {
      SequenceExampleView seq;
      if (seq.Parse(record).ok() && seq.has_feature_lists()) {
        return SequenceExampleToJson(record, options);
      }
      ExampleView example;
      if (example.Parse(record).ok() && example.has_features()) {
        return ExampleToJson(record, options);
      }
      return "{\"raw\":\"" + Base64(record) + "\"}";
    }
    case RecordFormat::kRaw:
      return "{\"raw\":\"" + Base64(record) + "\"}";
    case RecordFormat::kExample:
      return ExampleToJson(record, options);
    case RecordFormat::kSequenceExample:
      return SequenceExampleToJson(record, options);
  }
  return InternalError("unknown record format");
}

std::string Json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false,
                nlohmann::ordered_json::error_handler_t::replace);
}

struct Flags {
  std::vector<std::string> files;
  std::string compression = "auto";
  std::string as = "auto";
  std::vector<std::string> features;  // --features: keys to print
  int64_t head = 10;
};

Result<CompressionType> CompressionFor(const Flags& flags,
                                       const std::string& path) {
  if (flags.compression == "auto") {
    return DetectFileCompression(Env::Default(), path);
  }
  return ParseCompressionType(flags.compression);
}

Result<std::unique_ptr<RecordReader>> OpenReader(const Flags& flags,
                                                 const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(CompressionType compression,
                          CompressionFor(flags, path));
  RecordReaderOptions options;
  options.compression = compression;
  options.buffer_size = 1 << 20;
  return RecordReader::Open(Env::Default(), path, options);
}

// Calls `each` on every record (at most `limit`, if >= 0); OK at the
// clean end of the file.
template <typename Fn>
Status ForEachRecord(const Flags& flags, const std::string& path, int64_t limit,
                     Fn&& each) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                          OpenReader(flags, path));
  for (int64_t n = 0; limit < 0 || n < limit; ++n) {
    Result<std::string_view> record = reader->Next();
    if (!record.ok()) {
      return IsOutOfRange(record.status()) ? OkStatus() : record.status();
    }
    INFLOW_RETURN_IF_ERROR(each(*record));
  }
  return OkStatus();
}

Status Count(const Flags& flags, bool verify) {
  for (const std::string& path : flags.files) {
    int64_t records = 0;
    INFLOW_RETURN_IF_ERROR(
        ForEachRecord(flags, path, -1, [&](std::string_view) {
          ++records;
          return OkStatus();
        }));
    nlohmann::ordered_json line = {{"file", path}, {"records", records}};
    if (verify) {
      INFLOW_ASSIGN_OR_RETURN(uint64_t bytes, Env::Default().GetFileSize(path));
      line["bytes"] = bytes;
      line["ok"] = true;
    }
    std::printf("%s\n", Json(line).c_str());
  }
  return OkStatus();
}

Result<RecordFormat> ParseFormat(const std::string& as) {
  if (as == "auto") return RecordFormat::kAuto;
  if (as == "raw") return RecordFormat::kRaw;
  if (as == "example") return RecordFormat::kExample;
  if (as == "sequence_example") return RecordFormat::kSequenceExample;
  return InvalidArgumentError("unknown --as " + as);
}

Status Print(const Flags& flags, int64_t limit) {
  INFLOW_ASSIGN_OR_RETURN(RecordFormat as, ParseFormat(flags.as));
  ExampleJsonOptions options;
  options.only_features = flags.features;
  for (const std::string& path : flags.files) {
    INFLOW_RETURN_IF_ERROR(
        ForEachRecord(flags, path, limit, [&](std::string_view record) {
          INFLOW_ASSIGN_OR_RETURN(std::string line,
                                  RecordToJson(record, as, options));
          line.push_back('\n');
          std::fwrite(line.data(), 1, line.size(), stdout);
          return OkStatus();
        }));
  }
  return OkStatus();
}

Status Write(const Flags& flags, const std::string& out) {
  RecordWriterOptions options;
  if (flags.compression != "auto") {
    INFLOW_ASSIGN_OR_RETURN(options.compression,
                            ParseCompressionType(flags.compression));
  } else {
    options.compression = DetectCompression(out, "");
  }
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                          RecordWriter::Create(Env::Default(), out, options));
  std::string line;
  int64_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("raw") || !j["raw"].is_string()) {
      return InvalidArgumentError("stdin line " + std::to_string(number) +
                                  ": expected {\"raw\": \"<base64>\"}");
    }
    Result<std::string> record = Unbase64(j["raw"].get<std::string>());
    if (!record.ok()) {
      return record.status().WithContext("stdin line " +
                                         std::to_string(number));
    }
    INFLOW_RETURN_IF_ERROR(writer->WriteRecord(*record));
  }
  return writer->Close();
}

std::function<Status()> Setup(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  auto out = std::make_shared<std::string>();
  app.require_subcommand(1, 1);
  const std::string compression_help =
      "auto (from the first bytes and the name), none, zlib or gzip";
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--compression", flags->compression, compression_help)
        ->check(CLI::IsMember({"auto", "none", "zlib", "gzip"}));
  };
  auto add_files = [&](CLI::App* sub) {
    sub->add_option("FILE", flags->files, "TFRecord files")->required();
  };
  auto add_as = [&](CLI::App* sub) {
    sub->add_option("--as", flags->as,
                    "auto, raw, example or sequence_example (auto: decode "
                    "when the record parses, else raw)")
        ->check(CLI::IsMember({"auto", "raw", "example", "sequence_example"}));
    sub->add_option("--features", flags->features,
                    "only these feature keys (comma-separated)")
        ->delimiter(',');
  };

  CLI::App* count = app.add_subcommand("count", "Count the records");
  add_common(count);
  add_files(count);
  CLI::App* verify =
      app.add_subcommand("verify", "Check every CRC; one JSON line per file");
  add_common(verify);
  add_files(verify);
  CLI::App* cat = app.add_subcommand("cat", "Print every record as JSON");
  add_common(cat);
  add_as(cat);
  add_files(cat);
  CLI::App* head =
      app.add_subcommand("head", "Print the first N records of each file");
  add_common(head);
  add_as(head);
  head->add_option("-n", flags->head, "records per file")
      ->check(CLI::NonNegativeNumber);
  add_files(head);
  CLI::App* write = app.add_subcommand(
      "write", "Write records given as {\"raw\": base64} lines on stdin");
  add_common(write);
  write->add_option("OUT", *out, "output file")->required();

  return [=]() -> Status {
    if (count->parsed()) return Count(*flags, /*verify=*/false);
    if (verify->parsed()) return Count(*flags, /*verify=*/true);
    if (cat->parsed()) return Print(*flags, -1);
    if (head->parsed()) return Print(*flags, flags->head);
    if (write->parsed()) return Write(*flags, *out);
    return InvalidArgumentError("no records subcommand given");
  };
}

INFLOW_REGISTER_COMMAND("records",
                        "Count, verify, print and write TFRecord files", Setup);

}  // namespace
}  // namespace inflow::tools
