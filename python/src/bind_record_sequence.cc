// Copyright 2026 The inflow Authors.
//
// BindRecordSequence: the native object under TFRecordSequence
// (python/inflow/_record_sequence.py checks its arguments): the C++
// RecordSequence, whose Get reads and parses a batch with the GIL
// released, so that thread workers calling it run in parallel. A batch
// comes back as NumPy arrays over the parsed tensors' buffers (no copy).

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/input/record_sequence.h"

#include "bindings.h"
#include "example_specs.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

Result<RecordIndexMode> IndexModeFromName(const std::string& name) {
  if (name == "read") return RecordIndexMode::kRead;
  if (name == "write") return RecordIndexMode::kReadWrite;
  if (name == "require") return RecordIndexMode::kRequire;
  if (name == "memory") return RecordIndexMode::kInMemory;
  return InvalidArgumentError(
      "index must be \"read\", \"write\", \"require\" or \"memory\", got \"" +
      name + "\"");
}

struct PyRecordSequence {
  std::unique_ptr<RecordSequence> seq;

  nb::list Get(int64_t i) {
    Result<Tuple> batch = [&] {
      nb::gil_scoped_release release;
      return seq->Get(i, CallOptions());
    }();
    return TupleToPython(ValueOrThrow(std::move(batch)));
  }
};

}  // namespace

void BindRecordSequence(nb::module_& m) {
  nb::class_<PyRecordSequence>(m, "_RecordSequence")
      .def("__len__", [](const PyRecordSequence& s) { return s.seq->size(); })
      .def("get", &PyRecordSequence::Get, nb::arg("i"))
      .def("on_epoch_end",
           [](PyRecordSequence& s) {
             nb::gil_scoped_release release;
             s.seq->OnEpochEnd();
           })
      .def("batch_positions",
           [](const PyRecordSequence& s, int64_t i) {
             return s.seq->BatchPositions(i);
           })
      .def_prop_ro(
          "num_records",
          [](const PyRecordSequence& s) { return s.seq->num_records(); })
      .def_prop_ro("epoch",
                   [](const PyRecordSequence& s) { return s.seq->epoch(); })
      .def_prop_ro("names",
                   [](const PyRecordSequence& s) { return s.seq->names(); })
      .def_prop_ro("sparse",
                   [](const PyRecordSequence& s) { return s.seq->sparse(); })
      .def_prop_ro("files",
                   [](const PyRecordSequence& s) { return s.seq->files(); });
  m.def(
      "_record_sequence",
      [](std::vector<std::string> files, int64_t batch_size,
         nb::handle features, bool shuffle, std::optional<int64_t> seed,
         bool drop_remainder, const std::string& index) {
        RecordSequenceOptions o;
        o.files = std::move(files);
        o.batch_size = batch_size;
        if (!features.is_none()) o.features = SpecsFromPython(features);
        o.shuffle = shuffle;
        o.seed = seed;
        o.drop_remainder = drop_remainder;
        o.index_mode = ValueOrThrow(IndexModeFromName(index));
        // Indexing the files reads them: without the GIL.
        Result<std::unique_ptr<RecordSequence>> seq = [&] {
          nb::gil_scoped_release release;
          return RecordSequence::Create(std::move(o));
        }();
        auto out = std::make_unique<PyRecordSequence>();
        out->seq = ValueOrThrow(std::move(seq));
        return out;
      },
      nb::arg("files"), nb::arg("batch_size"), nb::arg("features").none(),
      nb::arg("shuffle"), nb::arg("seed").none(), nb::arg("drop_remainder"),
      nb::arg("index"));
}

}  // namespace inflow::py
