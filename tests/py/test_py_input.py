"""inflow.train's producers, readers and batching through Python: the same
filenames and batches as TF1 (one thread, op seeds), every element once per
epoch, OutOfRangeError after the right number of batches, and errors of a
step (a damaged record, a raising py_func) surfacing from coord.join()."""
import collections
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import pipeline_tf_oracle as oracle  # noqa: E402

tf1 = tf.compat.v1
JOIN_S = 60


@pytest.fixture(autouse=True)
def fresh_collection():
    """Each test starts its own runners only (TF: a fresh graph)."""
    inflow.train._coordination._clear_queue_runners()
    yield
    inflow.train._coordination._clear_queue_runners()


class Runners:
    """start_queue_runners with a Coordinator; stop() joins them."""

    def __init__(self):
        self.coord = inflow.train.Coordinator()
        self.threads = inflow.train.start_queue_runners(coord=self.coord)

    def stop(self):
        self.coord.request_stop()
        self.coord.join(self.threads, stop_grace_period_secs=JOIN_S)


@pytest.fixture
def runners():
    made = []

    def start():
        made.append(Runners())
        return made[-1]
    yield start
    for r in made:
        try:
            r.stop()
        except Exception:  # noqa: BLE001 - a test that expects errors checks them
            pass


@pytest.fixture
def corpus(tmp_path):
    records = oracle.corpus_records([7, 0, 12, 5])
    paths = []
    for i, file_records in enumerate(records):
        path = str(tmp_path / f"c-{i}.tfrecord")
        oracle.write_tf(path, file_records)
        paths.append(path)
    return paths


def test_string_input_producer_gives_tfs_filenames(corpus, runners):
    case = {"files": corpus, "num_epochs": 3, "shuffle": True, "seed": 11,
            "graph_seed": None}
    want = oracle.run_tf_producer(case)
    q = inflow.train.string_input_producer(corpus, num_epochs=3, shuffle=True, seed=11)
    runners()
    got = []
    with pytest.raises(errors.OutOfRangeError):
        while True:
            got.append(q.dequeue(timeout=JOIN_S).decode())
    assert got == want["filenames"]
    assert want["status"]["code"] == "OUT_OF_RANGE"


def test_range_input_producer_matches_tf(runners):
    g = tf.Graph()
    with g.as_default():
        q = tf1.train.range_input_producer(10, num_epochs=2, seed=4)
        x = q.dequeue()
        with tf1.Session() as sess:
            sess.run(tf1.local_variables_initializer())
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(sess, coord)
            want = [int(sess.run(x)) for _ in range(20)]
            coord.request_stop()
            coord.join(threads)
    q = inflow.train.range_input_producer(10, num_epochs=2, seed=4)
    runners()
    got = [int(q.dequeue(timeout=JOIN_S)) for _ in range(20)]
    assert got == want
    with pytest.raises(errors.OutOfRangeError):
        q.dequeue(timeout=JOIN_S)


def wait_full(batch_output, capacity):
    deadline = time.monotonic() + JOIN_S
    q = batch_output.queue
    while q.size() < capacity and not q.is_closed():
        assert time.monotonic() < deadline, "the batching queue neither filled nor closed"
        time.sleep(0.0002)


@pytest.mark.parametrize("kind", ["batch", "shuffle_batch"])
def test_tf1_reading_pipeline_ported_line_by_line_gives_tfs_batches(corpus, runners, kind):
    case = {"files": corpus, "features": oracle.FEATURES, "num_epochs": 2, "shuffle": True,
            "seed": 3, "graph_seed": None, "batch": kind, "batch_size": 4, "capacity": 9,
            "min_after_dequeue": 5, "batch_seed": 8, "allow_smaller_final_batch": True,
            "wait_full": True}
    want = oracle.run_tf(case)

    # The same program in inflow, line for line.
    files = inflow.train.string_input_producer(corpus, num_epochs=2, shuffle=True, seed=3)
    _, value = inflow.TFRecordReader().read(files)
    parsed = inflow.parse_single_example(value, {
        f["key"]: inflow.FixedLenFeature(f["shape"], f["dtype"]) for f in oracle.FEATURES})
    if kind == "shuffle_batch":
        batch = inflow.train.shuffle_batch(parsed, batch_size=4, capacity=9,
                                           min_after_dequeue=5, num_threads=1, seed=8,
                                           allow_smaller_final_batch=True)
    else:
        batch = inflow.train.batch(parsed, batch_size=4, capacity=9, num_threads=1,
                                   allow_smaller_final_batch=True)
    runners()
    got = []
    with pytest.raises(errors.OutOfRangeError):
        while True:
            wait_full(batch, 9)
            out = inflow.run(batch, timeout=JOIN_S)
            got.append({k: oracle.tensor_json(v) for k, v in out.items()})
    assert want["status"]["code"] == "OUT_OF_RANGE"
    assert len(got) == len(want["batches"]) == 12  # 24 records * 2 epochs / 4
    assert got == want["batches"]


