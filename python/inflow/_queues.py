"""Queues: FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue.

TF1's queues (``tf.queue.FIFOQueue`` ...) with the same constructor
arguments, element forms and error kinds, run eagerly: ``q.enqueue(x)``
enqueues now, ``q.dequeue()`` returns the element. Elements are NumPy
arrays; dequeued arrays view inflow's buffers (no copy) and C-contiguous
arrays are enqueued without a copy, so an array must not be changed after it
was enqueued. Every blocking call takes ``timeout=`` (seconds; None waits
forever, 0 or less never blocks) and releases the GIL; Ctrl-C interrupts it
(KeyboardInterrupt).
"""

import numbers

from inflow import _graph
from inflow import _inflow
from inflow._validate import check_dtypes, check_int

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue",
           "PriorityQueue"]

def _as_type_list(dtypes, func="queue", arg="dtypes"):
    """One dtype or a list: numpy dtypes (TypeError naming `arg` for None or
    an unknown dtype)."""
    return check_dtypes(func, arg, dtypes)


def _as_shape(shape, func="queue"):
    """A shape as a tuple of ints and Nones, or None for an unknown rank."""
    if shape is None:
        return None
    if hasattr(shape, "as_list"):  # a tf.TensorShape
        try:
            return tuple(shape.as_list())
        except ValueError:  # unknown rank
            return None
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    dims = []
    for d in shape:
        if d is None:
            dims.append(None)
        elif hasattr(d, "value"):  # a tf.compat.v1.Dimension
            dims.append(d.value)
        else:
            d = check_int(func, "shapes", d, minimum=-1)
            dims.append(None if d == -1 else d)
    return tuple(dims)


def _as_shape_list(shapes, dtypes, func="queue"):
    """TF's _as_shape_list: None, one shape, or one shape per dtype."""
    if shapes is None:
        return None
    if hasattr(shapes, "as_list"):
        shapes = [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError("shapes must be a list of shapes or None, got %r"
                        % (shapes,))
    if all(s is None or isinstance(s, numbers.Integral) for s in shapes):
        # A single shape ([2, 3], or [] for a scalar).
        shapes = [shapes]
    shapes = [_as_shape(s, func) for s in shapes]
    if len(shapes) != len(dtypes):
        raise ValueError("shapes must have the same length as dtypes: %d vs %d"
                         % (len(shapes), len(dtypes)))
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the "
                         "list of dtypes")
    return [str(n) for n in names]


def _seeds(seed, shared_name=None):
    """(seed, seed2) of the queue op, as TF's RandomShuffleQueue makes them
    in the default graph ((0, 0): unseeded); a pair is taken as it is."""
    if isinstance(seed, (tuple, list)):
        s1, s2 = seed
        return int(s1), int(s2)
    s1, s2 = _graph._queue_seeds(seed, shared_name)
    if s1 is None:
        return 0, 0
    return s1, s2


