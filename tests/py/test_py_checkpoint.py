"""inflow.train.Saver and the checkpoint functions against TensorFlow's: TF
reads what inflow's Saver writes (tf.train.load_checkpoint, a TF1 Saver's
restore, get_checkpoint_state) and inflow restores what TF writes."""
import os

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

tf1 = tf.compat.v1


def variables():
    rng = np.random.default_rng(0)
    return {
        "dense/kernel": rng.standard_normal((4, 3)).astype(np.float32),
        "dense/bias": np.arange(3, dtype=np.float32),
        "global_step": np.array(7, dtype=np.int64),
        "counts": np.arange(6, dtype=np.int32).reshape(2, 3),
        "mask": np.array([True, False, True]),
        "f64": np.linspace(0, 1, 5),
    }


def test_tf_reads_inflows_checkpoint(tmp_path):
    vs = variables()
    saver = inflow.train.Saver(vs)
    prefix = saver.save(None, str(tmp_path / "model.ckpt"), global_step=10)
    assert prefix == str(tmp_path / "model.ckpt-10")
    reader = tf.train.load_checkpoint(prefix)
    assert set(reader.get_variable_to_shape_map()) == set(vs)
    for name, value in vs.items():
        got = reader.get_tensor(name)
        np.testing.assert_array_equal(got, value)
        assert got.dtype == value.dtype
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
    state = tf1.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == prefix


def test_a_tf1_saver_restores_inflows_checkpoint(tmp_path):
    vs = variables()
    prefix = inflow.train.Saver(vs).save(None, str(tmp_path / "m"))
    g = tf.Graph()
    with g.as_default():
        tf_vars = {n: tf1.get_variable(n.replace("/", "_"), shape=v.shape,
                                       dtype=tf.as_dtype(v.dtype)) for n, v in vs.items()}
        saver = tf1.train.Saver({n: v for n, v in tf_vars.items()})
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            for n, v in tf_vars.items():
                np.testing.assert_array_equal(sess.run(v), vs[n])


def test_inflow_restores_a_tf1_savers_checkpoint_in_place(tmp_path):
    vs = variables()
    g = tf.Graph()
    with g.as_default():
        tf_vars = {n: tf1.Variable(v, name=n.replace("/", "_")) for n, v in vs.items()}
        saver = tf1.train.Saver(tf_vars)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "tf.ckpt"), global_step=3)
    targets = {n: np.zeros_like(v) for n, v in vs.items()}
    pointers = {n: t.ctypes.data for n, t in targets.items()}
    assert inflow.train.latest_checkpoint(tmp_path) == prefix
    restored = inflow.train.Saver(targets).restore(None, prefix)
    for n, v in vs.items():
        np.testing.assert_array_equal(targets[n], v)
        assert restored[n] is targets[n]
        assert targets[n].ctypes.data == pointers[n]  # in place


def test_restore_into_non_contiguous_and_objects_with_numpy(tmp_path):
    class Var:
        def __init__(self, a):
            self.a = a

        def numpy(self):
            return self.a

    base = np.zeros((4, 6), np.float32)
    view = base[:, ::2]  # not contiguous
    holder = Var(np.zeros(3, np.int64))
    src = {"v": np.arange(12, dtype=np.float32).reshape(4, 3),
           "h": np.array([5, 6, 7], np.int64)}
    prefix = inflow.train.Saver(src).save(None, tmp_path / "x")
    inflow.train.Saver({"v": view, "h": holder}).restore(None, prefix)
    np.testing.assert_array_equal(base[:, ::2], src["v"])
    np.testing.assert_array_equal(holder.a, src["h"])


def test_string_variables_round_trip(tmp_path):
    src = {"names": np.array([b"a", b"", b"ccc"], dtype=object)}
    prefix = inflow.train.Saver(src).save(None, tmp_path / "s")
    assert list(tf.train.load_checkpoint(prefix).get_tensor("names")) == [b"a", b"", b"ccc"]
    target = {"names": np.array([b"", b"", b""], dtype=object)}
    inflow.train.Saver(target).restore(None, prefix)
    assert list(target["names"]) == [b"a", b"", b"ccc"]


def test_max_to_keep_and_state_file_match_tf(tmp_path):
    vs = {"w": np.zeros(2, np.float32)}
    saver = inflow.train.Saver(vs, max_to_keep=2)
    prefixes = []
    for step in range(4):
        vs["w"][:] = step
        prefixes.append(saver.save(None, str(tmp_path / "model.ckpt"), global_step=step))
    assert saver.last_checkpoints == prefixes[-2:]
    assert not os.path.exists(prefixes[0] + ".index")
    assert not os.path.exists(prefixes[1] + ".index")
    state = inflow.train.get_checkpoint_state(tmp_path)
    tf_state = tf1.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == tf_state.model_checkpoint_path == prefixes[-1]
    assert state.all_model_checkpoint_paths == list(tf_state.all_model_checkpoint_paths)
    np.testing.assert_array_equal(
        inflow.train.load_checkpoint(tmp_path).get_tensor("w"), [3, 3])


