"""tf.compat.v1.train's input functions: producers, readers and batching.

A TF1 pipeline ports line by line::

    files = inflow.train.string_input_producer(names, num_epochs=2, seed=1)
    reader = inflow.TFRecordReader()
    key, value = reader.read(files)              # Nodes: deferred
    features = inflow.parse_single_example(value, {
        "image": inflow.FixedLenFeature([], "string"),
        "label": inflow.FixedLenFeature([], "int64")})
    image = inflow.decode_raw_to_float(features["image"], 1 / 255)
    image.set_shape([784])
    image_batch, label_batch = inflow.train.shuffle_batch(
        [image, features["label"]], batch_size=128, capacity=10000,
        min_after_dequeue=5000, seed=1).tensors
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    images, labels = inflow.run([image_batch, label_batch])   # sess.run

Producers return their queue (a FIFOQueue filled by a QueueRunner in the
default graph's collection); readers and parsing build C++ steps; each
batching call creates its queue and a QueueRunner whose threads run those
steps (read + parse + decode, no GIL) and enqueue the results.
start_queue_runners starts every runner of the default graph (inflow.Graph).
Shuffling calls take their seeds as TF's get_seed gives them
(inflow.set_random_seed). Python functions join in through
``inflow.py_func``.
"""

import os

import numpy as np

from inflow import _graph
from inflow import _inflow
from inflow.errors import OutOfRangeError
from inflow._validate import check_int, check_optional_int, check_path, check_strings
from inflow._steps import Node, _as_node
from inflow.io._parsing import SparseTensorValue
from inflow.io._records import TFRecordOptions

__all__ = ["match_filenames_once", "string_input_producer", "range_input_producer",
           "slice_input_producer",
           "input_producer", "limit_epochs", "ReaderBase", "TFRecordReader",
           "TextLineReader", "FixedLengthRecordReader", "WholeFileReader", "batch",
           "shuffle_batch", "batch_join", "shuffle_batch_join", "maybe_batch",
           "maybe_shuffle_batch", "maybe_batch_join", "maybe_shuffle_batch_join",
           "BatchOutput", "BatchComponent", "enqueue_op"]


def _strings(values):
    if isinstance(values, Node):
        if values.op_name != "constant" or values.dtype != np.dtype(object):
            raise TypeError("string_input_producer: pass the strings themselves "
                            "(a list, an array of bytes or str, or "
                            "match_filenames_once's result), not a Node of "
                            f"{values.op_name!r}")
        from inflow._steps import run
        values = run(values)
    return check_strings("string_input_producer", "string_tensor", values)


def match_filenames_once(pattern, name=None):
    """The file names matching ``pattern`` (a glob, or a list of them), all
    sorted together, as a string Node
    (``tf.compat.v1.train.match_filenames_once``), to pass to
    string_input_producer or ``inflow.run``. The files are matched once,
    now (TF: when the local variables are initialized); a pattern matching
    nothing adds no name, and wildcards may appear in the file name part
    only (InvalidArgumentError otherwise)."""
    patterns = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    names = []
    for i, p in enumerate(patterns):
        what = "pattern" if patterns is not pattern else f"pattern[{i}]"
        names.extend(_inflow._glob(check_path("match_filenames_once", what, p)))
    values = np.empty(len(names), dtype=object)
    values[:] = [os.fsencode(n) for n in sorted(names)]
    return _as_node(values)


def _epochs(func, num_epochs):
    """None (unlimited) or an int > 0 (TF's ValueError otherwise)."""
    num_epochs = check_optional_int(func, "num_epochs", num_epochs)
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError(f"{func}: num_epochs must be > 0 not {num_epochs}")
    return num_epochs


def _graph_args(shuffle, seed):
    """(graph_seed, seed, collection) of a native producer or batcher: TF's
    get_seed in the default graph (asked only when shuffling, as TF), and
    the graph's runner collection."""
    graph_seed, seed = _graph.get_seed(seed) if shuffle else (None, None)
    return graph_seed, seed, _graph._collection()


