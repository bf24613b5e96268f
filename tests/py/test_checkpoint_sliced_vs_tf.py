"""Partitioned variables and complex tensors: TensorFlow writes the
checkpoint here, inflow reads it (inflow.train and `inflow ckpt`) as TF's
tf.train.load_checkpoint / list_variables do; and TF reads the complex
tensors inflow's Saver writes."""
import json

import numpy as np
import pytest
import tensorflow as tf

import inflow

tf1 = tf.compat.v1

ROWS = (np.arange(15, dtype=np.float32) / 2).reshape(5, 3)
COLS = (np.arange(14, dtype=np.int64) * 3 - 7).reshape(2, 7)
WIDE = np.arange(3 * 200, dtype=np.float64).reshape(3, 200) - 50
NAMES = np.array([b"a", b"bc", b"", b"\xff\x00"], dtype=object)


def sliced(full):
    def init(shape, dtype=None, partition_info=None):
        offsets = partition_info.var_offset if partition_info else [0] * len(shape)
        index = tuple(slice(o, o + n) for o, n in zip(offsets, shape))
        return tf.constant(full[index], dtype=dtype)
    return init


@pytest.fixture(scope="module")
def partitioned(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("part") / "model.ckpt")
    g = tf.Graph()
    with g.as_default():
        tf1.get_variable("rows", shape=ROWS.shape, dtype=tf.float32,
                         initializer=sliced(ROWS),
                         partitioner=tf1.fixed_size_partitioner(3, axis=0))
        tf1.get_variable("cols", shape=COLS.shape, dtype=tf.int64,
                         initializer=sliced(COLS),
                         partitioner=tf1.fixed_size_partitioner(2, axis=1))
        tf1.get_variable("scope/wide", shape=WIDE.shape, dtype=tf.float64,
                         initializer=sliced(WIDE),
                         partitioner=tf1.fixed_size_partitioner(3, axis=1))
        tf1.get_variable("names", shape=NAMES.shape, dtype=tf.string,
                         initializer=sliced(NAMES),
                         partitioner=tf1.fixed_size_partitioner(2))
        tf1.get_variable("plain", initializer=np.array([1.5, -2.5], np.float32))
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            return saver.save(sess, prefix, global_step=3)


def test_list_variables_is_tfs(partitioned):
    assert inflow.train.list_variables(partitioned) == tf.train.list_variables(partitioned)


def test_reader_maps_and_values_are_tfs(partitioned):
    ours = inflow.train.load_checkpoint(partitioned)
    theirs = tf.train.load_checkpoint(partitioned)
    assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
    assert ({k: np.dtype(v) for k, v in ours.get_variable_to_dtype_map().items()} ==
            {k: np.dtype(v.as_numpy_dtype)
             for k, v in theirs.get_variable_to_dtype_map().items()})
    for name in ["rows", "cols", "scope/wide", "plain"]:
        got, want = ours.get_tensor(name), theirs.get_tensor(name)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert ours.has_tensor(name) and theirs.has_tensor(name)
    # TF's reader cannot assemble a partitioned string ("Dtype string not
    # supported"); inflow's can.
    with pytest.raises(Exception, match="string"):
        theirs.get_tensor("names")
    assert list(ours.get_tensor("names")) == list(NAMES)


def test_saver_restores_partitioned_variables_into_whole_arrays(partitioned):
    rows = np.zeros((5, 3), np.float32)
    names = np.empty(4, object)
    wide = np.zeros((3, 200))
    inflow.train.Saver({"rows": rows, "names": names, "scope/wide": wide}).restore(
        None, partitioned)
    np.testing.assert_array_equal(rows, ROWS)
    np.testing.assert_array_equal(wide, WIDE)
    assert list(names) == list(NAMES)


def test_ckpt_list_and_dump(run_inflow, partitioned):
    listed = json.loads(run_inflow("ckpt", "list", "--json", partitioned).stdout)
    assert [(t["name"], t["shape"]) for t in listed["tensors"]] == [
        (n, s) for n, s in tf.train.list_variables(partitioned)]
    text = run_inflow("ckpt", "list", partitioned).stdout
    assert "\x00" not in text and len(text.splitlines()) == 5
    dumped = json.loads(run_inflow("ckpt", "dump", "--json", partitioned, "cols").stdout)
    assert dumped["shape"] == [2, 7] and dumped["values"] == COLS.reshape(-1).tolist()
    verified = json.loads(run_inflow("ckpt", "verify", partitioned).stdout)
    assert verified["ok"] and verified["tensors"] == 5


C64 = np.array([1 + 2j, -3.5 + 0.25j, 0 - 1j], dtype=np.complex64)
C128 = np.array([[1e100 + 1j, -2 - 2j], [0.5 + 0j, 3 - 1e-300j]], dtype=np.complex128)


def test_tf_complex_tensors_read(tmp_path, run_inflow):
    prefix = tf.train.Checkpoint(c64=tf.Variable(C64), c128=tf.Variable(C128)).write(
        str(tmp_path / "c"))
    ours = inflow.train.load_checkpoint(prefix)
    theirs = tf.train.load_checkpoint(prefix)
    for name in theirs.get_variable_to_shape_map():
        got, want = ours.get_tensor(name), theirs.get_tensor(name)
        if name.startswith("c"):
            assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    name = "c128/.ATTRIBUTES/VARIABLE_VALUE"
    assert ours.get_variable_to_dtype_map()[name] == np.complex128
    listed = json.loads(run_inflow("ckpt", "list", "--json", prefix).stdout)
    dtypes = {t["name"]: t["dtype"] for t in listed["tensors"]}
    assert dtypes[name] == "complex128"
    assert dtypes["c64/.ATTRIBUTES/VARIABLE_VALUE"] == "complex64"
    dumped = json.loads(run_inflow("ckpt", "dump", "--json", prefix, name).stdout)
    assert dumped["values"] == [[1e100, 1.0], [-2.0, -2.0], [0.5, 0.0], [3.0, -1e-300]]


def test_tf_reads_inflows_complex_tensors_and_inflow_restores_them(tmp_path):
    prefix = inflow.train.Saver({"c64": C64, "c128": C128}).save(None, tmp_path / "m")
    theirs = tf.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(theirs.get_tensor("c64"), C64)
    np.testing.assert_array_equal(theirs.get_tensor("c128"), C128)
    assert theirs.get_variable_to_dtype_map()["c64"] == tf.complex64
    c64, c128 = np.zeros(3, np.complex64), np.zeros((2, 2), np.complex128)
    inflow.train.Saver({"c64": c64, "c128": c128}).restore(None, prefix)
    np.testing.assert_array_equal(c64, C64)
    np.testing.assert_array_equal(c128, C128)