def test_slice_input_producer_and_batch_end_after_the_right_number_of_batches(runners):
    images = np.arange(30, dtype=np.float32).reshape(10, 3)
    labels = np.arange(10, dtype=np.int64)
    image, label = inflow.train.slice_input_producer([images, labels], num_epochs=2,
                                                     seed=1)
    assert image.shape == [3] and label.shape == []
    out = inflow.train.batch([image, label], batch_size=3)
    runners()
    seen = []
    n = 0
    for imgs, lbls in out.batches():
        assert imgs.shape == (3, 3) and lbls.dtype == np.int64
        np.testing.assert_array_equal(imgs, images[lbls])
        seen.extend(lbls.tolist())
        n += 1
    assert n == 20 // 3
    assert all(c <= 2 for c in collections.Counter(seen).values())
    with pytest.raises(errors.OutOfRangeError):
        out.dequeue(timeout=JOIN_S)


def test_dict_input_gives_dicts_and_one_element_list_gives_an_array(runners):
    x, = inflow.train.slice_input_producer([np.arange(8)], num_epochs=1, shuffle=False)
    d = inflow.train.batch({"b": x, "a": x}, batch_size=4)
    assert d.output_shapes == {"a": [4], "b": [4]}
    y, = inflow.train.slice_input_producer([np.arange(8)], num_epochs=1, shuffle=False)
    single = inflow.train.batch([y], batch_size=4)
    runners()
    first = d.dequeue(timeout=JOIN_S)
    assert sorted(first) == ["a", "b"]
    np.testing.assert_array_equal(first["a"], [0, 1, 2, 3])
    np.testing.assert_array_equal(single.dequeue(timeout=JOIN_S), [0, 1, 2, 3])


def test_read_up_to_parse_example_and_enqueue_many(corpus, runners):
    files = inflow.train.string_input_producer(corpus, num_epochs=1, shuffle=False)
    keys, values = inflow.TFRecordReader().read_up_to(files, 5)
    parsed = inflow.parse_example(values, {"id": inflow.FixedLenFeature([], "int64")})
    out = inflow.train.batch([parsed["id"], keys], batch_size=6, enqueue_many=True,
                             allow_smaller_final_batch=True)
    runners()
    ids, names = [], []
    for i, k in out.batches():
        ids.extend(i.tolist())
        names.extend(k)
    assert ids == list(range(24))
    assert names[0] == f"{corpus[0]}:0".encode()


def test_shuffle_batch_join_keeps_every_element(corpus, runners):
    files = inflow.train.string_input_producer(corpus, num_epochs=2, seed=2)
    inputs = []
    for _ in range(3):
        _, value = inflow.TFRecordReader().read(files)
        inputs.append([inflow.parse_single_example(
            value, {"id": inflow.FixedLenFeature([], "int64")})["id"]])
    out = inflow.train.shuffle_batch_join(inputs, batch_size=5, capacity=20,
                                          min_after_dequeue=6, seed=1,
                                          allow_smaller_final_batch=True)
    runners()
    counts = collections.Counter(i for b in out.batches() for i in b.tolist())
    assert counts == {i: 2 for i in range(24)}


def test_batch_join_with_two_threads(runners):
    a, = inflow.train.slice_input_producer([np.arange(6)], num_epochs=1, shuffle=False)
    b, = inflow.train.slice_input_producer([np.arange(100, 106)], num_epochs=1,
                                           shuffle=False)
    out = inflow.train.batch_join([[a], [b]], batch_size=4, allow_smaller_final_batch=True)
    runners()
    got = sorted(i for batch in out.batches() for i in batch.tolist())
    assert got == list(range(6)) + list(range(100, 106))


def test_dynamic_pad_pads_to_the_longest(runners):
    n, = inflow.train.slice_input_producer([np.arange(1, 5, dtype=np.int64)],
                                           num_epochs=1, shuffle=False)
    row = inflow.py_func(lambda k: np.arange(k, dtype=np.int32), [n], np.int32,
                         shapes=[[None]])
    out = inflow.train.batch([row], batch_size=4, dynamic_pad=True)
    runners()
    got = out.dequeue(timeout=JOIN_S)
    np.testing.assert_array_equal(got, [[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 2, 0],
                                        [0, 1, 2, 3]])


def test_maybe_batch_keeps_what_keep_input_says(runners):
    x, = inflow.train.slice_input_producer([np.arange(20)], num_epochs=1, shuffle=False)
    keep = inflow.py_func(lambda v: np.bool_(v % 2 == 0), [x], bool, shapes=[[]])
    out = inflow.train.maybe_batch([x], keep, batch_size=5)
    runners()
    got = [i for b in out.batches() for i in b.tolist()]
    assert got == list(range(0, 20, 2))


