"""`inflow ckpt` against TensorFlow: what `list`, `dump`, `state` and
`verify` print for checkpoints TF wrote (every one of tests/testdata/tf/checkpoint,
from scripts/make-tf-testdata, partitioned and complex ones included, and
one written here with every dtype) equals what tf.train.list_variables,
load_checkpoint and get_checkpoint_state say; damage exits 1 with
DATA_LOSS naming the file and offset, where TF fails too."""
import base64
import json
import math
import shutil

import numpy as np
import pytest
import tensorflow as tf

PREFIXES = ["half_plus_two_tf1", "half_plus_two_tf2", "keras_adam",
            "objgraph_only", "estimator/model.ckpt-1000", "partitioned", "complex"]
BUNDLE_FORMATS = {"tensor_bundle_v2", "tensor_bundle_v2_partitioned",
                  "tensor_bundle_v2_complex"}


# The Keras model's first kernel, as tf.train.Checkpoint names it.
KERAS_KERNEL = "optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE"


@pytest.fixture(scope="module")
def ckpt_dir(tf_testdata):
    return tf_testdata / "checkpoint"


def tensor_facts(tf_expected, prefix, name):
    [facts] = [t for t in tf_expected["files"]["checkpoint/" + prefix]["tensors"]
               if t["name"] == name]
    return facts


def test_prefixes_are_every_checkpoint_of_expected_json(tf_expected):
    assert sorted(PREFIXES) == sorted(
        key.removeprefix("checkpoint/") for key, facts in tf_expected["files"].items()
        if facts.get("format") in BUNDLE_FORMATS)


def tf_value(reader, facts, tensor):
    """The tensor as TF reads it. TF's reader refuses a whole partitioned
    string tensor: for that one, its slices as TF's RestoreV2 read them, put
    together (expected.json's "assembled")."""
    assembled = facts.get("assembled", {}).get(tensor, {})
    if "values_hex" in assembled:
        return np.array([bytes.fromhex(h) for h in assembled["values_hex"]],
                        dtype=object).reshape(assembled["shape"])
    return reader.get_tensor(tensor)


def ckpt_json(run_inflow, *args):
    return json.loads(run_inflow("ckpt", *args).stdout)


def as_bytes(value):
    if isinstance(value, dict):
        return base64.b64decode(value["base64"])
    return value.encode("utf-8")


def as_number(value):
    # JSON has no NaN or infinities: the CLI writes them as strings.
    return {"NaN": math.nan, "Infinity": math.inf,
            "-Infinity": -math.inf}.get(value, value) if isinstance(value, str) else value


def assert_same_values(dumped, expected):
    if isinstance(expected, bytes):  # a string scalar
        assert dumped["shape"] == []
        assert [as_bytes(v) for v in dumped["values"]] == [expected]
        return
    expected = np.asarray(expected)
    assert dumped["shape"] == list(expected.shape)
    if expected.dtype == object:  # tf.string
        assert [as_bytes(v) for v in dumped["values"]] == list(expected.reshape(-1))
        return
    if expected.dtype.kind == "c":  # [real, imaginary] pairs
        got = np.array([complex(as_number(re), as_number(im)) for re, im in dumped["values"]],
                       dtype=expected.dtype)
    else:
        got = np.array([as_number(v) for v in dumped["values"]],
                       dtype=np.float64 if expected.dtype.kind == "f" else expected.dtype)
    got = got.astype(expected.dtype).reshape(expected.shape)
    np.testing.assert_array_equal(got, expected)
    # Same bits, not only equal values (NaN payloads aside).
    got, expected = got.reshape(-1), expected.reshape(-1)
    finite = np.isfinite(expected) if expected.dtype.kind in "fc" else slice(None)
    assert got[finite].tobytes() == expected[finite].tobytes()


@pytest.mark.parametrize("name", PREFIXES)
def test_list_json_gives_tf_names_dtypes_and_shapes_in_key_order(run_inflow, ckpt_dir,
                                                                 name):
    prefix = str(ckpt_dir / name)
    listed = ckpt_json(run_inflow, "list", "--json", prefix)
    assert listed["prefix"] == prefix
    dtypes = tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()
    want = [{"name": n, "dtype": dtypes[n].name, "shape": s}
            for n, s in tf.train.list_variables(prefix)]
    assert listed["tensors"] == want


