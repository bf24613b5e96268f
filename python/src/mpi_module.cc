// Copyright 2026 The inflow Authors.
//
// inflow._inflow_mpi, the extension module of inflow.distributed
// (python/inflow/distributed.py): the job's ranks over Open MPI
// (distributed/mpi.h), made on first use and kept for the life of the
// process, and an in-place allreduce of any writable C-contiguous float32
// or float64 buffer (a NumPy array, a CPU PyTorch tensor's .numpy() view),
// the GIL released while it waits for the other ranks. A module of its
// own, the only one that links Open MPI's library, so that `import inflow`
// does not need it. An error is StatusError(code, message), which
// distributed.py raises as the inflow.errors class of the code.

#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "inflow/distributed/communicator.h"
#include "inflow/distributed/mpi.h"

namespace nb = nanobind;

namespace inflow::py {
namespace {

PyObject* g_status_error = nullptr;  // the module's StatusError class

[[noreturn]] void ThrowStatus(const Status& s) {
  nb::object args =
      nb::make_tuple(static_cast<int>(s.code()), std::string(s.message()));
  PyErr_SetObject(g_status_error, args.ptr());
  throw nb::python_error();
}

void ThrowIfError(const Status& s) {
  if (!s.ok()) ThrowStatus(s);
}

template <typename T>
T ValueOrThrow(Result<T> r) {
  if (!r.ok()) ThrowStatus(r.status());
  return *std::move(r);
}

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
  std::string_view format = buffer.format();
  if (!format.empty() &&
      (format[0] == '<' || format[0] == '=' || format[0] == '@')) {
    format.remove_prefix(1);
  }
  if (format == "f" && v.itemsize == 4) {
    ThrowIfError(SumInPlace<float>(world, v, average));
  } else if (format == "d" && v.itemsize == 8) {
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

}  // namespace inflow::py

NB_MODULE(_inflow_mpi, m) {
  using namespace inflow::py;  // NOLINT(build/namespaces)
  g_status_error =
      PyErr_NewException("inflow._inflow_mpi.StatusError", nullptr, nullptr);
  m.attr("StatusError") = nb::handle(g_status_error);
  m.def("rank", [] { return World().rank(); });
  m.def("size", [] { return World().size(); });
  m.def("launched_by_mpi", &inflow::distributed::LaunchedByMpi);
  m.def("allreduce", &Allreduce, nb::arg("array"), nb::arg("average"));
  m.def("broadcast", &Broadcast, nb::arg("array"), nb::arg("root"));
  m.def("barrier", &Barrier);
}