def test_maybe_shuffle_batch_with_a_constant_keep(runners):
    x, = inflow.train.slice_input_producer([np.arange(10)], num_epochs=1)
    out = inflow.train.maybe_shuffle_batch([x], 2, capacity=8, min_after_dequeue=2,
                                           keep_input=False)
    runners()
    with pytest.raises(errors.OutOfRangeError):
        out.dequeue(timeout=JOIN_S)


def test_py_func_error_surfaces_from_coord_join_with_its_traceback(runners):
    x, = inflow.train.slice_input_producer([np.arange(10)], num_epochs=1)

    def boom(v):
        raise RuntimeError("boom from py_func")

    y = inflow.py_func(boom, [x], np.int64, shapes=[[]])
    out = inflow.train.batch([y], batch_size=2)
    r = runners()
    with pytest.raises(errors.OpError):
        out.dequeue(timeout=JOIN_S)
    with pytest.raises(Exception) as e:
        r.coord.join(r.threads, stop_grace_period_secs=JOIN_S)
    assert "boom from py_func" in str(e.value)
    assert "Traceback" in str(e.value) or "boom" in str(e.value)


def test_py_func_stop_iteration_is_the_end_of_input(runners):
    values = iter(range(7))
    x = inflow.py_func(lambda: np.int64(next(values)), [], np.int64, shapes=[[]])
    out = inflow.train.batch([x], batch_size=3, allow_smaller_final_batch=True)
    runners()
    assert [b.tolist() for b in out] == [[0, 1, 2], [3, 4, 5], [6]]


def test_damaged_record_is_data_loss_from_coord_join(tmp_path, runners):
    path = tmp_path / "bad.tfrecord"
    records = oracle.corpus_records([4])[0]
    oracle.write_tf(path, records)
    data = bytearray(path.read_bytes())
    offset = 12 + len(records[0]) + 4
    data[offset + 14] ^= 0x10
    path.write_bytes(bytes(data))
    files = inflow.train.string_input_producer([str(path)], num_epochs=1)
    _, value = inflow.TFRecordReader().read(files)
    out = inflow.train.batch([value], batch_size=2)
    r = runners()
    with pytest.raises(errors.OpError):
        out.dequeue(timeout=JOIN_S)
        out.dequeue(timeout=JOIN_S)
    with pytest.raises(errors.DataLossError) as e:
        r.coord.join(r.threads, stop_grace_period_secs=JOIN_S)
    assert str(offset) in e.value.message and str(path) in e.value.message


def test_readers_keys_and_values(tmp_path, runners):
    text = tmp_path / "t.txt"
    text.write_bytes(b"h\nl1\r\nl2")
    fixed = tmp_path / "f.bin"
    fixed.write_bytes(b"HH" + b"aaabbbccc" + b"F")
    queues = {k: inflow.FIFOQueue(10, "string") for k in ["text", "fixed", "whole"]}
    reads = {
        "text": inflow.TextLineReader(skip_header_lines=1).read(queues["text"]),
        "fixed": inflow.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=1).read(
            queues["fixed"]),
        "whole": inflow.WholeFileReader().read(queues["whole"]),
    }
    for k, f in [("text", text), ("fixed", fixed), ("whole", text)]:
        queues[k].enqueue(str(f))
        queues[k].close()
    assert inflow.run(reads["text"]) == (f"{text}:2".encode(), b"l1")
    assert inflow.run(reads["text"]) == (f"{text}:3".encode(), b"l2")
    assert inflow.run(reads["fixed"])[1] == b"aaa"
    assert inflow.run(reads["fixed"]) == (f"{fixed}:1".encode(), b"bbb")
    assert inflow.run(reads["fixed"])[1] == b"ccc"
    assert inflow.run(reads["whole"]) == (str(text).encode(), b"h\nl1\r\nl2")
    with pytest.raises(errors.OutOfRangeError):
        inflow.run(reads["whole"])


def test_reader_counters_and_reset(corpus):
    q = inflow.FIFOQueue(10, "string")
    for f in corpus:
        q.enqueue(f)
    q.close()
    reader = inflow.TFRecordReader()
    key, value = reader.read(q)
    for _ in range(8):
        k, v = inflow.run((key, value))
        assert k.startswith(corpus[0].encode()) or k.startswith(corpus[2].encode())
    assert reader.num_records_produced() == 8
    assert reader.num_work_units_completed() == 2  # c-0 and the empty c-1
    reader.reset()
    assert reader.num_records_produced() == 0


