// Copyright 2026 The inflow Authors.
//
// bench_records: TFRecord write and read+verify throughput for 100-byte,
// 1 KB and 100 KB records (uncompressed, from the page cache), each next to
// the physical limit measured in the same run: a plain sequential read of
// the same file (pread in chunks of the reader's buffer size) and a plain
// write of the same bytes, one file each in turns (the ratio is the median
// over five rounds of turns). Also gzip read throughput (decompressed
// bytes).
// Ends with one JSON line:
//   {"bench": "records", "ratio_vs_plain_read": {...},
//    "write_ratio_vs_plain_write": {...}, "gzip_read_mb_s": g,
//    "kernels": {"crc32c": name}}

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "inflow/io/crc32c.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "bench_util.h"
#include "io/crc32c_internal.h"

namespace inflow {
namespace {

// --smoke (bench_util.h): files of 256 KiB, one round of 1 ms.
bool smoke = false;

size_t FileBytes() { return smoke ? 256 << 10 : 48 << 20; }
constexpr size_t kBufferSize = 256 << 10;

struct SizeCase {
  const char* label;
  size_t record_bytes;
};
constexpr SizeCase kSizes[] = {
    {"100b", 100}, {"1kb", 1024}, {"100kb", 100 << 10}};

std::string Dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path p =
        std::filesystem::path(tmp ? tmp : "/tmp") /
        ("inflow_bench_records_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

std::vector<std::string> Records(size_t record_bytes, bool compressible) {
  std::mt19937_64 rng(record_bytes);
  const size_t n = std::max<size_t>(1, FileBytes() / (record_bytes + 16));
  std::vector<std::string> records(n, std::string(record_bytes, '\0'));
  for (std::string& r : records) {
    for (char& c : r) {
      c = static_cast<char>(compressible ? 'a' + rng() % 8 : rng());
    }
  }
  return records;
}

const std::vector<std::string>& CachedRecords(size_t record_bytes) {
  static std::map<size_t, std::vector<std::string>> cache;
  auto it = cache.find(record_bytes);
  if (it == cache.end()) {
    it = cache.emplace(record_bytes, Records(record_bytes, false)).first;
  }
  return it->second;
}

std::string PathFor(const std::string& name) { return Dir() + "/" + name; }

void WriteFile(const std::string& path, const std::vector<std::string>& records,
               CompressionType compression) {
  RecordWriterOptions options;
  options.compression = compression;
  auto writer = RecordWriter::Create(Env::Default(), path, options);
  if (!writer.ok()) std::abort();
  for (const std::string& r : records) {
    if (!(*writer)->WriteRecord(r).ok()) std::abort();
  }
  if (!(*writer)->Close().ok()) std::abort();
}

// The record file for `c`, written once.
const std::string& RecordFile(const SizeCase& c) {
  static std::map<size_t, std::string> files;
  auto it = files.find(c.record_bytes);
  if (it == files.end()) {
    const std::string path = PathFor(std::string("read_") + c.label);
    WriteFile(path, CachedRecords(c.record_bytes), CompressionType::kNone);
    // On disk before any read is timed, so that no writeback runs then.
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) std::abort();
    ::close(fd);
    it = files.emplace(c.record_bytes, path).first;
  }
  return it->second;
}

// One plain read of the file at `path` through `buf` (kBufferSize bytes);
// returns the bytes read.
size_t PlainReadOnce(const std::string& path, char* buf) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) std::abort();
  off_t off = 0;
  ssize_t got;
  while ((got = ::pread(fd, buf, kBufferSize, off)) > 0) off += got;
  ::close(fd);
  benchmark::DoNotOptimize(buf);
  return static_cast<size_t>(off);
}

// Reads and verifies every record of `path`; returns the bytes read and
// adds the records to `*records`.
size_t RecordReadOnce(const std::string& path, size_t* records) {
  RecordReaderOptions options;
  options.buffer_size = kBufferSize;
  auto reader = RecordReader::Open(Env::Default(), path, options);
  if (!reader.ok()) std::abort();
  while (true) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) break;
    benchmark::DoNotOptimize(r->data());
    ++*records;
  }
  return (*reader)->offset();
}

