// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as an IDX file, an NPY file and an event
// file. Each read must end in a tensor (or events) or an error status that
// names the file, without crashing, hanging or allocating more than the
// input can hold (ASan's allocation limit catches that); a tensor that
// comes back holds exactly the bytes its shape says.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inflow/datafiles/idx.h"
#include "inflow/datafiles/npy.h"
#include "inflow/io/mem_env.h"
#include "inflow/summary/events_reader.h"

namespace {

void Check(const inflow::Result<inflow::Tensor>& t) {
  if (!t.ok()) {
    if (t.status().message().find("/f") == std::string_view::npos) {
      std::abort();
    }
    return;
  }
  // Every element is readable.
  const size_t bytes = static_cast<size_t>(t->shape().num_elements()) *
                       inflow::DTypeSize(t->dtype());
  volatile uint8_t sink = 0;
  const auto* p = static_cast<const uint8_t*>(t->raw_data());
  for (size_t i = 0; i < bytes; ++i) sink = sink ^ p[i];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  MemEnv env;
  const std::string file(reinterpret_cast<const char*>(data), size);
  if (!WriteStringToFile(env, "/f", file).ok()) std::abort();
  if (size > 0 && (data[size - 1] & 1)) env.SetMaxReadChunk(3);
  Check(ReadIdxFile(env, "/f"));
  Check(ReadNpyFile(env, "/f"));
  auto events = EventsReader::ReadAll(env, "/f");
  if (!events.ok() &&
      events.status().message().find("/f") == std::string_view::npos) {
    std::abort();
  }
  return 0;
}