def test_load_checkpoint_reader(tmp_path):
    vs = variables()
    prefix = inflow.train.Saver(vs).save(None, tmp_path / "r")
    reader = inflow.train.load_checkpoint(prefix)
    assert reader.get_variable_to_shape_map() == {n: list(v.shape) for n, v in vs.items()}
    assert reader.get_variable_to_dtype_map() == {n: v.dtype for n, v in vs.items()}
    assert reader.has_tensor("dense/bias") and not reader.has_tensor("nope")
    with pytest.raises(errors.NotFoundError):
        reader.get_tensor("nope")
    assert inflow.train.list_variables(prefix) == sorted(
        (n, list(v.shape)) for n, v in vs.items())
    assert inflow.train.checkpoint_exists(prefix)


def test_inflow_reads_tf2_checkpoint_names(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    path = ckpt.write(str(tmp_path / "tf2"))
    reader = inflow.train.load_checkpoint(path)
    tf_reader = tf.train.load_checkpoint(path)
    assert set(reader.get_variable_to_shape_map()) == set(tf_reader.get_variable_to_shape_map())
    np.testing.assert_array_equal(reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"),
                                  [1.0, 2.0])


def test_restore_errors(tmp_path):
    prefix = inflow.train.Saver({"a": np.zeros(2, np.float32)}).save(None, tmp_path / "e")
    with pytest.raises(errors.NotFoundError, match="b"):
        inflow.train.Saver({"b": np.zeros(2, np.float32)}).restore(None, prefix)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.train.Saver({"a": np.zeros(3, np.float32)}).restore(None, prefix)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.train.Saver({"a": np.zeros(2, np.int32)}).restore(None, prefix)
    target = np.full(2, 9, np.float32)
    with pytest.raises(errors.NotFoundError):
        inflow.train.Saver({"a": target, "b": np.zeros(1)}).restore(None, prefix)
    np.testing.assert_array_equal(target, [9, 9])  # nothing written
    with pytest.raises(errors.NotFoundError):
        inflow.train.Saver({"a": target}).restore(None, str(tmp_path / "missing"))
    with pytest.raises(ValueError):
        inflow.train.Saver({"a": target}).restore(None, None)


def test_no_state_file_gives_none(tmp_path):
    assert inflow.train.latest_checkpoint(tmp_path) is None
    assert inflow.train.get_checkpoint_state(tmp_path) is None
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_save_without_variables(tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="No variables to save"):
        inflow.train.Saver({}).save(None, tmp_path / "n")
    assert inflow.train.Saver({}, allow_empty=True).save(None, tmp_path / "n") in ("", None)


def test_global_step_may_be_an_array_and_pad_step_number(tmp_path):
    saver = inflow.train.Saver({"w": np.ones(1)}, pad_step_number=True)
    prefix = saver.save(None, tmp_path / "p", global_step=np.array(42))
    assert prefix.endswith("p-00000042")
    assert saver.save(tmp_path / "q") == str(tmp_path / "q")


def restore_targets():
    return {"a": np.full(3, -1, np.float32), "b": np.array(-1, np.int64),
            "c": np.array([b"old", b"old"], dtype=object), "d": np.full(2, -1.0)}


def test_a_damaged_byte_anywhere_restores_nothing(tmp_path):
    # The TF report: global_step and layer1/biases written before the
    # damage was found. Every byte of the data file, flipped in turn.
    values = {"a": np.array([1, 2, 3], np.float32), "b": np.array(468, np.int64),
              "c": np.array([b"xy", b"z"], dtype=object), "d": np.array([0.5, 0.25])}
    prefix = inflow.train.Saver(values).save(None, tmp_path / "m")
    data_path = prefix + ".data-00000-of-00001"
    good = open(data_path, "rb").read()
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x10
        with open(data_path, "wb") as f:
            f.write(bad)
        targets = restore_targets()
        with pytest.raises(errors.DataLossError, match="nothing was restored"):
            inflow.train.Saver(targets).restore(None, prefix)
        for name, want in restore_targets().items():
            np.testing.assert_array_equal(targets[name], want, err_msg=f"byte {i}")
    with open(data_path, "wb") as f:
        f.write(good)
    targets = restore_targets()
    inflow.train.Saver(targets).restore(None, prefix)
    for name, want in values.items():
        np.testing.assert_array_equal(targets[name], want)


def test_a_read_only_array_is_an_error_naming_it_and_nothing_is_written(tmp_path):
    prefix = inflow.train.Saver({"a": np.ones(2, np.float32), "b": np.ones(2)}).save(
        None, tmp_path / "r")
    a = np.zeros(2, np.float32)
    b = np.zeros(2)
    b.flags.writeable = False
    with pytest.raises(errors.FailedPreconditionError, match="Restoring b .*read-only"):
        inflow.train.Saver({"a": a, "b": b}).restore(None, prefix)
    np.testing.assert_array_equal(a, [0, 0])


def test_a_string_variable_restores_into_an_empty_object_array(tmp_path):
    strings = np.array([b"a", b"\xff\x00", b""], dtype=object)
    prefix = inflow.train.Saver({"s": strings, "t": np.array(b"one", dtype=object)}).save(
        None, tmp_path / "s")
    s = np.empty(3, object)
    t = np.empty((), object)
    out = inflow.train.Saver({"s": s, "t": t}).restore(None, prefix)
    assert list(s) == [b"a", b"\xff\x00", b""]
    assert t[()] == b"one"
    assert out["s"] is s
    with pytest.raises(TypeError, match="object array"):
        inflow.train.Saver({"s": np.empty(3, "S4"), "t": t}).restore(None, prefix)
