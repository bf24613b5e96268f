// Copyright 2026 The inflow Authors.
//
// inflow.distributed (python/inflow/distributed.py): the job's ranks over
// Open MPI (distributed/mpi.h), made on first use and kept for the life
// of the process, and an in-place allreduce of any writable C-contiguous
// float32 or float64 buffer (a NumPy array, a CPU PyTorch tensor's
// .numpy() view), the GIL released while it waits for the other ranks.

#include <Python.h>
#include <nanobind/nanobind.h>

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "inflow/distributed/communicator.h"
#include "inflow/distributed/mpi.h"

#include "bindings.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace nb = nanobind;

namespace inflow::py {
namespace {

// The process's world: made once, with the GIL held (so one thread makes
// it); destroyed at exit before MPI is finalised (registered after it).
distributed::Communicator& World() {
  static std::unique_ptr<distributed::Communicator> world;
  if (world == nullptr) {
    Result<std::unique_ptr<distributed::Communicator>> made =
        UnknownError("not made");
    {
      nb::gil_scoped_release release;
      made = distributed::MpiWorld();
    }
    world = ValueOrThrow(std::move(made));
  }
  return *world;
}

// A held buffer, released when done.
class Buffer {
 public:
  explicit Buffer(nb::handle object) {
    if (PyObject_GetBuffer(
            object.ptr(), &view_,
            PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      throw nb::python_error();
    }
  }
  ~Buffer() { PyBuffer_Release(&view_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const Py_buffer& view() const { return view_; }
  std::string format() const {
    return view_.format != nullptr ? view_.format : "B";
  }

 private:
  Py_buffer view_;
};

// The ranks' sum (or mean) of `data`, in place, without the GIL.
template <typename T>
Status SumInPlace(distributed::Communicator& world, const Py_buffer& v,
                  bool average) {
  std::span<T> data(static_cast<T*>(v.buf),
                    static_cast<size_t>(v.len) / sizeof(T));
  nb::gil_scoped_release release;
  INFLOW_RETURN_IF_ERROR(world.AllreduceSum(data));
  if (average) {
    const T scale = static_cast<T>(1.0 / world.size());
    for (T& x : data) x *= scale;
  }
  return OkStatus();
}

void Allreduce(nb::handle array, bool average) {
  distributed::Communicator& world = World();
  Buffer buffer(array);
  const Py_buffer& v = buffer.view();
  world.SetActivity("inflow.distributed.allreduce");
  const std::optional<DType> dtype =
      DTypeFromFormat(buffer.format(), v.itemsize);
  if (dtype == DType::kFloat32) {
    ThrowIfError(SumInPlace<float>(world, v, average));
  } else if (dtype == DType::kFloat64) {
    ThrowIfError(SumInPlace<double>(world, v, average));
  } else {
    ThrowStatus(InvalidArgumentError(
        "allreduce takes a float32 or float64 buffer, got format '" +
        buffer.format() + "'"));
  }
}

// Rank `root`'s bytes of `array` (any writable C-contiguous buffer, the
// same size on every rank) into every rank's.
void Broadcast(nb::handle array, int root) {
  distributed::Communicator& world = World();
  Buffer buffer(array);
  const Py_buffer& v = buffer.view();
  std::span<std::byte> data(static_cast<std::byte*>(v.buf),
                            static_cast<size_t>(v.len));
  world.SetActivity("inflow.distributed.broadcast");
  Status status;
  {
    nb::gil_scoped_release release;
    status = world.Broadcast(data, root);
  }
  ThrowIfError(status);
}

// Every rank waits for all to arrive.
void Barrier() {
  distributed::Communicator& world = World();
  world.SetActivity("inflow.distributed.barrier");
  float token = 0;
  Status status;
  {
    nb::gil_scoped_release release;
    status = world.AllreduceSum(std::span<float>(&token, 1));
  }
  ThrowIfError(status);
}

}  // namespace

void BindDistributed(nb::module_& m) {
  m.def("_distributed_rank", [] { return World().rank(); });
  m.def("_distributed_size", [] { return World().size(); });
  m.def("_distributed_launched_by_mpi", &distributed::LaunchedByMpi);
  m.def("_distributed_allreduce", &Allreduce, nb::arg("array"),
        nb::arg("average"));
  m.def("_distributed_broadcast", &Broadcast, nb::arg("array"),
        nb::arg("root"));
  m.def("_distributed_barrier", &Barrier);
}

}  // namespace inflow::py
