"""inflow's batches as PyTorch tensors, without a copy.

``to_torch(batch)`` turns a batch (a NumPy array, a tuple or list of them,
or a dict of them, as inflow's queues, batchers and Pipeline return them)
into the same structure of torch tensors made with ``torch.from_numpy``:
each tensor shares its array's memory, which stays alive as long as the
tensor does. ``IterableDataset(source)`` is a
``torch.utils.data.IterableDataset`` over an inflow batch source, yielding
``to_torch`` of every batch until the source's end of input.

The batches are made by inflow's own threads, so the DataLoader over the
dataset runs in the main process: ``DataLoader(ds, batch_size=None,
num_workers=0)`` (or iterate the dataset directly). A worker process would
iterate a copy of the source without its threads; the dataset refuses that
with an error.

``SequenceDataset(sequence_or_enqueuer, workers=...)`` is an
IterableDataset over an ``inflow.utils`` enqueuer (an OrderedEnqueuer it
makes over a Sequence, or one given): each iteration is one epoch, the
next ``len(sequence)`` batches of the enqueuer, as tensors over the
batches' memory (shared memory with process workers).
``IterableDataset(enqueuer)`` is the same with the enqueuer's own settings.

Importing this module without PyTorch raises ImportError saying so.
"""

try:
    import torch
    import torch.utils.data
except ImportError as e:
    raise ImportError(
        "inflow.torch needs PyTorch, which cannot be imported here "
        f"({e}). Install it (scripts/install-deps installs Debian's "
        "python3-torch and makes .venv-torch, whose python has both torch "
        "and inflow)") from e

import warnings

import numpy as np

from inflow import errors
from inflow.utils import _stream

__all__ = ["IterableDataset", "SequenceDataset", "to_torch"]

# NumPy dtype kinds with torch counterparts (bool, ints, uints, floats,
# complex); within them torch.from_numpy rejects a few (uint16...).
_NUMERIC_KINDS = "biufc"


def _array_to_torch(array):
    if isinstance(array, np.generic) and array.dtype.kind in _NUMERIC_KINDS:
        # A rank-0 value (inflow gives NumPy scalars for them): a 0-d
        # tensor holding a copy of the one value.
        return torch.from_numpy(np.array(array))
    if not isinstance(array, np.ndarray):
        # Python objects, bytes and other leaves are left alone.
        return array
    if array.dtype.kind not in _NUMERIC_KINDS:
        # Strings (bytes objects) have no torch tensor type.
        return array
    if not array.flags.writeable:
        # A read-only array (a view of a buffer inflow shares) still gives
        # a tensor over the same memory; torch warns that writing to it is
        # undefined, which the caller has been told here instead.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*not writable.*")
            return torch.from_numpy(array)
    try:
        return torch.from_numpy(array)
    except TypeError as e:
        raise TypeError(
            f"inflow.torch.to_torch: a {array.dtype} array has no torch "
            f"dtype ({e})") from e


