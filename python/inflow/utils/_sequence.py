"""Sequence, ThreadSafeIterator and threadsafe_generator (Keras's names), and
the duck typing that lets a Keras ``PyDataset`` / ``Sequence`` stand in for
an inflow Sequence."""

import abc
import functools
import operator
import sys
import threading

__all__ = ["Sequence", "ThreadSafeIterator", "threadsafe_generator"]


class Sequence(abc.ABC):
    """A dataset of batches addressed by index (``keras.utils.Sequence``).

    Subclasses define ``__len__`` (the number of batches) and
    ``__getitem__(i)`` (batch ``i`` for ``0 <= i < len(self)``: a NumPy
    array, or a tuple, list or dict of them), and may define
    ``on_epoch_end()``. ``__getitem__`` must be safe to call from several
    threads at once when the Sequence is given to an enqueuer with thread
    workers. Iterating a Sequence yields batches ``0 .. len-1`` in order.
    """

    @abc.abstractmethod
    def __getitem__(self, index):
        """Batch ``index``."""

    @abc.abstractmethod
    def __len__(self):
        """The number of batches."""

    def on_epoch_end(self):
        """Called between epochs by the enqueuers (default: nothing)."""

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


class ThreadSafeIterator:
    """An iterator whose ``__next__`` holds a lock around the wrapped
    iterator's, so that several threads can share it: each element goes to
    exactly one caller and the wrapped generator never runs twice at once.
    """

    def __init__(self, it):
        self._it = iter(it)
        # Reentrant: a generator that calls next() on itself gets Python's
        # "generator already executing" error, not a deadlock.
        self._lock = threading.RLock()

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            return next(self._it)

    next = __next__  # tf.keras's ThreadsafeIter has next() too

    def close(self):
        """Closes the wrapped generator (when it has close())."""
        close = getattr(self._it, "close", None)
        if close is not None:
            with self._lock:
                close()


def threadsafe_generator(f):
    """Decorator: a generator function whose generators are
    :class:`ThreadSafeIterator` objects."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return ThreadSafeIterator(f(*args, **kwargs))
    return wrapper


# -- duck typing -------------------------------------------------------------

def check_sequence(sequence):
    """Raises TypeError unless ``sequence`` looks like a Sequence: an inflow
    or Keras Sequence, a Keras 3 PyDataset, or any object with
    ``__getitem__`` and ``__len__`` (or a ``num_batches`` attribute)."""
    cls = type(sequence)
    if not hasattr(cls, "__getitem__"):
        raise TypeError(f"expected a Sequence (an object with __len__ and __getitem__), "
                        f"got {cls.__name__}")
    if not (hasattr(cls, "__len__") or hasattr(cls, "num_batches")):
        raise TypeError(f"expected a Sequence: {cls.__name__} has __getitem__ but "
                        "neither __len__ nor num_batches")


def num_batches(sequence):
    """The number of batches of ``sequence`` now, or None for an endless
    one (a Keras PyDataset whose ``num_batches`` is None).

    Keras 3's PyDataset answers ``num_batches`` (which defaults to
    ``len()``), so that is asked first when the class has it.
    """
    cls = type(sequence)
    if hasattr(cls, "num_batches"):
        try:
            n = sequence.num_batches
        except NotImplementedError:
            n = len(sequence) if hasattr(cls, "__len__") else None
        if n is None:
            return None
    else:
        n = len(sequence)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"the length of {cls.__name__} must be an int, got "
                        f"{type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"the length of {cls.__name__} is negative ({n})")
    return n


def _known_no_op_hooks():
    """The on_epoch_end / on_epoch_begin functions that do nothing: ours and
    those of the Keras base classes already imported."""
    hooks = {Sequence.on_epoch_end}
    for module, cls_name in (("keras.src.trainers.data_adapters.py_dataset_adapter",
                              "PyDataset"),
                             ("tensorflow.python.keras.utils.data_utils", "Sequence")):
        mod = sys.modules.get(module)
        cls = getattr(mod, cls_name, None) if mod is not None else None
        for name in ("on_epoch_end", "on_epoch_begin"):
            f = getattr(cls, name, None)
            if f is not None:
                hooks.add(f)
    return hooks


def epoch_hook(sequence, name):
    """``sequence``'s bound method ``name`` (on_epoch_end, on_epoch_begin),
    or None when it has none or it is a base class's no-op."""
    f = getattr(type(sequence), name, None)
    if f is None or not callable(f) or f in _known_no_op_hooks():
        return None
    return getattr(sequence, name)
