// Copyright 2026 The inflow Authors.
//
// Fuzz target for the bundle's own parsing: the first byte picks what the
// rest is.
//
//   0  a BundleEntryProto      1  a BundleHeaderProto
//   2  a string tensor's stored bytes (the next byte: element count)
//   3  a whole bundle: u32le index length, the index, then the data file
//
// Anything may be rejected; nothing may crash, read out of bounds or
// allocate more than the input allows. What decodes must be consistent:
// an entry or header re-encodes to bytes that decode to the same fields,
// a string tensor's computed CRC matches its re-encoding, and every
// tensor a bundle reads is re-read the same by ReadInto.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_proto.h"
#include "checkpoint/tensor_bytes.h"

namespace {

using namespace inflow;            // NOLINT: a test driver
using namespace inflow::internal;  // NOLINT

void Check(bool ok) {
  if (!ok) std::abort();
}

void Entry(std::string_view bytes) {
  StoredEntry e;
  if (!DecodeBundleEntry(bytes, &e).ok()) return;
  StoredEntry back;
  Check(DecodeBundleEntry(EncodeBundleEntry(e), &back).ok());
  Check(back.dtype_enum == e.dtype_enum && back.entry.shape == e.entry.shape &&
        back.entry.shard_id == e.entry.shard_id &&
        back.entry.offset == e.entry.offset &&
        back.entry.size == e.entry.size &&
        back.entry.masked_crc32c == e.entry.masked_crc32c &&
        back.slices == e.slices);
}

void Header(std::string_view bytes) {
  BundleHeader h;
  if (!DecodeBundleHeader(bytes, &h).ok()) return;
  BundleHeader back;
  Check(DecodeBundleHeader(EncodeBundleHeader(h), &back).ok());
  Check(back.num_shards == h.num_shards && back.endianness == h.endianness &&
        back.producer == h.producer && back.min_consumer == h.min_consumer &&
        back.bad_consumers == h.bad_consumers);
  CheckBundleVersion(h).IgnoreError();
}

void Strings(std::string_view bytes) {
  if (bytes.empty()) return;
  const int64_t n = static_cast<uint8_t>(bytes[0]);
  Tensor out(DType::kString, {n});
  uint32_t crc = 0;
  if (!DecodeStringTensor(bytes.substr(1), &out, &crc).ok()) return;
  uint32_t again = 0;
  Check(EncodeStringTensor(out, &again) == bytes.substr(1) && again == crc);
}

void Bundle(std::string_view bytes) {
  if (bytes.size() < 4) return;
  uint32_t index_size = 0;
  for (int i = 0; i < 4; ++i) {
    index_size |= uint32_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  }
  bytes.remove_prefix(4);
  if (index_size > bytes.size()) return;
  MemEnv env;
  Check(WriteStringToFile(env, "f/m.index", bytes.substr(0, index_size)).ok());
  Check(WriteStringToFile(env, "f/m.data-00000-of-00001",
                          bytes.substr(index_size))
            .ok());
  Result<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open("f/m", &env);
  if (!reader.ok()) return;
  for (const BundleEntry& e : (*reader)->entries()) {
    Check((*reader)->Lookup(e.name).ok());
    Result<Tensor> t = (*reader)->Read(e.name);
    if (!t.ok()) continue;
    Tensor again(t->dtype(), t->shape());
    Check((*reader)->ReadInto(e.name, &again).ok() && again == *t);
  }
  (*reader)->Verify().IgnoreError();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  switch (data[0] % 4) {
    case 0:
      Entry(bytes);
      break;
    case 1:
      Header(bytes);
      break;
    case 2:
      Strings(bytes);
      break;
    case 3:
      Bundle(bytes);
      break;
  }
  return 0;
}