// Writes `framed` (the bytes of a record file) to `path` in kBufferSize
// writes; returns the bytes written.
size_t PlainWriteOnce(const std::string& framed, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) std::abort();
  for (size_t off = 0; off < framed.size(); off += kBufferSize) {
    const size_t n = std::min(kBufferSize, framed.size() - off);
    if (::write(fd, framed.data() + off, n) != static_cast<ssize_t>(n)) {
      std::abort();
    }
  }
  ::close(fd);
  return framed.size();
}

size_t RecordWriteOnce(const std::vector<std::string>& records,
                       const std::string& path) {
  WriteFile(path, records, CompressionType::kNone);
  size_t total = 0;
  for (const std::string& r : records) total += r.size() + 16;
  return total;
}

// Runs `limit` and `ours` (each returning the bytes it moved) in turns,
// one file each, alternating which goes first, and reports both rates and
// their ratio. The speed of memory and of the kernel's copies on a shared
// machine drifts over tens of milliseconds; runs this close together see
// the same conditions.
// Returns the seconds spent in `ours`.
template <typename Limit, typename Ours>
double RunInTurns(benchmark::State& state, Limit limit, Ours ours) {
  using Clock = std::chrono::steady_clock;
  double limit_s = 0, ours_s = 0;
  size_t limit_bytes = 0, ours_bytes = 0;
  bool ours_first = false;
  for (auto _ : state) {
    for (int k = 0; k < 2; ++k) {
      const bool run_ours = (k == 0) == ours_first;
      const Clock::time_point t0 = Clock::now();
      if (run_ours) {
        ours_bytes += ours();
      } else {
        limit_bytes += limit();
      }
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      (run_ours ? ours_s : limit_s) += s;
    }
    ours_first = !ours_first;
  }
  if (limit_s <= 0 || ours_s <= 0) return 0;
  const double limit_rate = static_cast<double>(limit_bytes) / limit_s;
  const double ours_rate = static_cast<double>(ours_bytes) / ours_s;
  state.counters["limit_bytes_per_second"] = limit_rate;
  state.counters["bytes_per_second"] = ours_rate;
  state.counters["ratio"] = ours_rate / limit_rate;
  return ours_s;
}

void SetRecordRate(benchmark::State& state, size_t records, double seconds) {
  if (seconds > 0) {
    state.counters["records_per_second"] =
        static_cast<double>(records) / seconds;
  }
}

void BM_Read(benchmark::State& state, SizeCase c) {
  const std::string& path = RecordFile(c);
  // Page-aligned, as the kernel copies fastest.
  std::unique_ptr<char, void (*)(void*)> buf(
      static_cast<char*>(std::aligned_alloc(4096, kBufferSize)), std::free);
  size_t records = 0;
  const double seconds = RunInTurns(
      state, [&] { return PlainReadOnce(path, buf.get()); },
      [&] { return RecordReadOnce(path, &records); });
  SetRecordRate(state, records, seconds);
}

void BM_Write(benchmark::State& state, SizeCase c) {
  const std::vector<std::string>& records = CachedRecords(c.record_bytes);
  const std::string framed = [&] {
    Result<std::string> bytes = ReadFileToString(Env::Default(), RecordFile(c));
    if (!bytes.ok()) std::abort();
    return *bytes;
  }();
  const std::string plain_path = PathFor(std::string("plain_write_") + c.label);
  const std::string record_path =
      PathFor(std::string("record_write_") + c.label);
  const double seconds = RunInTurns(
      state, [&] { return PlainWriteOnce(framed, plain_path); },
      [&] { return RecordWriteOnce(records, record_path); });
  SetRecordRate(state, state.iterations() * records.size(), seconds);
}

