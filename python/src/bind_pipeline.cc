// Copyright 2026 The inflow Authors.
//
// BindPipeline: the native object under inflow.Pipeline
// (python/inflow/_pipeline.py checks its arguments): the C++ Pipeline,
// whose threads read, parse, map and batch without the GIL; a Python
// map_fn takes it for its call.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/input/pipeline.h"
#include "inflow/pipedef/pipeline_def.h"

#include "bindings.h"
#include "example_specs.h"
#include "py_blocking.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_ops.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

// The Pipeline, owning its threads; Next() releases the GIL.
struct PyPipeline {
  // Stopping the threads may wait for a map_fn that needs the GIL.
  ~PyPipeline() {
    nb::gil_scoped_release release;
    pipeline.reset();
  }

  std::shared_ptr<Pipeline> pipeline;

  // The wait goes in slices of kSlice on the calling thread (a timed-out
  // Next loses nothing), with the signals checked between them: no hand-off
  // to CallBlocking's helper thread for each batch that has to wait.
  nb::list Next(nb::handle timeout) {
    constexpr std::chrono::milliseconds kSlice(50);
    const std::optional<std::chrono::milliseconds> total =
        TimeoutFromPython(timeout);
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      CallOptions options;
      options.timeout = kSlice;
      if (total) {
        const auto left =
            *total - std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start);
        options.timeout =
            std::clamp(left, std::chrono::milliseconds(0), kSlice);
      }
      Result<Tuple> batch = [&] {
        nb::gil_scoped_release release;
        return pipeline->Next(options);
      }();
      if (batch.ok() ||
          batch.status().code() != StatusCode::kDeadlineExceeded) {
        return TupleToPython(ValueOrThrow(std::move(batch)));
      }
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      if (total && std::chrono::steady_clock::now() - start >= *total) {
        ThrowStatus(batch.status());
      }
    }
  }

  void Close() {
    Status s = [&] {
      nb::gil_scoped_release release;
      return pipeline->Close();
    }();
    // OUT_OF_RANGE is the clean end, not an error of Close.
    if (s.code() != StatusCode::kOutOfRange) ThrowIfError(s);
  }
};

// Python map functions for the Pipeline: fn(dict of row arrays) -> dict
// (or list) of arrays with the declared signature.
MapFunction MakeMapFunction(nb::handle fn, std::vector<std::string> in_names,
                            std::vector<DType> dtypes,
                            std::vector<PartialShape> shapes,
                            std::vector<std::string> names) {
  MapFunction map;
  map.dtypes = dtypes;
  map.row_shapes = shapes;
  map.names = names;
  map.fn = [func = ShareObject(fn), in_names = std::move(in_names),
            dtypes = std::move(dtypes),
            names = std::move(names)](Tuple rows) -> Result<Tuple> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("map_fn: the Python interpreter is exiting");
    }
    Result<Tuple> out = [&]() -> Result<Tuple> {
      try {
        nb::dict arg;
        for (size_t i = 0; i < rows.size() && i < in_names.size(); ++i) {
          arg[in_names[i].c_str()] = TensorToNumpy(rows[i]);
        }
        nb::object result = (*func)(arg);
        Tuple out;
        for (size_t i = 0; i < dtypes.size(); ++i) {
          nb::object v = nb::isinstance<nb::dict>(result)
                             ? nb::object(result[names[i].c_str()])
                             : nb::object(result[i]);
          out.push_back(TensorFromPython(v, dtypes[i]));
        }
        return out;
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "map_fn");
      } catch (const std::exception& e) {
        return UnknownError(std::string("map_fn: ") + e.what());
      }
    }();
    ReleaseGil(state);
    return out;
  };
  return map;
}

}  // namespace

