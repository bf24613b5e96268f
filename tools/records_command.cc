// Copyright 2026 The inflow Authors.
//
// `inflow records`: count, verify, print, index and write TFRecord files.
//
//   inflow records count  [--compression C] FILE...
//       one JSON line per file: {"file": F, "records": N}
//   inflow records verify [--compression C] FILE...
//       checks every CRC of every file; one JSON line per file:
//       {"file": F, "records": N, "bytes": <file size>, "ok": true}, or
//       {"file": F, "records": <good ones before the damage>, "ok": false,
//        "error": "DATA_LOSS: ..."}; exits 1 after the last file if any
//       failed
//   inflow records cat    [--as A] [--compression C] FILE...
//   inflow records head   [-n N] [--as A] [--compression C] FILE...
//       one JSON line per record (head: the first N of each file)
//       --as auto|raw|example|sequence_example; --features a,b keeps only
//       those feature keys of decoded records
//   inflow records index  FILE...
//       writes FILE.index, the offset of each record, beside each plain
//       TFRecord file (docs/formats.md "Record index"), replacing a stale
//       or corrupt one; one JSON line per file: {"file": F, "index":
//       "F.index", "records": N, "ok": true}, or {"file": F, "ok": false,
//       "error": "..."}; files done so far on stderr (tools/progress.h);
//       exits 1 after the last file if any failed
//   inflow records write  [--compression C] OUT
//       writes one record per stdin line {"raw": "<base64>"} (what
//       `cat --as raw` prints), so the two round-trip; writes a temporary
//       file beside OUT and renames it to OUT only once every record is
//       written, so a failed write leaves OUT as it was (or absent)
//
// --compression: auto (default; reading: from the file's first bytes, then
// its name; writing: from the name, ".gz"/".gzip" GZIP, ".zz"/".zlib"
// ZLIB), or TF's compression_type spellings in any case: GZIP, ZLIB, NONE
// or "" (none). On damage the good records before it are printed, then the
// command exits 1 with "DATA_LOSS: ..." (file and byte offset of the bad
// record) on stderr. A record that --as example / sequence_example cannot
// decode is INVALID_ARGUMENT naming the file, the record's index (from 0)
// and its offset.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inflow/example/example_json.h"
#include "inflow/example/feature_view.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"
#include "inflow/io/record_index.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "command.h"
#include "flag_checks.h"
#include "progress.h"

namespace inflow::tools {
namespace {

enum class RecordFormat { kAuto, kRaw, kExample, kSequenceExample };

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
      return "{\"raw\":\"" + Base64Encode(record) + "\"}";
    }
    case RecordFormat::kRaw:
      return "{\"raw\":\"" + Base64Encode(record) + "\"}";
    case RecordFormat::kExample: {
      Result<std::string> json = ExampleToJson(record, options);
      if (!json.ok()) return json.status().WithContext("not an Example");
      return json;
    }
    case RecordFormat::kSequenceExample: {
      Result<std::string> json = SequenceExampleToJson(record, options);
      if (!json.ok()) {
        return json.status().WithContext("not a SequenceExample");
      }
      return json;
    }
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

// --compression for reading `path`.
Result<CompressionType> CompressionFor(const Flags& flags,
                                       const std::string& path) {
  if (flags.compression == "auto") {
    return DetectFileCompression(Env::Default(), path);
  }
  return ParseCompressionType(flags.compression);
}

// "" when `value` is a valid --compression (CLI11's validator convention).
std::string CheckCompression(const std::string& value) {
  if (value == "auto" || ParseCompressionType(value).ok()) return "";
  return "unknown compression type \"" + value +
         "\": expected auto, GZIP, ZLIB, NONE or \"\" (in any case)";
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
// clean end of the file. An error of `each` names the file, the record's
// index and its offset.
template <typename Fn>
Status ForEachRecord(const Flags& flags, const std::string& path, int64_t limit,
                     Fn&& each) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                          OpenReader(flags, path));
  for (int64_t n = 0; limit < 0 || n < limit; ++n) {
    const uint64_t offset = reader->offset();
    Result<std::string_view> record = reader->Next();
    if (!record.ok()) {
      return IsOutOfRange(record.status()) ? OkStatus() : record.status();
    }
    Status s = each(*record);
    if (!s.ok()) {
      return s.WithContext(path + ": record " + std::to_string(n) +
                           " at offset " + std::to_string(offset));
    }
  }
  return OkStatus();
}

Status Count(const Flags& flags) {
  for (const std::string& path : flags.files) {
    int64_t records = 0;
    INFLOW_RETURN_IF_ERROR(
        ForEachRecord(flags, path, -1, [&](std::string_view) {
          ++records;
          return OkStatus();
        }));
    const nlohmann::ordered_json line = {{"file", path}, {"records", records}};
    std::printf("%s\n", Json(line).c_str());
  }
  return OkStatus();
}

// Every file, even after one fails; the first failure is the result.
Status Verify(const Flags& flags) {
  Status first_error;
  int failed = 0;
  for (const std::string& path : flags.files) {
    int64_t records = 0;
    Status s = ForEachRecord(flags, path, -1, [&](std::string_view) {
      ++records;
      return OkStatus();
    });
    nlohmann::ordered_json line = {{"file", path}, {"records", records}};
    Result<uint64_t> bytes = Env::Default().GetFileSize(path);
    if (s.ok()) s = bytes.status();
    if (bytes.ok()) line["bytes"] = *bytes;
    line["ok"] = s.ok();
    if (!s.ok()) {
      line["error"] = s.ToString();
      if (failed++ == 0) first_error = s;
    }
    std::printf("%s\n", Json(line).c_str());
  }
  if (failed == 0) return OkStatus();
  return first_error.WithContext(std::to_string(failed) + " of " +
                                 std::to_string(flags.files.size()) +
                                 " files failed; the first");
}