void BM_GzipRead(benchmark::State& state) {
  static const std::string path = [] {
    const std::string p = PathFor("gzip_1kb");
    std::vector<std::string> records = Records(1024, true);
    records.resize(records.size() / 4);
    WriteFile(p, records, CompressionType::kGzip);
    return p;
  }();
  RecordReaderOptions options;
  options.compression = CompressionType::kGzip;
  size_t total = 0;
  for (auto _ : state) {
    auto reader = RecordReader::Open(Env::Default(), path, options);
    if (!reader.ok()) std::abort();
    while ((*reader)->Next().ok()) {
    }
    total += (*reader)->offset();
  }
  state.SetBytesProcessed(static_cast<int64_t>(total));
}

void BM_Crc32c(benchmark::State& state) {
  const std::string data(static_cast<size_t>(state.range(0)), 'x');
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = crc32c::Extend(crc, data.data(), data.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
  state.SetLabel(std::string(
      crc32c::internal::KernelName(crc32c::internal::SelectedKernel())));
}

// Keeps the counters of each benchmark run, by name.
class CaptureReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      for (const char* counter : {"bytes_per_second", "ratio"}) {
        auto it = run.counters.find(counter);
        if (it == run.counters.end()) continue;
        values[run.run_name.function_name][counter] =
            static_cast<double>(it->second);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, std::map<std::string, double>> values;
};

// Each comparison runs as Rounds() rounds of files read (or written) in
// turns, and the JSON reports the median of the rounds' ratios.
int Rounds() { return smoke ? 1 : 5; }

std::string RoundName(const std::string& what, const std::string& label,
                      int round) {
  return what + "/" + label + "/round:" + std::to_string(round);
}

void Register() {
  // All reads first: writing gigabytes leaves the kernel flushing dirty
  // pages for a while, which would land on whichever read runs then.
  using Fn = void (*)(benchmark::State&, SizeCase);
  const std::pair<const char*, Fn> kinds[] = {{"Read", BM_Read},
                                              {"Write", BM_Write}};
  for (const auto& [name, fn] : kinds) {
    for (const SizeCase& c : kSizes) {
      for (int i = 0; i < Rounds(); ++i) {
        benchmark::RegisterBenchmark(RoundName(name, c.label, i).c_str(), fn, c)
            ->MinTime(smoke ? 0.001 : 0.3)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  benchmark::RegisterBenchmark("GzipRead/1kb", BM_GzipRead)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Crc32c", BM_Crc32c)
      ->Arg(1024)
      ->Arg(2048)
      ->Arg(4096)
      ->Arg(100 << 10);
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  using namespace inflow;
  smoke = bench::TakeSmokeFlag(&argc, argv);
  Register();
  bench::BenchArgs args(argc, argv, smoke);
  benchmark::Initialize(args.argc(), args.argv());
  if (benchmark::ReportUnrecognizedArguments(*args.argc(), args.argv())) {
    return 1;
  }
  CaptureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::filesystem::remove_all(Dir());

  // The median over the rounds of ours / the limit.
  auto ratio = [&](const std::string& what, const std::string& label) {
    std::vector<double> ratios;
    for (int i = 0; i < Rounds(); ++i) {
      const double r = reporter.values[RoundName(what, label, i)]["ratio"];
      if (r > 0) ratios.push_back(r);
    }
    return bench::Median(std::move(ratios));
  };
  auto fmt = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", v);
    return std::string(buf);
  };
  std::string read, write;
  for (const SizeCase& c : kSizes) {
    const std::string l = c.label;
    if (!read.empty()) {
      read.append(", ");
      write.append(", ");
    }
    read.append("\"").append(l).append("\": ");
    read.append(fmt(ratio("Read", l)));
    write.append("\"").append(l).append("\": ");
    write.append(fmt(ratio("Write", l)));
  }
  std::printf(
      "{\"bench\": \"records\", \"ratio_vs_plain_read\": {%s}, "
      "\"write_ratio_vs_plain_write\": {%s}, \"gzip_read_mb_s\": %s, "
      "\"kernels\": %s}\n",
      read.c_str(), write.c_str(),
      fmt(reporter.values["GzipRead/1kb"]["bytes_per_second"] / 1e6).c_str(),
      bench::KernelsJson({{"crc32c", crc32c::internal::KernelName(
                                         crc32c::internal::SelectedKernel())}})
          .c_str());
  return 0;
}
