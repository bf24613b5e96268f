"""inflow.cast and inflow.one_hot against TensorFlow's tf.cast and
tf.one_hot (graph mode, one Session): the same dtypes, shapes and values,
edge cases included (truncation, NaN, infinities and out-of-range values
of float -> int casts, float16/bfloat16 rounding, one_hot of negative and
out-of-range indices); as Nodes between the parse and the batch, and on
plain values.

TF's CPU cast of a float out of an integer type's range is not the same on
every path for uint32 (its vectorised lanes give 2**31, its scalar path the
low bits of the int64 result); inflow gives the scalar path's, which TF's
one-element tensors show, so the reference values come from one-element
tensors. For int8, int16, uint8 and uint16 the lanes saturate where the
scalar path wraps; a scalar, the common case between parse and batch, is
always the scalar path (docs/conformance.md, "Python: cast and one_hot").
"""
import ml_dtypes
import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

tf1 = tf.compat.v1

VALUES = [0.0, 1.7, -1.7, 2.5, -2.5, 127.9, 128.0, -129.0, 255.9, 256.0, 65535.5,
          65520.0, 65519.0, 2.0 ** 31, -2.0 ** 31, 3e9, -3e9, 5e9, 2.0 ** 63, 1e20,
          -1e20, 3.3e38, 1e-40, -0.0, float("nan"), float("inf"), float("-inf")]
INTS = [0, 1, -1, 127, 128, -129, 255, 256, 65535, 65536, 2 ** 31 - 1, -2 ** 31,
        2 ** 31, 2 ** 40, -2 ** 40, 2 ** 62, -2 ** 63, 2 ** 63 - 1]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64", "bool"]


def source(dtype):
    """The test values as an array of `dtype` (made by NumPy / ml_dtypes,
    handed to both sides as is)."""
    if dtype in ("float32", "float64", "float16"):
        with np.errstate(all="ignore"):
            return np.array(VALUES, np.float64).astype(dtype)
    if dtype == "bfloat16":
        return np.array(VALUES, np.float32).astype(ml_dtypes.bfloat16)
    if dtype == "bool":
        return np.array([True, False])
    info = np.iinfo(dtype)
    return np.array([v for v in INTS if info.min <= v <= info.max], dtype)


def tf_one_by_one(fn, arrays):
    """fn applied by TF to each one-element tensor: the results in order."""
    with tf.Graph().as_default():
        outs = [fn(tf.constant(a)) for a in arrays]
        with tf1.Session() as s:
            return s.run(outs)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    # Bits, so NaN and -0.0 are compared too.
    np.testing.assert_array_equal(a.view(f"u{a.dtype.itemsize}") if a.dtype.kind in "fV"
                                  else a, b.view(f"u{b.dtype.itemsize}")
                                  if b.dtype.kind in "fV" else b)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_cast_gives_tfs_values(src, dst):
    values = source(src)
    want = np.concatenate(tf_one_by_one(lambda t: tf.cast(t, dst),
                                        [values[i:i + 1] for i in range(len(values))]))
    node = inflow.cast(inflow.constant(values), dst)
    assert node.dtype == inflow._inflow.as_numpy_dtype(dst)
    assert node.shape == [len(values)]
    same(inflow.run(node), want)
    same(inflow.cast(values, dst), want)  # a value: computed at once


@pytest.mark.parametrize("dst", DTYPES)
def test_cast_of_a_long_vector_matches_tfs_vectorised_kernel(dst):
    # TF's vectorised lanes agree with its scalar path for every value
    # except floats whose truncation is out of an int8, int16, uint8,
    # uint16 or uint32 range (the lanes saturate there); those are left out
    # for these dtypes.
    values = np.array(VALUES, np.float32)
    if dst in ("int8", "int16", "uint8", "uint16", "uint32"):
        info = np.iinfo(dst)
        with np.errstate(invalid="ignore"):
            t = np.trunc(values)
            values = values[(t >= info.min) & (t <= info.max)]
    values = np.tile(values, 5).reshape(5, -1)
    with tf.Graph().as_default(), tf1.Session() as s:
        want = s.run(tf.cast(tf.constant(values), dst))
    same(inflow.run(inflow.cast(inflow.constant(values), dst)), want)


def test_cast_to_the_same_dtype_and_of_strings():
    x = np.array([1, 2], np.int32)
    same(inflow.cast(x, "int32"), x)
    with pytest.raises(errors.UnimplementedError, match="Cast string to int32"):
        inflow.cast(inflow.constant(np.array([b"1"], dtype=object)), "int32")
    with pytest.raises(errors.UnimplementedError):
        inflow.cast(inflow.constant(x), "string")
    with pytest.raises(TypeError, match="dtype"):
        inflow.cast(inflow.constant(x), None)


