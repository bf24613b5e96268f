// Copyright 2026 The inflow Authors.

#include "pipeline_data.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "inflow/example/example.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"

namespace inflow::bench {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "bench_pipeline: %s\n", message.c_str());
  std::exit(1);
}

// The decompressed contents of the gzip file at `path`.
std::vector<uint8_t> Gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    Die(path + ": cannot open (install-deps installs dataset-fashion-mnist)");
  }
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof(buf))) > 0) {
    out.insert(out.end(), buf, buf + got);
  }
  gzclose(f);
  if (got < 0) Die(path + ": not a valid gzip file");
  return out;
}

uint32_t BigEndian32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 |
         uint32_t{b[at + 2]} << 8 | uint32_t{b[at + 3]};
}

// The payload of an idx file of `rank` dimensions, whose first dimension
// it returns in *count.
std::vector<uint8_t> IdxPayload(const std::string& path, int rank,
                                size_t* count) {
  std::vector<uint8_t> bytes = Gunzip(path);
  const size_t header = 4 + 4 * static_cast<size_t>(rank);
  // Magic: 0, 0, type 0x08 (unsigned byte), rank.
  if (bytes.size() < header || BigEndian32(bytes, 0) != 0x0800u + rank) {
    Die(path + ": not an idx file of unsigned bytes of rank " +
        std::to_string(rank));
  }
  *count = BigEndian32(bytes, 4);
  size_t elements = *count;
  for (int d = 1; d < rank; ++d) elements *= BigEndian32(bytes, 4 + 4 * d);
  if (bytes.size() != header + elements) Die(path + ": truncated");
  return {bytes.begin() + static_cast<ptrdiff_t>(header), bytes.end()};
}

}  // namespace

Images LoadFashionMnist(const std::string& dir, size_t limit) {
  Images images;
  size_t n_images, n_labels;
  images.pixels = IdxPayload(dir + "/train-images-idx3-ubyte.gz", 3, &n_images);
  images.labels = IdxPayload(dir + "/train-labels-idx1-ubyte.gz", 1, &n_labels);
  if (n_images != n_labels || images.pixels.size() != n_images * kImageBytes) {
    Die(dir + ": images and labels do not match");
  }
  if (limit > 0 && limit < n_images) {
    images.pixels.resize(limit * kImageBytes);
    images.labels.resize(limit);
  }
  return images;
}

Shards::Shards(const Images& images, int num_shards) {
  const char* tmp = std::getenv("TMPDIR");
  dir_ = (std::filesystem::path(tmp ? tmp : "/tmp") /
          ("inflow_bench_pipeline_" + std::to_string(::getpid())))
             .string();
  std::filesystem::create_directories(dir_);
  std::vector<std::unique_ptr<RecordWriter>> writers;
  for (int s = 0; s < num_shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof(name), "/train-%05d-of-%05d.tfrecord", s,
                  num_shards);
    paths_.push_back(dir_ + name);
    auto writer = RecordWriter::Create(Env::Default(), paths_.back());
    if (!writer.ok()) Die(writer.status().ToString());
    writers.push_back(std::move(*writer));
  }
  counts_.assign(static_cast<size_t>(num_shards), 0);
  for (size_t i = 0; i < images.count(); ++i) {
    const char* pixels =
        reinterpret_cast<const char*>(images.pixels.data()) + i * kImageBytes;
    const std::string record =
        Example()
            .Set("image_raw",
                 Feature::Bytes({std::string(pixels, kImageBytes)}))
            .Set("label", Feature::Int64s({images.labels[i]}))
            .Set("height", Feature::Int64s({28}))
            .Set("width", Feature::Int64s({28}))
            .Set("depth", Feature::Int64s({1}))
            .Serialize();
    const size_t s = i % static_cast<size_t>(num_shards);
    if (Status st = writers[s]->WriteRecord(record); !st.ok()) {
      Die(st.ToString());
    }
    ++counts_[s];
  }
  for (auto& writer : writers) {
    if (Status st = writer->Close(); !st.ok()) Die(st.ToString());
  }
}

Shards::~Shards() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

size_t Shards::total() const {
  size_t n = 0;
  for (size_t c : counts_) n += c;
  return n;
}

uint64_t Shards::bytes() const {
  uint64_t n = 0;
  for (const std::string& path : paths_) n += std::filesystem::file_size(path);
  return n;
}

}  // namespace inflow::bench