def test_one_run_evaluates_each_step_once(corpus):
    q = inflow.FIFOQueue(10, "string")
    q.enqueue(corpus[0])
    q.close()
    key, value = inflow.TFRecordReader().read(q)
    parsed = inflow.parse_single_example(value, {"id": inflow.FixedLenFeature([], "int64")})
    k, i, v = inflow.run([key, parsed["id"], value])
    assert k == f"{corpus[0]}:0".encode() and i == 0 and v == oracle.example(0)
    k, i = inflow.run((key, parsed["id"]))
    assert i == 1 and k != f"{corpus[0]}:0".encode()


def test_decode_raw_and_reshape_nodes(runners):
    rows = np.array([bytes(range(8)), bytes(range(8, 16))], dtype=object)
    raw, = inflow.train.slice_input_producer([rows], num_epochs=1, shuffle=False)
    decoded = inflow.decode_raw(raw, np.uint16)
    assert decoded.shape == [None]
    square = inflow.reshape(decoded, [2, 2])
    as_float = inflow.decode_raw_to_float(raw, 0.5)
    runners()
    a, b, c = inflow.run([decoded, square, as_float], timeout=JOIN_S)
    np.testing.assert_array_equal(a, np.frombuffer(bytes(range(8)), np.uint16))
    assert b.shape == (2, 2)
    np.testing.assert_array_equal(c, np.arange(8, dtype=np.float32) * 0.5)


def test_limit_epochs():
    x = inflow.train.limit_epochs(np.array([1, 2]), num_epochs=2)
    np.testing.assert_array_equal(inflow.run(x), [1, 2])
    np.testing.assert_array_equal(inflow.run(x), [1, 2])
    with pytest.raises(errors.OutOfRangeError):
        inflow.run(x)


def test_static_checks_are_tfs():
    x, = inflow.train.slice_input_producer([np.arange(4)], num_epochs=1)
    raw, = inflow.train.slice_input_producer([np.array([b"ab"], dtype=object)])
    with pytest.raises(errors.InvalidArgumentError, match="min_after_dequeue"):
        inflow.train.shuffle_batch([x], 2, capacity=4, min_after_dequeue=4)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.train.batch([inflow.decode_raw(raw, np.uint8)], 2)  # shape not defined
    with pytest.raises(errors.InvalidArgumentError):
        x.set_shape([3, 3])
    with pytest.raises(ValueError):
        inflow.train.batch([], 2)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.train.string_input_producer([])
    with pytest.raises(errors.InvalidArgumentError):
        inflow.train.batch([x], 0)
    node = inflow.decode_raw(raw, np.uint8)
    node.set_shape([2])
    assert node.shape == [2]


def test_queue_runner_with_a_cpp_read_parse_op(corpus, runners):
    files = inflow.train.string_input_producer(corpus, num_epochs=1, shuffle=False)
    reader = inflow.TFRecordReader()
    _, value = reader.read(files)
    parsed = inflow.parse_single_example(value, {
        "id": inflow.FixedLenFeature([], "int64"),
        "vec": inflow.FixedLenFeature([3], "float32")})
    q = inflow.FIFOQueue(50, ["int64", "float32"], shapes=[[], [3]], names=["id", "vec"])
    op = inflow.train.enqueue_op(q, parsed)
    qr = inflow.train.QueueRunner(q, [op, op])
    inflow.train.add_queue_runner(qr)
    runners()
    ids = []
    with pytest.raises(errors.OutOfRangeError):
        while True:
            ids.append(int(q.dequeue(timeout=JOIN_S)["id"]))
    assert sorted(ids) == list(range(24))
    with pytest.raises(ValueError):
        inflow.train.enqueue_op(q, {"id": parsed["id"]})


def test_unpacked_batch_components_run_as_one_batch(runners):
    images = np.arange(20, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10, dtype=np.int64)
    image, label = inflow.train.slice_input_producer([images, labels], num_epochs=1,
                                                     shuffle=False)
    image_batch, label_batch = inflow.train.batch([image, label], batch_size=5).tensors
    assert image_batch.shape == [5, 2] and label_batch.shape == [5]
    other, = inflow.train.slice_input_producer([labels], num_epochs=1)
    d = inflow.train.batch({"x": other}, batch_size=1)
    assert list(d.tensors) == ["x"] and d["x"].shape == [1] and d.keys() == ["x"]
    runners()
    imgs, lbls = inflow.run([image_batch, label_batch], timeout=JOIN_S)
    np.testing.assert_array_equal(lbls, np.arange(5))
    np.testing.assert_array_equal(imgs, images[:5])
    lbls = inflow.run(label_batch, timeout=JOIN_S)  # the next batch
    np.testing.assert_array_equal(lbls, np.arange(5, 10))
    with pytest.raises(errors.OutOfRangeError):
        inflow.run(label_batch, timeout=JOIN_S)
    single = inflow.train.batch([other], batch_size=2)
    assert single.tensors.shape == [2] and len(single) == 1