def to_torch(batch):
    """The batch with every numeric NumPy array replaced by a torch tensor
    over the same memory (``torch.from_numpy``: no copy).

    A dict gives a dict with the same keys, a tuple or list gives a tuple,
    at any depth (a Keras-style ``({"x": x}, y)`` batch too), an array
    gives a tensor; a NumPy scalar (a rank-0 value) gives a 0-d
    tensor (a copy of the one value). String (bytes or object) arrays are
    returned unchanged, as torch has no string tensors. Raises TypeError
    for a numeric dtype torch lacks (e.g. uint16 in torch 1.13).
    """
    if isinstance(batch, dict):
        return {k: to_torch(v) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return tuple(to_torch(v) for v in batch)
    return _array_to_torch(batch)


def _batches(source, args, kwargs):
    """Yields the source's batches until its end of input (OutOfRangeError
    or StopIteration)."""
    if isinstance(source, _stream.EpochStream):
        if args or kwargs:
            raise TypeError("inflow.torch.IterableDataset: arguments are only "
                            "taken with a callable source")
        yield from source.epoch()
        return
    if callable(source) and not hasattr(source, "__iter__"):
        step = lambda: source(*args, **kwargs)  # noqa: E731
    elif args or kwargs:
        raise TypeError("inflow.torch.IterableDataset: arguments are only "
                        "taken with a callable source")
    elif hasattr(source, "__iter__"):
        step = iter(source).__next__
    else:
        step = getattr(source, "next", None) or getattr(source, "dequeue", None)
        if step is None:
            raise TypeError(
                "inflow.torch.IterableDataset: the source must be iterable "
                "(a Pipeline, a Batcher), have next() or dequeue(), or be a "
                f"callable returning a batch (queue.dequeue_many); got "
                f"{type(source).__name__}")
    while True:
        try:
            batch = step()
        except (errors.OutOfRangeError, StopIteration):
            return
        yield batch


class IterableDataset(torch.utils.data.IterableDataset):
    """A ``torch.utils.data.IterableDataset`` over an inflow batch source.

    ``source`` is one of:

    - an iterable of batches: an ``inflow.Pipeline``, a batcher from
      ``inflow.train.batch`` / ``shuffle_batch`` / ``*_join``, any Python
      iterable;
    - an object with ``next()`` or ``dequeue()`` returning a batch;
    - a callable returning a batch, called as ``source(*args, **kwargs)``:
      ``IterableDataset(queue.dequeue_many, 128)``;
    - an ``inflow.utils`` OrderedEnqueuer or GeneratorEnqueuer: each
      iteration is one epoch (the next ``len(sequence)`` batches of its
      ``get()``; a GeneratorEnqueuer's until its generator ends), the
      enqueuer started with ``start()``'s defaults when not running
      (:class:`SequenceDataset` takes ``workers`` and makes the enqueuer).
      An inflow Sequence itself is an iterable: its batches in order, in
      this thread.

    Iterating yields ``to_torch(batch)`` for every batch (dicts stay dicts,
    lists become tuples; tensors share the arrays' memory) and ends when
    the source raises ``inflow.errors.OutOfRangeError`` or StopIteration
    (a closed and drained queue, the last epoch's last batch). Any other
    error propagates. The source is a stream: a second iteration continues
    where the first stopped.

    Use it with ``DataLoader(dataset, batch_size=None, num_workers=0)``:
    the batches are already made by inflow's threads, and a worker process
    would have no copy of them (iterating in a worker raises RuntimeError).
    """

    def __init__(self, source, *args, **kwargs):
        super().__init__()
        if _stream.is_enqueuer(source):
            source = _stream.EpochStream(source, who="inflow.torch.IterableDataset")
        self._source = source
        self._args = args
        self._kwargs = kwargs

    def __iter__(self):
        if torch.utils.data.get_worker_info() is not None:
            raise RuntimeError(
                "inflow.torch.IterableDataset cannot run in a DataLoader "
                "worker process (inflow's threads live in the main process): "
                "use DataLoader(dataset, batch_size=None, num_workers=0)")
        for batch in _batches(self._source, self._args, self._kwargs):
            yield to_torch(batch)


class SequenceDataset(IterableDataset):
    """An :class:`IterableDataset` over an ``inflow.utils`` enqueuer's epochs.

    ``source`` is a Sequence (an ``inflow.utils.Sequence``, a Keras
    PyDataset, any object with ``__len__`` and ``__getitem__``), over which
    an OrderedEnqueuer is made with ``use_multiprocessing``, ``shuffle``,
    ``seed`` and ``start_method``; or an OrderedEnqueuer /
    GeneratorEnqueuer, used as it is. The enqueuer is started on the first
    iteration (with ``workers`` and ``max_queue_size`` unless it is
    already running) and keeps running across iterations: each iteration
    yields the next ``len(sequence)`` batches (one epoch, in the
    enqueuer's order, ``on_epoch_end`` between epochs) as ``to_torch``
    structures over the batches' own memory. ``len()`` is the number of
    batches per epoch. ``close()`` (or leaving ``with``) stops an enqueuer
    started here; dropping the dataset stops one it made.
    """

    def __init__(self, source, *, workers=1, max_queue_size=10, use_multiprocessing=False,
                 shuffle=False, seed=None, start_method=None):
        stream = _stream.EpochStream(
            source, workers=workers, max_queue_size=max_queue_size,
            use_multiprocessing=use_multiprocessing, shuffle=shuffle, seed=seed,
            start_method=start_method, who="inflow.torch.SequenceDataset")
        super().__init__(stream)

    @property
    def enqueuer(self):
        """The enqueuer making the batches."""
        return self._source.enqueuer

    def __len__(self):
        return len(self._source)

    def close(self, timeout=None):
        """Stops the enqueuer when it was started here."""
        self._source.close(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