def _check_no_cancel_op(cancel_op):
    if cancel_op is not None:
        raise NotImplementedError("cancel_op is not supported; the producer's "
                                  "queue is closed with cancel_pending_enqueues")


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None):
    """A queue of the strings, each epoch in a fresh order when ``shuffle``
    (``tf.compat.v1.train.string_input_producer``). After ``num_epochs``
    epochs the queue closes; readers then end with OutOfRangeError. With an
    op ``seed`` or a graph seed the order is TF's. An empty list raises
    InvalidArgumentError."""
    _check_no_cancel_op(cancel_op)
    f = "string_input_producer"
    graph_seed, seed, collection = _graph_args(shuffle, seed)
    return (_inflow._string_input_producer(
        _strings(string_tensor), _epochs(f, num_epochs), shuffle, seed,
        check_int(f, "capacity", capacity), shared_name, name, graph_seed, collection))


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the int32 scalars 0 .. limit-1
    (``tf.compat.v1.train.range_input_producer``)."""
    f = "range_input_producer"
    graph_seed, seed, collection = _graph_args(shuffle, seed)
    return (_inflow._range_input_producer(
        check_int(f, "limit", limit), _epochs(f, num_epochs), shuffle, seed,
        check_int(f, "capacity", capacity), shared_name, name, graph_seed, collection))


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True,
                   seed=None, capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):
    """A queue of the rows of ``input_tensor``
    (``tf.compat.v1.train.input_producer``)."""
    _check_no_cancel_op(cancel_op)
    shape = None if element_shape is None else [None if d is None else int(d)
                                                for d in element_shape]
    f = "input_producer"
    graph_seed, seed, collection = _graph_args(shuffle, seed)
    return (_inflow._input_producer(
        input_tensor, shape, _epochs(f, num_epochs), shuffle, seed,
        check_int(f, "capacity", capacity), shared_name, name, graph_seed, collection))


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None,
                         capacity=32, shared_name=None, name=None):
    """Nodes giving one row of every tensor per evaluation, each epoch in a
    fresh order when ``shuffle`` (``tf.compat.v1.train.slice_input_producer``):
    the rows of each array share their first dimension. End of epochs:
    OutOfRangeError."""
    f = "slice_input_producer"
    graph_seed, seed, collection = _graph_args(shuffle, seed)
    return _inflow._slice_input_producer(list(tensor_list), _epochs(f, num_epochs), shuffle,
                                         seed, check_int(f, "capacity", capacity),
                                         shared_name, name, graph_seed, collection)


def limit_epochs(tensor, num_epochs=None, name=None):
    """A Node giving ``tensor`` ``num_epochs`` times, then OutOfRangeError
    (``tf.compat.v1.train.limit_epochs``)."""
    return _inflow._limit_epochs(tensor, _epochs("limit_epochs", num_epochs))


def enqueue_op(queue, vals, enqueue_many=False):
    """A C++ enqueue op for a QueueRunner: each run evaluates ``vals`` (Nodes
    or constants: a list, or a dict keyed by the queue's names) and enqueues
    the result (TF's ``queue.enqueue(vals)`` / ``enqueue_many(vals)`` inside
    ``QueueRunner(queue, [op] * n)``). It runs on inflow's threads without
    the GIL (py_func steps take it for their call)."""
    if isinstance(vals, dict):
        names = queue.names
        if not names or set(names) != set(vals):
            raise ValueError(f"enqueue_op: keys {sorted(vals)} are not the queue's "
                             f"names {names}")
        vals = [vals[n] for n in names]
    elif not isinstance(vals, (list, tuple)):
        vals = [vals]
    return _inflow._enqueue_op(queue, [_as_node(v) for v in vals], bool(enqueue_many))


class ReaderBase:
    """A reader: takes filenames from a queue and produces (key, value)
    records, file after file (TF's ReaderBase). read() and read_up_to()
    return Nodes; evaluate them with a batching call or inflow.run. A reader
    is shared by every thread that runs its steps."""

    def __init__(self, reader):
        self._reader = reader

    def read(self, queue, name=None):
        """(key, value) Nodes: one record per evaluation. The key is
        "<file>:<position>"; OutOfRangeError once the queue is closed and
        drained."""
        key, value = self._reader.read(queue)
        return key, value

    def read_up_to(self, queue, num_records, name=None):
        """(keys, values) Nodes: 1..num_records records of one file per
        evaluation."""
        keys, values = self._reader.read_up_to(
            queue, check_int("read_up_to", "num_records", num_records))
        return keys, values

    def num_records_produced(self, name=None):
        return self._reader.num_records_produced()

    def num_work_units_completed(self, name=None):
        return self._reader.num_work_units_completed()

    def reset(self, name=None):
        self._reader.reset()

    @property
    def supports_serialize(self):
        return False


class TFRecordReader(ReaderBase):
    """Records of TFRecord files (``tf.compat.v1.TFRecordReader``);
    ``options``: TFRecordOptions or a compression type."""

    def __init__(self, name=None, options=None):
        super().__init__(_inflow._tfrecord_reader(
            TFRecordOptions.get_compression_type_string(options)))


class TextLineReader(ReaderBase):
    """Lines of text files, without the newline
    (``tf.compat.v1.TextLineReader``)."""

    def __init__(self, skip_header_lines=None, name=None):
        skip = check_optional_int("TextLineReader", "skip_header_lines", skip_header_lines)
        super().__init__(_inflow._text_line_reader(skip or 0))


class FixedLengthRecordReader(ReaderBase):
    """Fixed-length records (``tf.compat.v1.FixedLengthRecordReader``)."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        f = "FixedLengthRecordReader"
        super().__init__(_inflow._fixed_length_record_reader(
            check_int(f, "record_bytes", record_bytes),
            check_optional_int(f, "header_bytes", header_bytes) or 0,
            check_optional_int(f, "footer_bytes", footer_bytes) or 0,
            check_optional_int(f, "hop_bytes", hop_bytes) or 0,
            TFRecordOptions.get_compression_type_string(encoding)))


class WholeFileReader(ReaderBase):
    """One record per file: its whole contents (``tf.compat.v1.WholeFileReader``)."""

    def __init__(self, name=None):
        super().__init__(_inflow._whole_file_reader())


class BatchOutput:
    """What a batching call returns.

    ``dequeue()`` gives the next batch as NumPy arrays (a dict for dict
    input, one array for a one-element list, a list otherwise; a
    SparseTensorValue of arrays for each batched SparseTensor), as
    ``sess.run(batch)`` does, and raises OutOfRangeError at the end of
    input; iterating (or ``batches()``) gives the batches until that end.
    ``tensors`` has TF's result structure, one BatchComponent per batched
    tensor (``images, labels = shuffle_batch([image, label], ...).tensors``):
    ``inflow.run`` on components of one output dequeues one batch per run
    (``sess.run([images, labels])``); ``out[i]`` / ``out[key]`` is one
    component.
    """

    def __init__(self, batcher, keys, single):
        self._batcher = batcher
        self._keys = keys
        self._single = single
        self._sparse = list(batcher.sparse)
        n = len(batcher.output_shapes)
        self._components = [BatchComponent(self, i) for i in range(n)]

    def _next(self, timeout):
        """One batch as a list with one entry per component: an array, or a
        SparseTensorValue of arrays for a SparseTensor."""
        return _group_sparse(self._batcher.next(timeout), self._sparse)

    def dequeue(self, timeout=None):
        """The next batch (waits, with the GIL released; ``timeout`` in
        seconds raises DeadlineExceededError; Ctrl-C interrupts it)."""
        return self._shape(self._next(timeout))

    def _shape(self, values):
        if self._keys is not None:
            return dict(zip(self._keys, values))
        return values[0] if self._single else values

    def batches(self, timeout=None):
        """Yields dequeue() until the end of input (OutOfRangeError)."""
        while True:
            try:
                batch = self.dequeue(timeout)
            except OutOfRangeError:
                return
            yield batch

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self.dequeue()
        except OutOfRangeError:
            raise StopIteration from None

    @property
    def tensors(self):
        """TF's result: a list of BatchComponents (one for a one-element
        list), or a dict of them for dict input."""
        return self._shape(self._components)

    def __len__(self):
        return len(self._components)

    def __getitem__(self, index):
        if self._keys is not None:
            return self._components[self._keys.index(index)]
        return self._components[index]

    def keys(self):
        return list(self._keys or [])

    @property
    def queue(self):
        """The batching queue."""
        return self._batcher.queue

    @property
    def output_shapes(self):
        """Static shapes of the batch components (None: unknown)."""
        return self._shape(self._batcher.output_shapes)

    @property
    def fill_metric_tag(self):
        return self._batcher.fill_metric_tag


class BatchComponent:
    """One component of a batching call's output (TF's batched tensor);
    ``inflow.run`` dequeues a batch and gives this component of it."""

    def __init__(self, output, index):
        self._output = output
        self._index = index

    @property
    def shape(self):
        return self._output._batcher.output_shapes[self._index]

    def dequeue(self, timeout=None):
        """The next batch of this component alone (the others are dropped)."""
        return self._output._next(timeout)[self._index]

    def __repr__(self):
        return f"<inflow.train.BatchComponent {self._index} shape={self.shape}>"


def _group_sparse(flat, sparse):
    """The batch Python sees: each sparse component's three arrays (indices,
    values, dense_shape) as one SparseTensorValue."""
    if not any(sparse):
        return flat
    out, t = [], 0
    for is_sparse in sparse:
        if is_sparse:
            out.append(SparseTensorValue(flat[t], flat[t + 1], flat[t + 2]))
            t += 3
        else:
            out.append(flat[t])
            t += 1
    return out


def _components(tensors):
    """(keys or None, single, nodes, sparse) for one input of a batching
    call: a SparseTensorValue (of Nodes or arrays) is three nodes, flagged
    in `sparse`."""
    if isinstance(tensors, dict):
        keys = sorted(tensors, key=str)
        values = [tensors[k] for k in keys]
        single = False
    elif isinstance(tensors, (list, tuple)):
        keys, values, single = None, list(tensors), len(tensors) == 1
    else:
        keys, values, single = None, [tensors], True
    if not values:
        raise ValueError("Expected at least one tensor in batch().")
    nodes, sparse = [], []
    for v in values:
        sparse.append(isinstance(v, SparseTensorValue))
        nodes += [_as_node(f) for f in v] if sparse[-1] else [_as_node(v)]
    return keys, single, nodes, sparse


def _keep(keep_input, n):
    if keep_input is None:
        return None
    return [_as_node(np.asarray(keep_input, dtype=bool))
            if not isinstance(keep_input, Node) else keep_input] * n


def _shapes(shapes):
    if shapes is None:
        return None
    return [None if s is None else [None if d is None else check_int("batch", "shapes", d)
                                    for d in s] for s in shapes]


def _make(kind, tensors_list, join, batch_size, keep_input=None, num_threads=1,
          capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None,
          min_after_dequeue=0, seed=None):
    parts = [_components(t) for t in tensors_list]
    keys, single, _, sparse = parts[0]
    for k, _, nodes, sp in parts[1:]:
        if k == keys and sp != sparse:
            raise ValueError("Inconsistent SparseTensors list: the inputs of a *_join "
                             "call must have SparseTensors in the same places")
        if k != keys or len(nodes) != len(parts[0][2]):
            raise ValueError("Expected all inputs of a *_join call to have the same "
                             "structure")
    if kind == "shuffle_batch":  # TF's RandomShuffleQueue(seed, shared_name)
        graph_seed, seed = _graph._queue_seeds(seed, shared_name)
    else:
        graph_seed, seed = None, None
    collection = _graph._collection()
    batcher = _inflow._batch(
        kind, [p[2] for p in parts], [str(k) for k in keys] if keys else [],
        _keep(keep_input, len(parts)), join, check_int(kind, "batch_size", batch_size),
        check_int(kind, "num_threads", num_threads), check_int(kind, "capacity", capacity),
        bool(enqueue_many), _shapes(shapes), bool(dynamic_pad),
        bool(allow_smaller_final_batch), shared_name, name,
        check_int(kind, "min_after_dequeue", min_after_dequeue), seed,
        graph_seed, collection, sparse if any(sparse) else [])
    return BatchOutput(batcher, keys, single)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False,
          shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
          shared_name=None, name=None):
    """Batches ``tensors`` (a list or dict of Nodes) in a FIFOQueue filled by
    ``num_threads`` threads (``tf.compat.v1.train.batch``); with
    ``dynamic_pad`` a PaddingFIFOQueue. Returns a BatchOutput."""
    return _make("batch", [tensors], False, batch_size, None, num_threads, capacity,
                 enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                 shared_name, name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """batch() keeping only the elements whose ``keep_input`` (a bool, a bool
    Node, or with enqueue_many a bool vector Node) is true."""
    return _make("batch", [tensors], False, batch_size, keep_input, num_threads,
                 capacity, enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                 shared_name, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1,
                  seed=None, enqueue_many=False, shapes=None,
                  allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches in a RandomShuffleQueue (``tf.compat.v1.train.shuffle_batch``);
    with one thread and an op ``seed`` or a graph seed the batches are TF's."""
    return _make("shuffle_batch", [tensors], False, batch_size, None, num_threads,
                 capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                 shared_name, name, min_after_dequeue, seed)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """shuffle_batch() keeping only the elements whose ``keep_input`` is true."""
    return _make("shuffle_batch", [tensors], False, batch_size, keep_input, num_threads,
                 capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                 shared_name, name, min_after_dequeue, seed)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """One thread per input of ``tensors_list`` feeding one FIFOQueue
    (``tf.compat.v1.train.batch_join``)."""
    return _make("batch", list(tensors_list), True, batch_size, None, 1, capacity,
                 enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                 shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32,
                     enqueue_many=False, shapes=None, dynamic_pad=False,
                     allow_smaller_final_batch=False, shared_name=None, name=None):
    """batch_join() keeping only the elements whose ``keep_input`` is true."""
    return _make("batch", list(tensors_list), True, batch_size, keep_input, 1, capacity,
                 enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                 shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """One thread per input feeding one RandomShuffleQueue
    (``tf.compat.v1.train.shuffle_batch_join``)."""
    return _make("shuffle_batch", list(tensors_list), True, batch_size, None, 1,
                 capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                 shared_name, name, min_after_dequeue, seed)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                             keep_input, seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """shuffle_batch_join() keeping only the elements whose ``keep_input`` is
    true."""
    return _make("shuffle_batch", list(tensors_list), True, batch_size, keep_input, 1,
                 capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                 shared_name, name, min_after_dequeue, seed)