def test_list_text_is_one_line_per_tensor(run_inflow, ckpt_dir):
    out = run_inflow("ckpt", "list", ckpt_dir / "half_plus_two_tf1").stdout
    assert out.splitlines() == [f"{n} float32 []" for n in ["a", "a2", "b", "c", "c2"]]


def test_a_directory_stands_for_its_latest_checkpoint(run_inflow, ckpt_dir, tf_expected):
    d = ckpt_dir / "estimator"
    listed = ckpt_json(run_inflow, "list", "--json", d)
    assert listed["prefix"] == tf.train.latest_checkpoint(str(d))
    assert listed["prefix"] == str(d / "model.ckpt-1000")
    assert len(listed["tensors"]) == \
        tf_expected["files"]["checkpoint/estimator/model.ckpt-1000"]["num_tensors"]


@pytest.mark.parametrize("name", PREFIXES)
def test_dump_gives_every_tensor_as_tf_reads_it(run_inflow, ckpt_dir, tf_expected, name):
    prefix = str(ckpt_dir / name)
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    facts = tf_expected["files"]["checkpoint/" + name]
    for tensor, _ in tf.train.list_variables(prefix):
        dumped = ckpt_json(run_inflow, "dump", "--json", prefix, tensor)
        assert dumped["name"] == tensor
        assert dumped["dtype"] == dtypes[tensor].name
        assert_same_values(dumped, tf_value(reader, facts, tensor))


@pytest.fixture(scope="module")
def every_dtype(tmp_path_factory):
    """A checkpoint TF writes with a tensor of every dtype inflow supports."""
    tensors = {
        "f32": tf.constant([[1.5, math.nan], [math.inf, -0.1]], tf.float32),
        "f64": tf.constant([0.1, -1e300, -math.inf], tf.float64),
        "i32": tf.constant([-2**31, 7], tf.int32),
        "u8": tf.constant([0, 255], tf.uint8),
        "i16": tf.constant([-2**15, 2**15 - 1], tf.int16),
        "i8": tf.constant([-128, 127], tf.int8),
        "i64": tf.constant([-2**63, 2**63 - 1], tf.int64),
        "b": tf.constant([True, False], tf.bool),
        "bf16": tf.constant([0.1, -3.0, 1e30], tf.bfloat16),
        "u16": tf.constant([65535], tf.uint16),
        "f16": tf.constant([0.1, 65504.0, 6e-8, -0.0], tf.float16),
        "u32": tf.constant([2**32 - 1], tf.uint32),
        "u64": tf.constant([2**64 - 1], tf.uint64),
        "s": tf.constant([b"ascii", b"\xff\xfe", "na\u00efve".encode(), b""]),
        "scalar": tf.constant(3.0),
        "empty": tf.zeros([0, 3]),
        "dir/na\u00efve name": tf.constant([[1, 2, 3]], tf.int64),
    }
    prefix = str(tmp_path_factory.mktemp("every_dtype") / "ck")
    names = sorted(tensors)
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                      shape_and_slices=[""] * len(names),
                      tensors=[tensors[n] for n in names])
    return prefix


def test_dump_of_every_dtype_matches_tf(run_inflow, every_dtype):
    reader = tf.train.load_checkpoint(every_dtype)
    dtypes = reader.get_variable_to_dtype_map()
    assert len(dtypes) == 17
    for name, dtype in dtypes.items():
        dumped = ckpt_json(run_inflow, "dump", "--json", every_dtype, name)
        assert dumped["dtype"] == dtype.name, name
        assert_same_values(dumped, reader.get_tensor(name))


def test_strings_that_are_not_utf8_come_out_as_base64(run_inflow, every_dtype):
    dumped = ckpt_json(run_inflow, "dump", "--json", every_dtype, "s")
    assert dumped["values"] == ["ascii", {"base64": "//4="}, "na\u00efve", ""]