ONE_HOT_CASES = [
    (np.array([0, 3, -1, 10, 11, 9], np.int64), 10, {}),
    (np.array(3, np.int32), 4, {}),
    (np.array([1, 255, 0], np.uint8), 4, {}),
    (np.array([1, -128, 3], np.int8), 4, {}),
    (np.array([1, 2], np.int32), 3, {"on_value": 5, "off_value": -1}),
    (np.array([1, 2], np.int32), 3, {"axis": 0}),
    (np.array([[0, 1], [2, 0]], np.int32), 3, {"axis": 1}),
    (np.array([[0, 1], [2, 0]], np.int32), 3, {"axis": 0}),
    (np.array([[0, 1], [2, 0]], np.int32), 3, {"axis": -1}),
    (np.array([1, 2], np.int32), 3, {"dtype": tf.int32}),
    (np.array([1], np.int32), 3, {"on_value": True, "off_value": False}),
    (np.array([1], np.int32), 0, {}),
    (np.array([1], np.int32), 2, {"on_value": np.float64(2.0)}),
    (np.array([1], np.int32), 3, {"on_value": 1, "dtype": tf.float32}),
    (np.array([0, 2], np.int64), 3, {"on_value": 7.5}),
    (np.array([0, 2], np.int64), 3, {"off_value": -2.0}),
    (np.array([0, 2], np.int64), 3, {"dtype": tf.float16, "on_value": 0.1}),
    (np.array([0, 5, 1], np.int64), 3, {"on_value": b"yes", "off_value": b"no"}),
    (np.zeros([0, 2], np.int64), 3, {"axis": 1}),
]


def inflow_kwargs(kwargs):
    out = dict(kwargs)
    if "dtype" in out:
        out["dtype"] = out["dtype"].name
    return out


@pytest.mark.parametrize("indices,depth,kwargs", ONE_HOT_CASES,
                         ids=[str(i) for i in range(len(ONE_HOT_CASES))])
def test_one_hot_gives_tfs_result(indices, depth, kwargs):
    with tf.Graph().as_default(), tf1.Session() as s:
        t = tf.one_hot(tf.constant(indices), depth, **kwargs)
        want = s.run(t)
        static = t.shape.as_list()
    node = inflow.one_hot(inflow.constant(indices), depth, **inflow_kwargs(kwargs))
    assert node.shape == static
    got = inflow.run(node)
    if want.dtype == object:
        assert got.tolist() == want.tolist()
    else:
        same(got, want)
    eager = inflow.one_hot(indices, depth, **inflow_kwargs(kwargs))
    assert np.asarray(eager).tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("call,error", [
    (lambda i: inflow.one_hot(i, 3), None),
    (lambda i: inflow.one_hot(inflow.constant(np.array([1.0], np.float32)), 3), TypeError),
    (lambda i: inflow.one_hot(i, -1), ValueError),
    (lambda i: inflow.one_hot(i, 3.5), TypeError),
    (lambda i: inflow.one_hot(i, None), TypeError),
    (lambda i: inflow.one_hot(i, 3, axis=-2), ValueError),
    (lambda i: inflow.one_hot(i, 3, axis=5), ValueError),
    (lambda i: inflow.one_hot(i, 3, on_value=1.0, off_value=0), TypeError),
    (lambda i: inflow.one_hot(i, 3, on_value=np.float64(1), dtype="float32"), TypeError),
    (lambda i: inflow.one_hot(inflow.constant(np.array([b"1"], dtype=object)), 3),
     TypeError),
])
def test_one_hot_errors_name_the_argument_as_tf_rejects_it(call, error):
    indices = inflow.constant(np.array([1], np.int32))
    if error is None:
        call(indices)
    else:
        with pytest.raises(error, match="one_hot"):
            call(indices)


def test_cast_and_one_hot_nodes_flow_from_parse_into_batch(tmp_path):
    # TF1 input code: label = tf.cast(features["label"], tf.int32);
    # tf.one_hot(label, 10) between parsing and the batch.
    inflow.train._coordination._clear_queue_runners()  # this test's runners only
    path = str(tmp_path / "labels.tfrecord")
    labels = [3, 0, 9, 12, -1, 7]
    with inflow.io.TFRecordWriter(path) as w:
        for v in labels:
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[v])),
                "score": tf.train.Feature(float_list=tf.train.FloatList(
                    value=[v * 1.75]))})).SerializeToString())
    files = inflow.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, value = inflow.TFRecordReader().read(files)
    features = inflow.parse_single_example(value, {
        "label": inflow.FixedLenFeature([], "int64"),
        "score": inflow.FixedLenFeature([], "float32")})
    label = inflow.cast(features["label"], "int32")
    score = inflow.cast(features["score"], "int64")
    hot = inflow.one_hot(label, 10, on_value=2.0, off_value=0.5, axis=0)
    assert label.dtype == np.int32 and label.shape == []
    assert hot.shape == [10] and hot.dtype == np.float32
    out = inflow.train.batch({"label": label, "score": score, "hot": hot},
                             batch_size=len(labels))
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    try:
        batch = out.dequeue(timeout=60)
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=30)
        inflow.train._coordination._clear_queue_runners()
    with tf.Graph().as_default(), tf1.Session() as s:
        t = tf.constant(np.array(labels, np.int64))
        want_label, want_hot, want_score = s.run([
            tf.cast(t, tf.int32),
            tf.one_hot(tf.cast(t, tf.int32), 10, on_value=2.0, off_value=0.5, axis=-1),
            tf.cast(tf.constant(np.array(labels, np.float32) * 1.75), tf.int64)])
    same(batch["label"], want_label)
    same(batch["hot"], want_hot)
    same(batch["score"], want_score)
