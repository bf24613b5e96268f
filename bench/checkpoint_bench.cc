// Copyright 2026 The inflow Authors.
//
// bench_checkpoint: saving and restoring 100 MiB of float32 variables
// (100 tensors of 256 Ki floats) with BundleWriter and
// BundleReader::ReadInto, against plain POSIX I/O of the same bytes in the
// same run: write() of each variable to one file (+ fdatasync) and pread()
// back into the same preallocated memory. Both sides run synced, then both
// unsynced; rounds alternate plain and bundle; figures are medians.
//
// What the bundle does on top of the plain bytes: CRC-32C of every byte
// on both paths, the index (one table), the temporary names and renames,
// and on the synced path a data-file sync, an index sync and two directory
// syncs instead of one data-file sync.
//
//   bench_checkpoint [--dir D] [--rounds N] [--smoke]
//
// Files go to D (default: the system temp dir). Ends with one JSON line:
//   {"bench": "checkpoint", "save_ratio": x, "restore_ratio": y,
//    "synced": {"save_ratio": .., "restore_ratio": ..},
//    "unsynced": {"save_ratio": .., "restore_ratio": ..},
//    "bundle_mib_per_s": {...}, "plain_mib_per_s": {...},
//    "kernels": {"crc32c": name}}
// where a ratio is plain time over bundle time (1 = as fast as plain
// I/O) and save_ratio / restore_ratio are the synced figures.

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "inflow/checkpoint/bundle.h"

#include "bench_util.h"
#include "io/crc32c_internal.h"

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_checkpoint: %s\n", what.c_str());
  std::exit(1);
}

void OrDie(const Status& s) {
  if (!s.ok()) Die(s.ToString());
}

std::string Name(int i) {
  std::string name = "layer_";
  name += std::to_string(i);
  name += "/kernel";
  return name;
}

double PlainSave(const std::string& path, const std::vector<Tensor>& vars,
                 bool sync) {
  std::filesystem::remove(path);
  const Clock::time_point start = Clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open " + path);
  for (const Tensor& t : vars) {
    const char* p = static_cast<const char*>(t.raw_data());
    size_t left = t.num_bytes();
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n <= 0) Die("write " + path);
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  if (sync && ::fdatasync(fd) != 0) Die("fdatasync " + path);
  if (::close(fd) != 0) Die("close " + path);
  return Seconds(start);
}

double PlainRestore(const std::string& path, std::vector<Tensor>& out) {
  const Clock::time_point start = Clock::now();
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) Die("open " + path);
  off_t offset = 0;
  for (Tensor& t : out) {
    char* p = static_cast<char*>(t.mutable_raw_data().value());
    size_t left = t.num_bytes();
    while (left > 0) {
      const ssize_t n = ::pread(fd, p, left, offset);
      if (n <= 0) Die("pread " + path);
      p += n;
      offset += n;
      left -= static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return Seconds(start);
}

double BundleSave(const std::string& prefix, const std::vector<Tensor>& vars,
                  bool sync) {
  std::filesystem::remove(BundleIndexFilename(prefix));
  std::filesystem::remove(BundleDataFilename(prefix, 0, 1));
  const Clock::time_point start = Clock::now();
  BundleWriterOptions options;
  options.sync = sync;
  BundleWriter writer(prefix, options);
  for (size_t i = 0; i < vars.size(); ++i) {
    OrDie(writer.Add(Name(static_cast<int>(i)), vars[i]));
  }
  OrDie(writer.Finish());
  return Seconds(start);
}

double BundleRestore(const std::string& prefix, std::vector<Tensor>& out) {
  const Clock::time_point start = Clock::now();
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  OrDie(reader.status());
  for (size_t i = 0; i < out.size(); ++i) {
    OrDie((*reader)->ReadInto(Name(static_cast<int>(i)), &out[i]));
  }
  return Seconds(start);
}

struct Figures {
  double plain_save, bundle_save, plain_restore, bundle_restore;
};

Figures Run(const std::string& dir, const std::vector<Tensor>& vars,
            std::vector<Tensor>& out, int rounds, bool sync) {
  const std::string plain = dir + "/plain.bin";
  const std::string prefix = dir + "/model.ckpt";
  std::vector<double> ps, bs, pr, br;
  for (int r = 0; r < rounds; ++r) {
    ps.push_back(PlainSave(plain, vars, sync));
    bs.push_back(BundleSave(prefix, vars, sync));
    pr.push_back(PlainRestore(plain, out));
    br.push_back(BundleRestore(prefix, out));
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!(out[i] == vars[i])) Die("restored value differs: " + Name(int(i)));
  }
  return {bench::Median(ps), bench::Median(bs), bench::Median(pr),
          bench::Median(br)};
}