def test_dump_text_prints_one_value_per_line(run_inflow, every_dtype):
    out = run_inflow("ckpt", "dump", every_dtype, "f32").stdout
    assert out.splitlines() == ["f32 float32 [2, 2]", "1.5", '"NaN"', '"Infinity"',
                                "-0.1"]


def test_float_values_keep_a_fraction_so_minus_zero_survives(run_inflow, every_dtype):
    dumped = ckpt_json(run_inflow, "dump", "--json", every_dtype, "f16")
    assert [str(v) for v in dumped["values"]][1:] == ["65504.0", "5.9604645e-08", "-0.0"]


def test_dump_of_a_missing_tensor_is_not_found(run_inflow, every_dtype):
    proc = run_inflow("ckpt", "dump", every_dtype, "nope", check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("NOT_FOUND: ")
    assert "nope" in proc.stderr


def test_state_is_what_tf_get_checkpoint_state_reads(run_inflow, ckpt_dir):
    d = ckpt_dir / "estimator"
    state = ckpt_json(run_inflow, "state", d)
    want = tf.train.get_checkpoint_state(str(d))
    assert state["model_checkpoint_path"] == want.model_checkpoint_path
    assert state["all_model_checkpoint_paths"] == list(want.all_model_checkpoint_paths)
    assert state["all_model_checkpoint_timestamps"] == list(
        want.all_model_checkpoint_timestamps)
    assert state["last_preserved_timestamp"] == want.last_preserved_timestamp
    assert isinstance(state["last_preserved_timestamp"], float)


def test_state_of_a_directory_without_one_is_not_found(run_inflow, tmp_path):
    proc = run_inflow("ckpt", "state", tmp_path, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("NOT_FOUND: ")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None


@pytest.mark.parametrize("name", PREFIXES)
def test_verify_passes_every_tf_checkpoint(run_inflow, ckpt_dir, name):
    out = ckpt_json(run_inflow, "verify", ckpt_dir / name)
    assert out["ok"] is True
    assert out["tensors"] == len(tf.train.list_variables(str(ckpt_dir / name)))


def damaged_copy(ckpt_dir, tmp_path, suffix, offset):
    for f in ckpt_dir.glob("keras_adam.*"):
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / ("keras_adam" + suffix)
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))
    return tmp_path / "keras_adam", path


def test_damaged_data_file_is_data_loss_naming_file_and_offset(run_inflow, ckpt_dir,
                                                               tmp_path, tf_expected):
    # A byte inside the first kernel ([4, 8] float32: 128 bytes).
    kernel = tensor_facts(tf_expected, "keras_adam", KERAS_KERNEL)
    assert kernel["size"] == 128
    prefix, damaged = damaged_copy(ckpt_dir, tmp_path, ".data-00000-of-00001",
                                   kernel["offset"] + 100)
    for command in (["verify"], ["dump", "--json"]):
        args = command + [prefix]
        if command[0] == "dump":
            args.append(KERAS_KERNEL)
        proc = run_inflow("ckpt", *args, check=False)
        assert proc.returncode == 1, command
        assert proc.stderr.startswith("DATA_LOSS: "), proc.stderr
        assert str(damaged) in proc.stderr
        assert "offset" in proc.stderr
    with pytest.raises(tf.errors.OpError, match="Checksum does not match"):
        tf.train.load_checkpoint(str(prefix)).get_tensor(KERAS_KERNEL)


def test_damaged_index_is_data_loss_naming_file_and_offset(run_inflow, ckpt_dir,
                                                           tmp_path):
    # Byte 200 lies in the first data block (at offset 0).
    prefix, damaged = damaged_copy(ckpt_dir, tmp_path, ".index", 200)
    for command in ("list", "verify"):
        proc = run_inflow("ckpt", command, prefix, check=False)
        assert proc.returncode == 1, command
        assert proc.stderr.startswith("DATA_LOSS: "), proc.stderr
        assert "block checksum mismatch" in proc.stderr
        assert f"at offset 0 in {damaged}" in proc.stderr
    with pytest.raises(tf.errors.OpError, match="block checksum mismatch"):
        tf.train.load_checkpoint(str(prefix))
