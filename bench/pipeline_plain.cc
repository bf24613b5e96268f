// Copyright 2026 The inflow Authors.

#include "pipeline_plain.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>
#include <thread>

#include "inflow/io/crc32c.h"

#include "core/convert_kernels.h"
#include "pipeline_data.h"

namespace inflow::bench {
namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "bench_pipeline: plain loop: %s\n", what);
  std::abort();
}

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A protobuf varint at *p (before end); advances *p.
uint64_t Varint(const char** p, const char* end) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(*(*p)++);
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
  Die("bad varint");
}

// The length-delimited field at *p whose tag was just read; advances *p.
std::string_view Bytes(const char** p, const char* end) {
  const uint64_t n = Varint(p, end);
  if (n > static_cast<uint64_t>(end - *p)) Die("field past the end");
  std::string_view v(*p, n);
  *p += n;
  return v;
}

// The first field `number` (length-delimited) of message `m`.
std::string_view Field(std::string_view m, uint32_t number) {
  const char* p = m.data();
  const char* end = p + m.size();
  while (p < end) {
    const uint64_t tag = Varint(&p, end);
    if ((tag & 7) != 2) Die("unexpected wire type");
    std::string_view v = Bytes(&p, end);
    if (tag >> 3 == number) return v;
  }
  return {};
}

// image_raw's bytes and label's value from a serialized Example.
void WalkExample(std::string_view example, std::string_view* image,
                 int64_t* label) {
  const std::string_view features = Field(example, 1);
  const char* p = features.data();
  const char* end = p + features.size();
  bool have_image = false, have_label = false;
  while (p < end) {
    if (Varint(&p, end) != (1 << 3 | 2)) Die("bad Features");
    const std::string_view entry = Bytes(&p, end);
    const std::string_view key = Field(entry, 1);
    if (key == "image_raw") {
      // Feature.bytes_list (1) -> BytesList.value (1).
      *image = Field(Field(Field(entry, 2), 1), 1);
      have_image = true;
    } else if (key == "label") {
      // Feature.int64_list (3) -> Int64List.value (1), packed.
      const std::string_view list = Field(Field(entry, 2), 3);
      const char* q = list.data();
      if (Varint(&q, list.data() + list.size()) != (1 << 3 | 2)) {
        Die("label not packed");
      }
      const std::string_view packed = Bytes(&q, list.data() + list.size());
      const char* r = packed.data();
      *label = static_cast<int64_t>(Varint(&r, r + packed.size()));
      have_label = true;
    }
  }
  if (!have_image || !have_label || image->size() != kImageBytes) {
    Die("Example without image_raw or label");
  }
}

// One thread's shuffle buffer and the batch being assembled.
class Shuffler {
 public:
  explicit Shuffler(uint64_t seed)
      : rng_(seed),
        images_(static_cast<size_t>(kMinAfterDequeue + 1) * kImageBytes),
        labels_(kMinAfterDequeue + 1),
        batch_images_(static_cast<size_t>(kBatchSize) * kImageBytes),
        batch_labels_(kBatchSize) {}

  // Converts the pixels into a free slot, evicting a random sample into
  // the batch once the buffer is full.
  void Add(const uint8_t* pixels, int64_t label) {
    size_t slot = held_;
    if (held_ == labels_.size()) {
      slot = Pick(held_);
      Emit(slot);
    } else {
      ++held_;
    }
    internal::Uint8ToFloatScaled(pixels, kImageBytes, 1.0f / 255,
                                 &images_[slot * kImageBytes]);
    labels_[slot] = label;
  }

  // The end of input: drains the buffer in random order.
  void Finish() {
    while (held_ > 0) {
      const size_t slot = Pick(held_);
      Emit(slot);
      --held_;
      if (slot != held_) {
        std::memcpy(&images_[slot * kImageBytes], &images_[held_ * kImageBytes],
                    kImageBytes * sizeof(float));
        labels_[slot] = labels_[held_];
      }
    }
  }

  LoopResult result() const { return result_; }

 private:
  size_t Pick(size_t n) { return static_cast<size_t>(rng_() % n); }

