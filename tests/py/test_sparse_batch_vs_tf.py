"""SparseTensors through the batch family against TensorFlow 1.

The same program runs in TF (graph mode, one Session) and in inflow, line
for line: the names are the same in both modules (string_input_producer,
TFRecordReader, parse_single_example / parse_example with VarLenFeature,
batch / shuffle_batch / *_join / maybe_*). Every batch must be identical:
the indices (row in the batch first), values and dense_shape of each
SparseTensorValue, their dtypes, and the dense components next to them;
then both end with OutOfRangeError. Shuffled cases use one enqueue thread,
op seeds and the oracle's wait_full (pipeline_tf_oracle.py explains why),
so TF's order is reproducible and inflow's must be the same.
"""
import sys

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import pipeline_tf_oracle as oracle  # noqa: E402

tf1 = tf.compat.v1
JOIN_S = 60


def example(i):
    """Record i: an id, 0..4 int64 tags (none for i % 5 == 1) and 0..2
    words."""
    tags = [10 * i + j for j in range(i % 5 if i % 5 != 1 else 0)]
    words = [b"w%d-%d" % (i, j) for j in range(i % 3)]
    feature = {
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=tags)),
        "words": tf.train.Feature(bytes_list=tf.train.BytesList(value=words)),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


@pytest.fixture(autouse=True)
def fresh_collection():
    inflow.train._coordination._clear_queue_runners()
    yield
    inflow.train._coordination._clear_queue_runners()


@pytest.fixture
def files(tmp_path):
    out, i = [], 0
    for f, n in enumerate([9, 4, 11]):
        path = str(tmp_path / f"s-{f}.tfrecord")
        oracle.write_tf(path, [example(j) for j in range(i, i + n)])
        out.append(path)
        i += n
    return out


def features(lib):
    return {"id": lib.FixedLenFeature([], tf.int64),
            "tags": lib.VarLenFeature(tf.int64),
            "words": lib.VarLenFeature(tf.string)}


def normal(value):
    """A batch (or part of one) as plain data, dtypes included."""
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "indices"):
        return [normal(v) for v in value]
    if hasattr(value, "indices"):
        return ("sparse", normal(value.indices), normal(value.values),
                normal(value.dense_shape))
    a = np.asarray(value)
    return (a.dtype.kind, a.dtype.itemsize if a.dtype.kind != "O" else 0,
            list(a.shape), a.tolist())


# Each program: lib (tf1 or inflow), files -> (the fetch, the batching
# queue's capacity for wait_full, or None).
def prog_batch(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=5)
    _, value = lib.TFRecordReader().read(q)
    parsed = lib.parse_single_example(value, features(lib))
    return lib.train.batch(parsed, batch_size=4, capacity=8, num_threads=1,
                           allow_smaller_final_batch=True), None


def prog_batch_list_dynamic_pad(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = lib.TFRecordReader().read(q)
    parsed = lib.parse_single_example(value, features(lib))
    return lib.train.batch([parsed["tags"], parsed["id"], parsed["words"]], batch_size=5,
                           capacity=16, dynamic_pad=True), None


def prog_single_sparse(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = lib.TFRecordReader().read(q)
    parsed = lib.parse_single_example(value, features(lib))
    return lib.train.batch([parsed["tags"]], batch_size=3, capacity=16), None


def prog_shuffle_batch(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=2)
    _, value = lib.TFRecordReader().read(q)
    parsed = lib.parse_single_example(value, features(lib))
    return lib.train.shuffle_batch(parsed, batch_size=4, capacity=10, min_after_dequeue=5,
                                   num_threads=1, seed=9,
                                   allow_smaller_final_batch=True), 10


def prog_enqueue_many(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, values = lib.TFRecordReader().read_up_to(q, 3)
    parsed = lib.parse_example(values, features(lib))
    return lib.train.batch(parsed, batch_size=4, capacity=40, enqueue_many=True,
                           allow_smaller_final_batch=True), None


def prog_maybe_batch_vector(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, values = lib.TFRecordReader().read_up_to(q, 4)
    parsed = lib.parse_example(values, features(lib))
    keep = [True, False, True, True]
    if lib is tf1:
        keep = tf.slice(tf.constant(keep), [0], tf.shape(values))
    else:
        keep = inflow.py_func(lambda v: np.array([True, False, True, True][:len(v)]),
                              [values], np.bool_, shapes=[[None]])
    return lib.train.maybe_batch(parsed, keep, batch_size=3, capacity=40,
                                 enqueue_many=True, allow_smaller_final_batch=True), None


def prog_maybe_shuffle_batch_scalar(lib, files):
    q = lib.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = lib.TFRecordReader().read(q)
    parsed = lib.parse_single_example(value, features(lib))
    # A constant: TF's maybe_* cannot restore a SparseTensor stored under a
    # keep_input tensor (its tf.cond hides the map op; docs/conformance.md).
    return lib.train.maybe_shuffle_batch(parsed, batch_size=3, capacity=8,
                                         min_after_dequeue=3, keep_input=True, seed=4,
                                         allow_smaller_final_batch=True), 8


PROGRAMS = [prog_batch, prog_batch_list_dynamic_pad, prog_single_sparse,
            prog_shuffle_batch, prog_enqueue_many, prog_maybe_batch_vector,
            prog_maybe_shuffle_batch_scalar]


def batching_queue_tf():
    return tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)[-1].queue


def run_tf(prog, files):
    graph = tf.Graph()
    with graph.as_default():
        fetch, capacity = prog(tf1, files)
        queue = batching_queue_tf()
        size, closed = queue.size(), queue.is_closed()
        init = [tf1.global_variables_initializer(), tf1.local_variables_initializer()]
    got = []
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        try:
            while True:
                if capacity is not None:
                    oracle._wait_full(sess, size, closed, capacity)
                got.append(normal(sess.run(fetch)))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=JOIN_S)
    return got


def run_ours(prog, files):
    import time
    fetch, capacity = prog(inflow, files)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    got = []
    try:
        while True:
            if capacity is not None:
                deadline = time.monotonic() + JOIN_S
                q = fetch.queue
                while q.size() < capacity and not q.is_closed():
                    assert time.monotonic() < deadline
                    time.sleep(0.0002)
            got.append(normal(inflow.run(fetch.tensors, timeout=JOIN_S)))
    except errors.OutOfRangeError:
        pass
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN_S)
    return got


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.__name__[5:] for p in PROGRAMS])
def test_batches_are_tfs(prog, files):
    want = run_tf(prog, files)
    got = run_ours(prog, files)
    assert len(want) >= 2
    assert got == want