void BindPipeline(nb::module_& m) {
  // A Pipeline definition's file (pipedef/pipeline_def.h), built and
  // started under the scope `name`.
  m.def("_pipeline_from_definition",
        [](const std::string& path, const std::string& name) {
          Result<std::shared_ptr<Pipeline>> p =
              [&]() -> Result<std::shared_ptr<Pipeline>> {
            nb::gil_scoped_release release;
            INFLOW_ASSIGN_OR_RETURN(pipedef::PipelineDef def,
                                    pipedef::ReadPipelineDef(path));
            return pipedef::BuildPipeline(def, {.name = name});
          }();
          auto out = std::make_shared<PyPipeline>();
          out->pipeline = ValueOrThrow(std::move(p));
          return out;
        });
  nb::class_<PyPipeline>(m, "_Pipeline")
      .def("next", &PyPipeline::Next, nb::arg("timeout").none() = nb::none())
      .def("close", &PyPipeline::Close)
      .def_prop_ro("names",
                   [](const PyPipeline& p) { return p.pipeline->names(); })
      .def_prop_ro("sparse",
                   [](const PyPipeline& p) {
                     std::vector<bool> sparse = p.pipeline->sparse();
                     sparse.resize(p.pipeline->names().size(), false);
                     return sparse;
                   })
      .def_prop_ro("files",
                   [](const PyPipeline& p) { return p.pipeline->files(); })
      .def_prop_ro("fill_metric_tag", [](const PyPipeline& p) {
        return p.pipeline->fill_metric_tag();
      });
  m.def(
      "_pipeline",
      [](std::vector<std::string> files, nb::handle features,
         std::optional<int64_t> num_epochs, bool shuffle,
         std::optional<int64_t> seed, const std::string& reader,
         const std::string& compression_type, int64_t skip_header_lines,
         int64_t record_bytes, int64_t header_bytes, int64_t footer_bytes,
         int64_t hop_bytes, int num_readers, int64_t read_batch,
         int64_t batch_size, bool shuffle_batch, int64_t min_after_dequeue,
         int64_t capacity, bool allow_smaller_final_batch,
         std::vector<std::pair<std::string, std::pair<int64_t, float>>>
             raw_to_float,
         bool include_key, nb::handle map_fn, nb::handle map_spec,
         const std::string& name, int nice) {
        PipelineOptions o;
        o.files = std::move(files);
        o.num_epochs = num_epochs;
        o.shuffle_files = shuffle;
        if (reader == "tfrecord") {
          o.format = RecordFormat::kTFRecord;
        } else if (reader == "text") {
          o.format = RecordFormat::kTextLine;
        } else if (reader == "fixed") {
          o.format = RecordFormat::kFixedLength;
        } else {
          ThrowStatus(InvalidArgumentError(
              "reader must be \"tfrecord\", \"text\" or \"fixed\", got \"" +
              reader + "\""));
        }
        o.compression_type = compression_type;
        o.skip_header_lines = skip_header_lines;
        o.fixed_length.record_bytes = record_bytes;
        o.fixed_length.header_bytes = header_bytes;
        o.fixed_length.footer_bytes = footer_bytes;
        o.fixed_length.hop_bytes = hop_bytes;
        o.fixed_length.encoding = compression_type;
        if (!features.is_none()) o.features = SpecsFromPython(features);
        for (auto& [feature, spec] : raw_to_float) {
          o.raw_to_float.push_back({feature, spec.first, spec.second});
        }
        o.include_key = include_key;
        if (nb::isinstance<NativePipelineMap>(map_fn)) {
          // A custom op's (bind_ops.cc): its own signature, no GIL.
          o.map = nb::cast<const NativePipelineMap&>(map_fn).map;
        } else if (!map_fn.is_none()) {
          // map_spec: (input names, dtypes, row shapes, output names).
          nb::tuple spec = nb::cast<nb::tuple>(map_spec);
          std::vector<DType> ds;
          for (nb::handle d : spec[1]) ds.push_back(DTypeFromPython(d));
          std::vector<PartialShape> ss;
          for (nb::handle s : spec[2]) ss.push_back(PartialShapeFromPython(s));
          o.map = MakeMapFunction(map_fn,
                                  nb::cast<std::vector<std::string>>(spec[0]),
                                  std::move(ds), std::move(ss),
                                  nb::cast<std::vector<std::string>>(spec[3]));
        }
        o.num_readers = num_readers;
        o.read_batch = read_batch;
        o.batching.batch_size = batch_size;
        o.batching.shuffle = shuffle_batch;
        o.batching.min_after_dequeue = min_after_dequeue;
        o.batching.capacity = capacity;
        o.batching.seed = seed;
        o.batching.allow_smaller_final_batch = allow_smaller_final_batch;
        o.batching.nice = nice;
        o.name = name;
        Result<std::shared_ptr<Pipeline>> p = [&] {
          nb::gil_scoped_release release;
          return Pipeline::Create(std::move(o));
        }();
        auto out = std::make_shared<PyPipeline>();
        out->pipeline = ValueOrThrow(std::move(p));
        return out;
      },
      nb::arg("files"), nb::arg("features").none(),
      nb::arg("num_epochs").none(), nb::arg("shuffle"), nb::arg("seed").none(),
      nb::arg("reader"), nb::arg("compression_type"),
      nb::arg("skip_header_lines"), nb::arg("record_bytes"),
      nb::arg("header_bytes"), nb::arg("footer_bytes"), nb::arg("hop_bytes"),
      nb::arg("num_readers"), nb::arg("read_batch"), nb::arg("batch_size"),
      nb::arg("shuffle_batch"), nb::arg("min_after_dequeue"),
      nb::arg("capacity"), nb::arg("allow_smaller_final_batch"),
      nb::arg("raw_to_float"), nb::arg("include_key"), nb::arg("map_fn").none(),
      nb::arg("map_spec").none(), nb::arg("name"), nb::arg("nice"));
}

}  // namespace inflow::py