  void Emit(size_t slot) {
    std::memcpy(&batch_images_[in_batch_ * kImageBytes],
                &images_[slot * kImageBytes], kImageBytes * sizeof(float));
    batch_labels_[in_batch_] = labels_[slot];
    if (++in_batch_ == kBatchSize) {
      result_.checksum +=
          ConsumeBatch(batch_images_.data(), batch_labels_.data(), kBatchSize);
      result_.samples += kBatchSize;
      in_batch_ = 0;
    }
  }

  std::minstd_rand rng_;
  std::vector<float> images_;
  std::vector<int64_t> labels_;
  size_t held_ = 0;
  std::vector<float> batch_images_;
  std::vector<int64_t> batch_labels_;
  int in_batch_ = 0;
  LoopResult result_;
};

constexpr size_t kChunk = 256 << 10;

// Reads the records of `path` in chunks, checking both CRCs of each.
void ReadShard(const std::string& path, std::vector<char>* buf,
               Shuffler* shuffler) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) Die("cannot open a shard");
  size_t have = 0;  // bytes in *buf, from its start
  size_t pos = 0;   // the next record's header
  bool eof = false;
  while (true) {
    if (have - pos < 12 || have - pos < 16 + Load64(buf->data() + pos)) {
      if (eof) break;
      // Keep the partial record; read more behind it.
      std::memmove(buf->data(), buf->data() + pos, have - pos);
      have -= pos;
      pos = 0;
      if (have >= 12 && 16 + Load64(buf->data()) > buf->size()) {
        buf->resize(16 + Load64(buf->data()) + kChunk);
      }
      const ssize_t got = ::read(fd, buf->data() + have, buf->size() - have);
      if (got < 0) Die("read failed");
      if (got == 0) eof = true;
      have += static_cast<size_t>(got);
      continue;
    }
    const char* header = buf->data() + pos;
    const uint64_t length = Load64(header);
    if (crc32c::Mask(crc32c::Value(header, 8)) != Load32(header + 8)) {
      Die("bad length CRC");
    }
    const char* data = header + 12;
    if (crc32c::Mask(crc32c::Value(data, length)) != Load32(data + length)) {
      Die("bad data CRC");
    }
    std::string_view image;
    int64_t label = 0;
    WalkExample(std::string_view(data, length), &image, &label);
    shuffler->Add(reinterpret_cast<const uint8_t*>(image.data()), label);
    pos += 16 + length;
  }
  ::close(fd);
  if (have != pos) Die("truncated shard");
}

LoopResult RunOneLoop(const std::vector<std::string>& paths, int num_epochs,
                      int thread, int num_threads) {
  Shuffler shuffler(87654321 + thread);
  std::vector<char> buf(kChunk);
  for (int epoch = 0; epoch < num_epochs; ++epoch) {
    for (size_t i = thread; i < paths.size(); i += num_threads) {
      ReadShard(paths[i], &buf, &shuffler);
    }
  }
  shuffler.Finish();
  return shuffler.result();
}

}  // namespace

double ConsumeBatch(const float* images, const int64_t* labels, size_t n) {
  // Sixteen partial sums, which the compiler keeps in vector registers.
  float acc[16] = {};
  const size_t count = n * kImageBytes;  // a multiple of 16
  for (size_t i = 0; i < count; i += 16) {
    for (int k = 0; k < 16; ++k) acc[k] += images[i + k];
  }
  double sum = 0;
  for (float a : acc) sum += a;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(labels[i]);
  return sum;
}

LoopResult RunPlainLoops(const std::vector<std::string>& paths, int num_epochs,
                         int num_threads) {
  std::vector<LoopResult> results(static_cast<size_t>(num_threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back(
        [&, t] { results[t] = RunOneLoop(paths, num_epochs, t, num_threads); });
  }
  for (std::thread& t : threads) t.join();
  LoopResult total;
  for (const LoopResult& r : results) {
    total.samples += r.samples;
    total.checksum += r.checksum;
  }
  return total;
}

}  // namespace inflow::bench