class QueueBase:
    """What every inflow queue offers (TF's QueueBase), eagerly.

    Thread-safe: every method may be called from any thread. Values are
    given and returned as TF gives them: a queue with one component takes
    and returns a single value, one with several a list, one with names a
    dict keyed by name.
    """

    _kind = None

    def __init__(self, native):
        self._queue = native

    # Properties --------------------------------------------------------

    @property
    def name(self):
        """The queue's name (TF's default for the kind unless given)."""
        return self._queue.name

    @property
    def dtypes(self):
        """The component dtypes (numpy dtypes; object for strings)."""
        return self._queue.dtypes

    @property
    def shapes(self):
        """The component shapes as tuples (None for an unknown dim), or a
        list of None (unknown ranks) for a queue created without shapes."""
        shapes = self._queue.shapes
        if shapes is None:
            return [None] * len(self._queue.dtypes)
        return shapes

    @property
    def names(self):
        """The component names, or None."""
        return self._queue.names

    @property
    def capacity(self):
        """The capacity (2**31 - 1 for an unbounded queue)."""
        return self._queue.capacity

    # Conversions -------------------------------------------------------

    def _components(self, vals, what):
        names = self._queue.names
        if isinstance(vals, dict):
            if not names:
                raise ValueError("Queue must have names to %s a dictionary"
                                 % what)
            if sorted(names) != sorted(str(k) for k in vals.keys()):
                raise ValueError(
                    "Keys in dictionary to %s do not match names of Queue.  "
                    "Dictionary: (%s), Queue: (%s)"
                    % (what, sorted(vals.keys()), sorted(names)))
            return [vals[n] for n in names]
        if names:
            raise ValueError("You must %s a dictionary in a Queue with names"
                             % what)
        if isinstance(vals, (list, tuple)):
            return list(vals)
        return [vals]

    def _element(self, components):
        names = self._queue.names
        if names:
            return dict(zip(names, components))
        if len(components) == 1:
            return components[0]
        return components

    # Operations --------------------------------------------------------

    def enqueue(self, vals, timeout=None, name=None):
        """Enqueues one element (blocks while the queue is full).

        `vals`: a value for a one-component queue, a list/tuple with one
        value per component, or a dict keyed by name for a queue with names.
        CancelledError when the queue is closed; InvalidArgumentError for a
        value of the wrong shape; DeadlineExceededError when `timeout`
        (seconds) passes first.
        """
        del name
        self._queue.enqueue(self._components(vals, "enqueue"), timeout)

    def enqueue_many(self, vals, timeout=None, name=None):
        """Enqueues the rows of a batch: component i of row j is
        vals[i][j]. Blocks until every row is in; rows enqueued before a
        timeout or a close stay enqueued (as TF)."""
        del name
        self._queue.enqueue_many(self._components(vals, "enqueue"), timeout)

    def dequeue(self, timeout=None, name=None):
        """Dequeues one element (blocks while the queue is empty).

        OutOfRangeError when the queue is closed and empty;
        DeadlineExceededError when `timeout` (seconds) passes first.
        """
        del name
        return self._element(self._queue.dequeue(timeout))

    def dequeue_many(self, n, timeout=None, name=None):
        """Dequeues exactly `n` elements as one batch per component
        (shape [n] + component shape). OutOfRangeError when the queue is
        closed with fewer than `n` elements (they stay queued)."""
        del name
        n = check_int(type(self).__name__ + ".dequeue_many", "n", n)
        return self._element(self._queue.dequeue_many(n, timeout))

    def dequeue_up_to(self, n, timeout=None, name=None):
        """Dequeues up to `n` elements: `n` while the queue is open, what
        is left (at least one) once it is closed; OutOfRangeError when it is
        closed and empty."""
        del name
        n = check_int(type(self).__name__ + ".dequeue_up_to", "n", n)
        return self._element(self._queue.dequeue_up_to(n, timeout))

    def close(self, cancel_pending_enqueues=False, timeout=None, name=None):
        """Closes the queue: later enqueues fail with CancelledError, and
        dequeues drain what is left, then fail with OutOfRangeError.

        Without `cancel_pending_enqueues` it waits behind pending enqueues;
        with it, they fail with CancelledError at once. Closing a closed
        queue raises CancelledError (as TF 2.18).
        """
        del name
        self._queue.close(bool(cancel_pending_enqueues), timeout)

    def size(self, name=None):
        """The number of elements stored now."""
        del name
        return self._queue.size()

    def is_closed(self, name=None):
        """True once the queue was closed."""
        del name
        return self._queue.is_closed()

    def stats(self):
        """The queue's counters: enqueued, dequeued, enqueue_blocked_s,
        dequeue_blocked_s."""
        return self._queue.stats()

    def __repr__(self):
        return "<inflow.%s %r dtypes=%s size=%d>" % (
            type(self).__name__, self.name,
            [str(d) if str(d) != "object" else "string" for d in self.dtypes],
            self.size())


