"""Data-parallel training across processes under ``mpirun``
(docs/distributed.md).

Each process started by ``mpirun -np N python train.py`` is one rank;
``rank()`` and ``size()`` say which of how many. ``shard`` gives a rank its
part of the input, and ``allreduce`` averages (or sums) an array across
the ranks in place, so a NumPy or PyTorch (CPU) training loop can average
its own gradients::

    import inflow
    from inflow import distributed as dist

    files = dist.shard(sorted(glob.glob("data/train-*.tfrecord")))
    ds = inflow.data.TFRecordDataset(files).shuffle(10000, seed=1) ...
    for batch in ds:
        grads = compute_gradients(params, batch)  # one float32 array
        dist.allreduce(grads)                     # the ranks' mean
        params -= lr * grads

MPI starts on the first call of any of these (without mpirun the job is
this process alone: rank 0 of 1) and stops when the process exits. A rank
on this host that dies while the others wait in ``allreduce`` is found
within a tenth of a second: the waiting ranks exit with an error naming
it, instead of hanging.
"""

__all__ = ["rank", "size", "shard", "allreduce", "broadcast", "barrier",
           "launched_by_mpi"]

import importlib
import os

from inflow import _inflow

_mpi = None


def _module():
    """inflow._inflow_mpi, the module that links Open MPI's library,
    imported on first use (``import inflow`` does not need Open MPI)."""
    global _mpi
    if _mpi is None:
        try:
            _mpi = importlib.import_module("inflow._inflow_mpi")
        except ImportError as e:
            raise ImportError(
                f"inflow.distributed needs Open MPI's library (libmpi), which "
                f"could not be loaded: {e}. On Debian: apt-get install "
                f"openmpi-bin libopenmpi3") from e
    return _mpi


def _call(name, *args):
    """The MPI module's function `name`, its errors raised as inflow's."""
    mpi = _module()
    try:
        return getattr(mpi, name)(*args)
    except mpi.StatusError as e:
        code, message = e.args
        _inflow._raise_status(code, message)


def rank():
    """This process's rank, 0 to size() - 1."""
    return _call("rank")


def size():
    """The number of ranks in the job (1 without mpirun)."""
    return _call("size")


# What an MPI launcher sets in each rank's environment (the C++
# LaunchedByMpi checks the same names).
_LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")


def launched_by_mpi():
    """True when mpirun (or another MPI launcher) started this process.
    Does not start MPI, and needs no MPI library: without one it reads the
    launcher's environment variables itself (a script can so choose
    between one process and a distributed run on any machine)."""
    try:
        _module()
    except ImportError:
        return any(name in os.environ for name in _LAUNCHER_VARIABLES)
    return _call("launched_by_mpi")


def shard(files_or_dataset):
    """This rank's part of the input, so that the ranks together read every
    record once.

    A list of file names: the files whose position i (in the order given:
    sort them first, the same way on every rank) has i % size() == rank().
    ValueError when there are fewer files than ranks (shard the records of
    a Dataset instead). An ``inflow.data.Dataset``: its elements i with
    i % size() == rank() (``dataset.shard(size(), rank())``; a
    TFRecordDataset read with ``index=True`` reads only those records).
    """
    n, r = size(), rank()
    if hasattr(files_or_dataset, "shard") and not isinstance(files_or_dataset,
                                                            (list, tuple)):
        return files_or_dataset.shard(n, r)
    files = list(files_or_dataset)
    if len(files) < n:
        raise ValueError(
            f"shard: {len(files)} files for {n} ranks: every rank needs one; "
            f"shard a Dataset's records instead (shard(dataset))")
    return files[r::n]


def _writable_buffer(array):
    """``array``, or the NumPy view sharing a PyTorch tensor's memory."""
    if type(array).__module__.startswith("torch"):
        return array.detach().numpy()
    return array


def allreduce(array, average=True):
    """Replaces ``array`` (a writable C-contiguous float32 or float64 NumPy
    array, or a CPU PyTorch tensor) with the element-wise mean over the
    ranks (the sum with ``average=False``), in place, and returns it. Every
    rank calls it with an array of the same size, in the same order.
    """
    _call("allreduce", _writable_buffer(array), bool(average))
    return array


def broadcast(array, root=0):
    """Replaces ``array`` (a writable C-contiguous NumPy array of any dtype,
    or a CPU PyTorch tensor) with rank ``root``'s, in place, and returns
    it: the same starting parameters on every rank. Every rank calls it
    with an array of the same size and dtype.
    """
    n = size()
    if not 0 <= int(root) < n:
        raise ValueError(f"broadcast: root {root} is not a rank of {n}")
    _call("broadcast", _writable_buffer(array), int(root))
    return array


def barrier():
    """Returns once every rank has called it."""
    _call("barrier")
