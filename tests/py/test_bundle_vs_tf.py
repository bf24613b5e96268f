"""Tensor bundles (V2 checkpoints) against TensorFlow, both directions.

TensorFlow writes with tf.raw_ops.SaveV2 and inflow reads (through
build/<dir>/tests/bundle_tf_driver); inflow writes and TensorFlow reads with
tf.train.load_checkpoint and RestoreV2; and both writing the same tensors in
the same order produce byte-identical .index and .data files.
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import tensorflow as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "bundle_tf_driver"

BF16 = tf.bfloat16.as_numpy_dtype


def cases():
    """(name, numpy value, tf dtype): every dtype inflow has, scalars,
    empty tensors, odd strings and names."""
    rng = np.random.default_rng(7)
    out = [
        ("dense/kernel", rng.standard_normal((4, 3)).astype(np.float32), tf.float32),
        ("dense/bias", np.array([0.5, -1.25, 3e-38], np.float32), tf.float32),
        ("global_step", np.array(1000, np.int64), tf.int64),
        ("f64", np.array([1e300, -0.0, 2.5]), tf.float64),
        ("i32", np.array([[-(2**31), 2**31 - 1]], np.int32), tf.int32),
        ("u8", np.arange(250, 256, dtype=np.uint8), tf.uint8),
        ("i16", np.array([-32768, 7], np.int16), tf.int16),
        ("i8", np.array([-128, 127], np.int8), tf.int8),
        ("u16", np.array([65535], np.uint16), tf.uint16),
        ("u32", np.array([2**32 - 1, 3], np.uint32), tf.uint32),
        ("u64", np.array([2**64 - 1], np.uint64), tf.uint64),
        ("flag", np.array([True, False, True]), tf.bool),
        ("half", np.array([1.5, -2.0, 65504.0], np.float16), tf.float16),
        ("bf16", np.array([1.5, -2.0, 3.0e38], BF16), tf.bfloat16),
        ("empty", np.zeros((0, 3), np.int32), tf.int32),
        ("empty_scalar_string", np.array(b"", object), tf.string),
        ("words", np.array([b"ab", b"", b"x" * 200, b"\xff\xfe\x00not utf-8"], object),
         tf.string),
        ("no_words", np.zeros((0,), object), tf.string),
        ("gr\u00fc\u00df/w", np.array(1.0, np.float32), tf.float32),
    ]
    return out


def spec(name, value, dtype):
    if dtype == tf.string:
        values = [v.hex() for v in value.reshape(-1)]
    elif dtype in (tf.float16, tf.bfloat16):
        values = value.reshape(-1).view(np.uint16).tolist()
    else:
        values = value.reshape(-1).tolist()
    return {"name": name.encode().hex(), "dtype": dtype.name,
            "shape": list(value.shape), "values": values}


def run_driver(*args, input=None):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing: build the bundle_tf_driver target")
    proc = subprocess.run([str(DRIVER), *map(str, args)], input=input,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def tf_save(prefix, items):
    tf.raw_ops.SaveV2(prefix=str(prefix), tensor_names=[n for n, _, _ in items],
                      shape_and_slices=[""] * len(items),
                      tensors=[tf.constant(v, dtype=d) for _, v, d in items])


def inflow_save(prefix, items):
    run_driver("write", prefix, input=json.dumps([spec(*c) for c in items]))


def test_inflow_reads_what_tensorflow_writes(tmp_path):
    items = cases()
    tf_save(tmp_path / "ck", items)
    got = {bytes.fromhex(e["name"]).decode(): e
           for e in json.loads(run_driver("read", tmp_path / "ck"))}
    assert sorted(got) == sorted(n for n, _, _ in items)
    for name, value, dtype in items:
        want = spec(name, value, dtype)
        entry = got[name]
        assert entry["dtype"] == dtype.name, name
        assert entry["shape"] == want["shape"], name
        assert entry["values"] == want["values"], name


def test_tensorflow_reads_what_inflow_writes(tmp_path):
    items = cases()
    prefix = str(tmp_path / "sub" / "dir" / "ck")
    inflow_save(prefix, items)
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    assert sorted(dtypes) == sorted(n for n, _, _ in items)
    for name, value, dtype in items:
        assert dtypes[name] == dtype, name
        assert shapes[name] == list(value.shape), name
        got = reader.get_tensor(name)
        if dtype == tf.string:
            assert np.asarray(got, object).reshape(-1).tolist() == value.reshape(-1).tolist()
        else:
            got = np.asarray(got)
            assert got.shape == value.shape, name
            assert got.tobytes() == value.tobytes(), name  # bit for bit
    restored = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["dense/kernel", "words"],
                                    shape_and_slices=["", ""],
                                    dtypes=[tf.float32, tf.string])
    np.testing.assert_array_equal(restored[0].numpy(), items[0][1])
    assert restored[1].numpy().tolist() == items[16][1].tolist()


def test_files_are_byte_identical_to_tensorflows(tmp_path):
    items = cases()
    tf_save(tmp_path / "tf", items)
    inflow_save(tmp_path / "inflow", items)
    for suffix in (".index", ".data-00000-of-00001"):
        ours = (tmp_path / ("inflow" + suffix)).read_bytes()
        theirs = (tmp_path / ("tf" + suffix)).read_bytes()
        assert ours == theirs, suffix


def test_tensorflow_reports_inflows_unknown_key_as_not_found(tmp_path):
    inflow_save(tmp_path / "ck", cases()[:1])
    with pytest.raises(tf.errors.NotFoundError, match="Key missing not found in checkpoint"):
        tf.raw_ops.RestoreV2(prefix=str(tmp_path / "ck"), tensor_names=["missing"],
                             shape_and_slices=[""], dtypes=[tf.float32])