def _create(kind, capacity, dtypes, shapes, names, shared_name, name,
            min_after_dequeue=0, seed=0, seed2=0):
    # None is TF's default for both: an unbounded queue, no minimum.
    capacity = -1 if capacity is None else check_int(kind, "capacity", capacity)
    min_after_dequeue = 0 if min_after_dequeue is None else check_int(
        kind, "min_after_dequeue", min_after_dequeue)
    return _inflow._Queue.create(
        kind, capacity, dtypes, shapes, names, name or "",
        shared_name or "", min_after_dequeue, seed, seed2)


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order
    (tf.queue.FIFOQueue).

    `capacity`: the most elements stored (negative or None: unbounded).
    `dtypes`: one per component (numpy dtypes, Python types, or TF names such as
    "float32", "string"). `shapes`: None, or one fully defined shape per
    component (dequeue_many and dequeue_up_to need them). `names`: one per
    component for dict elements. A non-empty `shared_name` shares the queue
    with every other created with that name (same kind and arguments).
    """

    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None,
                 shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes, "FIFOQueue")
        super().__init__(_create(
            "FIFOQueue", capacity, dtypes, _as_shape_list(shapes, dtypes, "FIFOQueue"),
            _as_name_list(names, dtypes), shared_name, name))


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose shapes may have unknown (None) dims; dequeue_many
    and dequeue_up_to pad them to the batch's largest with zeros, False or
    empty strings (tf.queue.PaddingFIFOQueue). `shapes` is required."""

    _kind = "PaddingFIFOQueue"

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes, "PaddingFIFOQueue")
        shapes = _as_shape_list(shapes, dtypes, "PaddingFIFOQueue")
        if shapes is None:
            raise ValueError("PaddingFIFOQueue requires shapes")
        super().__init__(_create(
            "PaddingFIFOQueue", capacity, dtypes, shapes,
            _as_name_list(names, dtypes), shared_name, name))


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues a uniformly random stored element
    (tf.queue.RandomShuffleQueue).

    While open, an element only leaves when more than `min_after_dequeue`
    are stored; once closed the queue drains. The seeds are TF's get_seed
    of `seed` in the default graph (inflow.set_random_seed): the same op
    seed, graph seed and operations give TF's order; neither seed seeds
    randomly. A pair (seed, seed2) sets the op's two attributes.
    """

    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None,
                 names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes, "RandomShuffleQueue")
        seed1, seed2 = _seeds(seed, shared_name)
        super().__init__(_create(
            "RandomShuffleQueue", capacity, dtypes,
            _as_shape_list(shapes, dtypes, "RandomShuffleQueue"),
            _as_name_list(names, dtypes),
            shared_name, name, min_after_dequeue, seed1, seed2))


class PriorityQueue(QueueBase):
    """A queue that dequeues the element of smallest priority first
    (tf.queue.PriorityQueue).

    Every element's component 0 is its int64 scalar priority; `types` and
    `shapes` describe the other components (shapes are required by
    dequeue_many), `names` all of them, the priority's first.
    """

    _kind = "PriorityQueue"

    def __init__(self, capacity, types, shapes=None, names=None,
                 shared_name=None, name="priority_queue"):
        types = _as_type_list(types, "PriorityQueue", "types")
        shapes = _as_shape_list(shapes, types, "PriorityQueue")
        if names is not None:
            names = _as_name_list(names, ["int64"] + types)
        super().__init__(_create(
            "PriorityQueue", capacity, types, shapes, names, shared_name,
            name))


_KINDS = {c._kind: c for c in (FIFOQueue, PaddingFIFOQueue,
                               RandomShuffleQueue, PriorityQueue)}


def _from_native(native):
    """A queue object of the right class over a native _inflow._Queue (a
    queue C++ made)."""
    q = QueueBase.__new__(_KINDS[native.kind])
    QueueBase.__init__(q, native)
    return q
