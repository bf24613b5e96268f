"""TFRecordSequence (inflow._record_sequence): batch i of TFRecord files that
TensorFlow wrote equals tf.data's parse of the same records; shuffling is a
per-epoch permutation fixed by a seed (and kept by a pickled copy); the
FILE.index files `inflow records index` writes are used, and a stale or
corrupt one is handled as documented; batches are NumPy arrays over
inflow's buffers, read and parsed without the GIL."""
import pickle
import struct
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors
from inflow._record_sequence import TFRecordSequence

COUNTS = [7, 1, 11]  # 19 records: batches of 4 cross both file boundaries


def example(k):
    f = tf.train.Feature
    return tf.train.Example(features=tf.train.Features(feature={
        "image": f(float_list=tf.train.FloatList(value=[k, k + 0.5, -k, k * k])),
        "label": f(int64_list=tf.train.Int64List(value=[k % 10])),
        "name": f(bytes_list=tf.train.BytesList(value=[b"r%d" % k])),
        "tags": f(int64_list=tf.train.Int64List(value=list(range(k % 4)))),
        "pairs": f(float_list=tf.train.FloatList(value=[k] * (2 * (k % 3)))),
    })).SerializeToString()


def write_files(tmp_path, counts=COUNTS):
    files, k = [], 0
    for n, count in enumerate(counts):
        path = str(tmp_path / f"part-{n}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for _ in range(count):
                w.write(example(k))
                k += 1
        files.append(path)
    return files


TF_FEATURES = {
    "image": tf.io.FixedLenFeature([4], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
    "name": tf.io.FixedLenFeature([], tf.string),
    "tags": tf.io.VarLenFeature(tf.int64),
    "pairs": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
}
FEATURES = {
    "image": inflow.FixedLenFeature([4], "float32"),
    "label": inflow.FixedLenFeature([], "int64"),
    "name": inflow.FixedLenFeature([], "string"),
    "tags": inflow.VarLenFeature("int64"),
    "pairs": inflow.FixedLenSequenceFeature([2], "float32", allow_missing=True),
}


def tf_batches(files, batch_size):
    ds = tf.data.TFRecordDataset(files).batch(batch_size)
    return [tf.io.parse_example(s, TF_FEATURES) for s in ds]


def assert_batch_equal(mine, theirs):
    assert list(mine) == list(FEATURES)
    for key in ("image", "label", "pairs"):
        assert mine[key].dtype == theirs[key].numpy().dtype, key
        np.testing.assert_array_equal(mine[key], theirs[key].numpy(), err_msg=key)
    assert mine["name"].tolist() == theirs["name"].numpy().tolist()
    sp = theirs["tags"]
    np.testing.assert_array_equal(mine["tags"].indices, sp.indices.numpy())
    np.testing.assert_array_equal(mine["tags"].values, sp.values.numpy())
    np.testing.assert_array_equal(mine["tags"].dense_shape, sp.dense_shape.numpy())


def test_batches_match_tf_data_parse_of_the_same_records(tmp_path):
    files = write_files(tmp_path)
    seq = TFRecordSequence(files, 4, FEATURES)
    assert len(seq) == 5 and seq.num_records == 19
    expected = tf_batches(files, 4)
    assert len(expected) == len(seq)
    for i in range(len(seq)):
        assert_batch_equal(seq[i], expected[i])
    assert_batch_equal(seq[-1], expected[-1])  # the short last batch
    assert seq[-1]["label"].shape == (3,)
    assert [b["label"].tolist() for b in seq] == [e["label"].numpy().tolist()
                                                  for e in expected]


def test_drop_remainder_matches_tf_data_drop_remainder(tmp_path):
    files = write_files(tmp_path)
    seq = TFRecordSequence(files, 4, {"label": FEATURES["label"]}, drop_remainder=True)
    ds = tf.data.TFRecordDataset(files).batch(4, drop_remainder=True)
    expected = [tf.io.parse_example(s, {"label": TF_FEATURES["label"]})["label"].numpy()
                for s in ds]
    assert len(seq) == len(expected) == 4
    for i, want in enumerate(expected):
        np.testing.assert_array_equal(seq[i]["label"], want)


def test_without_features_the_records_themselves(tmp_path):
    files = write_files(tmp_path)
    seq = TFRecordSequence(files, 5, None)
    records = [r.numpy() for r in tf.data.TFRecordDataset(files)]
    got = [r for b in seq for r in b["value"].tolist()]
    assert got == records


def test_index_outside_the_sequence_is_index_error(tmp_path):
    seq = TFRecordSequence(write_files(tmp_path), 4, None)
    for i in (5, -6, 100):
        with pytest.raises(IndexError):
            seq[i]
    with pytest.raises(TypeError):
        seq[1.0]


def test_shuffle_is_a_permutation_per_epoch_fixed_by_the_seed(tmp_path):
    files = write_files(tmp_path)
    a = TFRecordSequence(files, 4, {"label": FEATURES["label"]}, shuffle=True, seed=11)
    b = TFRecordSequence(files, 4, {"label": FEATURES["label"]}, shuffle=True, seed=11)
    labels = [k % 10 for k in range(19)]
    orders = []
    for epoch in range(3):
        order = [p for i in range(len(a)) for p in a.batch_positions(i)]
        assert sorted(order) == list(range(19))
        assert order == [p for i in range(len(b)) for p in b.batch_positions(i)]
        got = [v for batch in a for v in batch["label"].tolist()]
        assert got == [labels[p] for p in order]
        orders.append(order)
        a.on_epoch_end()
        b.on_epoch_end()
    assert orders[0] != orders[1] != orders[2]
    assert a.epoch == 3


def test_a_pickled_copy_gives_the_same_batches(tmp_path):
    files = write_files(tmp_path)
    seq = TFRecordSequence(files, 3, FEATURES, shuffle=True)  # seed drawn
    seq.on_epoch_end()
    copy = pickle.loads(pickle.dumps(seq))
    assert copy.epoch == 1 and copy.seed == seq.seed
    for i in range(len(seq)):
        assert copy.batch_positions(i) == seq.batch_positions(i)
        np.testing.assert_array_equal(copy[i]["image"], seq[i]["image"])


def test_arrays_are_views_of_inflows_buffers(tmp_path):
    seq = TFRecordSequence(write_files(tmp_path), 4, FEATURES)
    image = seq[0]["image"]
    assert inflow._inflow._buffer_address(image) == image.__array_interface__["data"][0]


def test_getitem_releases_the_gil(tmp_path):
    # With a switch interval no test outlasts, the main thread gets the GIL
    # back only when the worker gives it up itself: inside seq[i], if seq[i]
    # releases it, before `done` is set. The worker calls seq[i] until the
    # main thread has run (up to 2000 times): on a busy machine the main
    # thread may be scheduled late, but not through 2000 calls; a seq[i]
    # that holds the GIL lets it run only after the last, `done` set.
    seq = TFRecordSequence(write_files(tmp_path), 19, FEATURES)
    started, done, stop = threading.Event(), threading.Event(), threading.Event()

    def worker():
        started.set()
        for _ in range(2000):
            if stop.is_set():
                break
            seq[0]
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        t = threading.Thread(target=worker)
        t.start()
        started.wait()
        during = not done.is_set()
        stop.set()
        t.join(60)
    finally:
        sys.setswitchinterval(interval)
    assert during, "seq[i] held the GIL throughout"


def test_thread_workers_get_the_same_batches(tmp_path):
    files = write_files(tmp_path, [40, 33, 50])
    seq = TFRecordSequence(files, 8, FEATURES, shuffle=True, seed=3)
    expected = [seq[i] for i in range(len(seq))]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(seq.__getitem__, range(len(seq))))
            for mine, want in zip(got, expected):
                for key in ("image", "label", "pairs"):
                    np.testing.assert_array_equal(mine[key], want[key])
                np.testing.assert_array_equal(mine["tags"].values, want["tags"].values)


def index_offsets(path):
    data = open(path, "rb").read()
    assert data[:8] == b"IFRECIDX"
    version, _, size, _, count = struct.unpack_from("<IIQqQ", data, 8)
    assert version == 1
    return size, list(struct.unpack_from(f"<{count}Q", data, 40))


def test_uses_the_indexes_inflow_records_index_writes(tmp_path, run_inflow):
    files = write_files(tmp_path)
    with pytest.raises(errors.NotFoundError, match="inflow records index"):
        TFRecordSequence(files, 4, FEATURES, index="require")
    run_inflow("records", "index", *files)
    seq = TFRecordSequence(files, 4, FEATURES, index="require")
    for i, want in enumerate(tf_batches(files, 4)):
        assert_batch_equal(seq[i], want)


def test_a_stale_index_is_rebuilt_or_refused(tmp_path, run_inflow):
    files = write_files(tmp_path)
    run_inflow("records", "index", *files)
    old = open(files[2] + ".index", "rb").read()
    with tf.io.TFRecordWriter(files[2]) as w:  # rewritten, one more record
        for k in range(12):
            w.write(example(k))
    with pytest.raises(errors.FailedPreconditionError, match="stale record index"):
        TFRecordSequence(files, 4, FEATURES, index="require")
    seq = TFRecordSequence(files, 4, FEATURES)  # "read": rebuilt in memory
    assert seq.num_records == 20
    assert open(files[2] + ".index", "rb").read() == old
    TFRecordSequence(files, 4, FEATURES, index="write")
    assert len(index_offsets(files[2] + ".index")[1]) == 12
    assert TFRecordSequence(files, 4, FEATURES, index="require").num_records == 20


def test_a_corrupt_index_is_data_loss_naming_it(tmp_path, run_inflow):
    files = write_files(tmp_path)
    run_inflow("records", "index", *files)
    path = files[1] + ".index"
    data = bytearray(open(path, "rb").read())
    data[45] ^= 1
    open(path, "wb").write(bytes(data))
    for index in ("read", "write", "require"):
        with pytest.raises(errors.DataLossError,
                           match=f"corrupt record index {path}: checksum mismatch"):
            TFRecordSequence(files, 4, FEATURES, index=index)
    assert TFRecordSequence(files, 4, FEATURES, index="memory").num_records == 19


def test_a_damaged_record_is_data_loss_naming_file_and_offset(tmp_path, run_inflow):
    files = write_files(tmp_path)
    seq = TFRecordSequence(files, 4, FEATURES)
    data = bytearray(open(files[2], "rb").read())
    size0 = len(example(8)) + 16  # part-2's record 1 is global record 9: batch 2
    data[size0 + 12 + 3] ^= 0x10
    # Same size; written in place so that only the bytes change.
    with open(files[2], "r+b") as f:
        f.write(bytes(data))
    with pytest.raises(errors.DataLossError,
                       match=f"^corrupted record \\(data checksum\\) at offset "
                             f"{size0} in {files[2]}"):
        seq[2]
    seq[1]  # the others still read


def test_compressed_files_are_refused(tmp_path):
    path = str(tmp_path / "c.tfrecord")
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type="GZIP")) as w:
        w.write(example(0))
    with pytest.raises(errors.FailedPreconditionError, match="GZIP-compressed"):
        TFRecordSequence(path, 1, FEATURES)


@pytest.mark.parametrize("kwargs,error", [
    ({"batch_size": 0}, ValueError),
    ({"batch_size": 2.0}, TypeError),
    ({"files": []}, ValueError),
    ({"files": None}, TypeError),
    ({"features": {}}, ValueError),
    ({"features": {"x": 1}}, ValueError),
    ({"index": "always"}, ValueError),
    ({"seed": "7"}, TypeError),
])
def test_bad_arguments_are_python_errors(tmp_path, kwargs, error):
    args = {"files": write_files(tmp_path, [2]), "batch_size": 2, "features": None}
    args.update(kwargs)
    with pytest.raises(error):
        TFRecordSequence(**args)