// Every file, even after one fails; the first failure is the result.
Status Index(const Flags& flags) {
  Progress::Options progress_options;
  progress_options.label = "index";
  progress_options.total = static_cast<int64_t>(flags.files.size());
  progress_options.unit = "files";
  Progress progress(progress_options);
  Status first_error;
  int failed = 0;
  int64_t done = 0;
  for (const std::string& path : flags.files) {
    Result<RecordIndex> index = WriteRecordIndex(Env::Default(), path);
    nlohmann::ordered_json line = {{"file", path}};
    if (index.ok()) {
      line["index"] = RecordIndexPath(path);
      line["records"] = index->size();
      line["ok"] = true;
    } else {
      line["ok"] = false;
      line["error"] = index.status().ToString();
      if (failed++ == 0) first_error = index.status();
    }
    std::printf("%s\n", Json(line).c_str());
    progress.Update(++done);
  }
  progress.Finish();
  if (failed == 0) return OkStatus();
  return first_error.WithContext(std::to_string(failed) + " of " +
                                 std::to_string(flags.files.size()) +
                                 " files failed; the first");
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

Status WriteRecordsFromStdin(RecordWriter& writer) {
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
    Result<std::string> record = Base64Decode(j["raw"].get<std::string>());
    if (!record.ok()) {
      return record.status().WithContext("stdin line " +
                                         std::to_string(number));
    }
    INFLOW_RETURN_IF_ERROR(writer.WriteRecord(*record));
  }
  return OkStatus();
}

// The temporary file of a write in progress, for the signal handler below
// ("" when there is none). Written only before the handlers are installed
// and after they are restored.
char g_write_tmp[4096];

// SIGINT, SIGTERM, SIGHUP, SIGPIPE during a write: delete the temporary
// file (unlink is async-signal-safe), then die of the signal as before.
void RemoveTmpAndReraise(int sig) {
  if (g_write_tmp[0] != '\0') ::unlink(g_write_tmp);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

constexpr int kWriteSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// Installs RemoveTmpAndReraise for `tmp` while alive.
class TmpFileGuard {
 public:
  explicit TmpFileGuard(const std::string& tmp) {
    if (tmp.size() >= sizeof(g_write_tmp)) return;  // no cleanup then
    std::memcpy(g_write_tmp, tmp.c_str(), tmp.size() + 1);
    for (int sig : kWriteSignals) ::signal(sig, RemoveTmpAndReraise);
  }
  ~TmpFileGuard() {
    for (int sig : kWriteSignals) ::signal(sig, SIG_DFL);
    g_write_tmp[0] = '\0';
  }
  TmpFileGuard(const TmpFileGuard&) = delete;
  TmpFileGuard& operator=(const TmpFileGuard&) = delete;
};

// Writes to "<dir>/.<name>.tmp<pid>" and renames it to `out` on success;
// on failure, or when a signal ends the program, the temporary file is
// deleted.
Status Write(const Flags& flags, const std::string& out) {
  RecordWriterOptions options;
  if (flags.compression == "auto") {
    options.compression = CompressionFromFileName(out);
  } else {
    INFLOW_ASSIGN_OR_RETURN(options.compression,
                            ParseCompressionType(flags.compression));
  }
  const size_t slash = out.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "" : out.substr(0, slash + 1);
  const std::string base =
      slash == std::string::npos ? out : out.substr(slash + 1);
  const std::string tmp =
      dir + "." + base + ".tmp" + std::to_string(::getpid());
  Env& env = Env::Default();
  const TmpFileGuard guard(tmp);
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                          RecordWriter::Create(env, tmp, options));
  Status s = WriteRecordsFromStdin(*writer);
  Status closed = writer->Close();
  if (s.ok()) s = closed;
  if (s.ok()) s = env.RenameFile(tmp, out);
  if (!s.ok()) {
    env.DeleteFile(tmp).IgnoreError();
    return s.WithContext("writing " + out);
  }
  return OkStatus();
}

std::function<Status()> Setup(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  auto out = std::make_shared<std::string>();
  app.require_subcommand(1, 1);
  const std::string compression_help =
      "auto (reading: from the first bytes, then the name; writing: from "
      "the name), or GZIP, ZLIB, NONE or \"\" in any case";
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--compression", flags->compression, compression_help)
        ->check(CheckCompression, "auto|GZIP|ZLIB|NONE|\"\"");
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
  head->add_option("-n", flags->head, "records per file (1 or more)")
      ->transform(IntegerIn(1, std::numeric_limits<int64_t>::max()));
  add_files(head);
  CLI::App* index = app.add_subcommand(
      "index", "Write FILE.index (each record's offset) beside each file");
  add_files(index);
  CLI::App* write = app.add_subcommand(
      "write", "Write records given as {\"raw\": base64} lines on stdin");
  add_common(write);
  write->add_option("OUT", *out, "output file")->required();

  return [=]() -> Status {
    if (count->parsed()) return Count(*flags);
    if (verify->parsed()) return Verify(*flags);
    if (cat->parsed()) return Print(*flags, -1);
    if (head->parsed()) return Print(*flags, flags->head);
    if (index->parsed()) return Index(*flags);
    if (write->parsed()) return Write(*flags, *out);
    return InvalidArgumentError("no records subcommand given");
  };
}

INFLOW_REGISTER_COMMAND("records",
                        "Count, verify, print, index and write TFRecord files",
                        Setup);

}  // namespace
}  // namespace inflow::tools