int Main(int argc, char** argv) {
  const bool smoke = bench::TakeSmokeFlag(&argc, argv);
  std::string base = std::filesystem::temp_directory_path().string();
  int rounds = smoke ? 1 : 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--dir") == 0) {
      base = argv[i + 1];
    } else if (std::strcmp(argv[i], "--rounds") == 0) {
      rounds = std::atoi(argv[i + 1]);
    } else {
      Die(std::string("unknown flag ") + argv[i]);
    }
  }
  const int num_vars = smoke ? 4 : 100;
  const int64_t floats = smoke ? 1024 : 256 * 1024;
  std::vector<Tensor> vars, out;
  for (int v = 0; v < num_vars; ++v) {
    Tensor t = Tensor::Uninitialized(DType::kFloat32, {floats});
    float* p = t.mutable_flat<float>().value().data();
    for (int64_t i = 0; i < floats; ++i) p[i] = float((v * 131 + i) % 977);
    vars.push_back(std::move(t));
    out.push_back(Tensor(DType::kFloat32, {floats}));
  }
  const std::string dir =
      base + "/inflow_bench_checkpoint_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const Figures synced = Run(dir, vars, out, rounds, true);
  const Figures unsynced = Run(dir, vars, out, rounds, false);
  std::filesystem::remove_all(dir);

  const double mib = double(num_vars) * double(floats) * 4 / (1 << 20);
  auto ratio = [](double plain, double ours) { return plain / ours; };
  std::printf("%d variables of %lld floats (%.1f MiB) in %s, %d rounds\n",
              num_vars, static_cast<long long>(floats), mib, base.c_str(),
              rounds);
  for (const auto& [name, f] :
       {std::pair{"synced", synced}, std::pair{"unsynced", unsynced}}) {
    std::printf(
        "%-8s save: plain %.3fs bundle %.3fs | restore: plain %.3fs bundle "
        "%.3fs\n",
        name, f.plain_save, f.bundle_save, f.plain_restore, f.bundle_restore);
  }
  std::printf(
      "{\"bench\": \"checkpoint\", \"save_ratio\": %.3f, \"restore_ratio\": "
      "%.3f, \"synced\": {\"save_ratio\": %.3f, \"restore_ratio\": %.3f}, "
      "\"unsynced\": {\"save_ratio\": %.3f, \"restore_ratio\": %.3f}, "
      "\"bundle_mib_per_s\": {\"synced_save\": %.1f, \"unsynced_save\": %.1f, "
      "\"restore\": %.1f}, \"plain_mib_per_s\": {\"synced_save\": %.1f, "
      "\"unsynced_save\": %.1f, \"restore\": %.1f}, \"kernels\": %s}\n",
      ratio(synced.plain_save, synced.bundle_save),
      ratio(synced.plain_restore, synced.bundle_restore),
      ratio(synced.plain_save, synced.bundle_save),
      ratio(synced.plain_restore, synced.bundle_restore),
      ratio(unsynced.plain_save, unsynced.bundle_save),
      ratio(unsynced.plain_restore, unsynced.bundle_restore),
      mib / synced.bundle_save, mib / unsynced.bundle_save,
      mib / unsynced.bundle_restore, mib / synced.plain_save,
      mib / unsynced.plain_save, mib / unsynced.plain_restore,
      bench::KernelsJson({{"crc32c", crc32c::internal::KernelName(
                                         crc32c::internal::SelectedKernel())}})
          .c_str());
  return 0;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) { return inflow::Main(argc, argv); }