def test_batch_join_gives_every_row_once_with_tfs_structure(files):
    q = inflow.train.string_input_producer(files, num_epochs=1, shuffle=False)
    inputs = []
    for _ in range(3):
        _, value = inflow.TFRecordReader().read(q)
        inputs.append(inflow.parse_single_example(value, features(inflow)))
    out = inflow.train.shuffle_batch_join(inputs, batch_size=4, capacity=12,
                                          min_after_dequeue=2, seed=1,
                                          allow_smaller_final_batch=True)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    seen = []
    for b in out:
        rows = len(b["id"])
        tags = b["tags"]
        assert tags.indices.dtype == np.int64 and tags.dense_shape.dtype == np.int64
        assert tags.dense_shape[0] == rows
        for r, i in enumerate(b["id"]):
            mine = tags.indices[:, 0] == r
            assert tags.values[mine].tolist() == [10 * i + j for j in range(
                i % 5 if i % 5 != 1 else 0)]
            words = b["words"].values[b["words"].indices[:, 0] == r]
            assert words.tolist() == [b"w%d-%d" % (i, j) for j in range(i % 3)]
            seen.append(int(i))
    coord.request_stop()
    coord.join(threads)
    assert sorted(seen) == list(range(24))


def test_static_errors_are_tfs(files):
    q = inflow.train.string_input_producer(files, num_epochs=1)
    _, value = inflow.TFRecordReader().read(q)
    sparse = inflow.parse_single_example(value, features(inflow))
    dense = inflow.parse_single_example(value, {"tags": inflow.FixedLenFeature([], "int64"),
                                                "id": inflow.FixedLenFeature([], "int64"),
                                                "words": inflow.FixedLenFeature([], "string")})
    with pytest.raises(ValueError, match="Inconsistent SparseTensors list"):
        inflow.train.batch_join([sparse, dense], batch_size=2)
    # A SparseTensor is queued as an int64 [1] handle (TF's _shapes).
    with pytest.raises(errors.InvalidArgumentError, match="incompatible"):
        inflow.train.batch([sparse["tags"]], batch_size=2, shapes=[[]])
    # enqueue_many needs a batch of rows: rank >= 2.
    with pytest.raises(errors.InvalidArgumentError, match="rank >= 2"):
        inflow.train.batch([sparse["tags"]], batch_size=2, enqueue_many=True)


@pytest.mark.parametrize("read_batch", [1, 5])
def test_pipeline_with_varlen_features_gives_tfs_batches(files, read_batch):
    """inflow.Pipeline(features with VarLenFeature) against TF's
    string_input_producer -> read -> parse_single_example -> batch: the
    same batches whatever read_batch is (each row keeps the dense shape
    parse_single_example gives it)."""
    graph = tf.Graph()
    with graph.as_default():
        q = tf1.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=6)
        _, value = tf1.TFRecordReader().read(q)
        fetch = tf1.train.batch(tf1.parse_single_example(value, features(tf1)),
                                batch_size=5, capacity=15, allow_smaller_final_batch=True)
        init = tf1.local_variables_initializer()
    want = []
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        try:
            while True:
                want.append(normal(sess.run(fetch)))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    with inflow.Pipeline(files, features=features(inflow), num_epochs=2, shuffle=True,
                         seed=6, batch_size=5, allow_smaller_final_batch=True,
                         read_batch=read_batch) as p:
        assert p.names == ["id", "tags", "words"]
        got = [normal(b) for b in p]
    assert len(want) == 10  # 48 rows
    assert got == want


def test_pipeline_refuses_map_fn_with_varlen(files):
    with pytest.raises(ValueError, match="map_fn is not supported"):
        inflow.Pipeline(files, features=features(inflow), map_fn=lambda b: b)
    with pytest.raises(ValueError, match="FixedLenFeature or a VarLenFeature"):
        inflow.Pipeline(files, features={"s": inflow.FixedLenSequenceFeature(
            [], "int64", allow_missing=True)})
