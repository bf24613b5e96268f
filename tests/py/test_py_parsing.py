"""parse_single_example / parse_example / decode_raw against TensorFlow's on
the same inputs: values, dtypes and shapes, SparseTensorValue for
VarLenFeature, and InvalidArgumentError where TF raises it."""
import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors


def feature(v):
    if isinstance(v, list) and v and isinstance(v[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    if isinstance(v, list) and v and isinstance(v[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def example(**features):
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in features.items()})).SerializeToString()


EXAMPLES = [
    example(id=[1], vec=[1.0, 2.0, 3.0], name=[b"one"], tags=[b"a", b"b"], seq=[1, 2, 3, 4]),
    example(id=[2], vec=[4.0, 5.0, 6.0], name=[b""], seq=[5, 6]),
    example(id=[3], vec=[7.0, 8.0, 9.0], tags=[b"c"], ids=[7, 8, 9], seq=[]),
]


def specs(mod):
    """The same configuration in TF's and in inflow's classes."""
    return {
        "id": mod.FixedLenFeature([], mod_dtype(mod, "int64")),
        "vec": mod.FixedLenFeature([3], mod_dtype(mod, "float32")),
        "name": mod.FixedLenFeature([], mod_dtype(mod, "string"), default_value=b"none"),
        "tags": mod.VarLenFeature(mod_dtype(mod, "string")),
        "ids": mod.VarLenFeature(mod_dtype(mod, "int64")),
        "seq": mod.FixedLenSequenceFeature([2], mod_dtype(mod, "int64"), allow_missing=True,
                                           default_value=-1),
    }


def mod_dtype(mod, name):
    return getattr(tf, name) if mod is tf.io else name


def as_numpy(value):
    if isinstance(value, tf.sparse.SparseTensor):
        return inflow.SparseTensorValue(value.indices.numpy(), value.values.numpy(),
                                        value.dense_shape.numpy())
    return value.numpy()


def assert_same(got, want):
    assert set(got) == set(want)
    for key in want:
        g, w = got[key], as_numpy(want[key])
        if isinstance(w, inflow.SparseTensorValue):
            assert isinstance(g, inflow.SparseTensorValue), key
            for a, b in zip(g, w):
                np.testing.assert_array_equal(a, b)
                assert np.asarray(a).dtype == np.asarray(b).dtype, key
        else:
            np.testing.assert_array_equal(g, w)
            assert np.shape(g) == np.shape(w), key
            assert np.asarray(g).dtype == np.asarray(w).dtype, key


def test_parse_example_matches_tf():
    got = inflow.parse_example(EXAMPLES, specs(inflow))
    want = tf.io.parse_example(tf.constant(EXAMPLES), specs(tf.io))
    assert_same(got, want)


def test_parse_example_takes_arrays_and_tuples():
    want = inflow.parse_example(EXAMPLES, specs(inflow))
    for serialized in [tuple(EXAMPLES), np.array(EXAMPLES, dtype=object),
                       np.array(EXAMPLES)]:
        got = inflow.parse_example(serialized, specs(inflow))
        for key in ["id", "vec", "name", "seq"]:
            np.testing.assert_array_equal(got[key], want[key])


@pytest.mark.parametrize("i", range(len(EXAMPLES)))
def test_parse_single_example_matches_tf(i):
    got = inflow.parse_single_example(EXAMPLES[i], specs(inflow))
    want = tf.io.parse_single_example(tf.constant(EXAMPLES[i]), specs(tf.io))
    assert_same(got, want)


def test_top_level_and_io_names_are_the_same():
    assert inflow.io.parse_example is inflow.parse_example
    assert inflow.io.FixedLenFeature is inflow.FixedLenFeature


def test_fixed_len_default_of_a_shape():
    f = {"v": inflow.FixedLenFeature([2, 2], np.float32, default_value=[1, 2, 3, 4])}
    got = inflow.parse_single_example(example(other=[1]), f)
    want = tf.io.parse_single_example(example(other=[1]), {
        "v": tf.io.FixedLenFeature([2, 2], tf.float32, default_value=[1, 2, 3, 4])})
    assert_same(got, want)


def test_dense_results_view_inflows_tensors():
    got = inflow.parse_example(EXAMPLES, {"vec": inflow.FixedLenFeature([3], "float32")})
    vec = got["vec"]
    # No copy out of C++: the array's memory is the parsed tensor's buffer.
    assert inflow._inflow._buffer_address(vec) == vec.__array_interface__["data"][0]


def test_dense_results_are_writable_arrays():
    got = inflow.parse_example(EXAMPLES, {"vec": inflow.FixedLenFeature([3], "float32")})
    assert got["vec"].flags.c_contiguous
    got["vec"][0, 0] = 42  # an array of its own, not a view of the records


ERROR_CASES = [
    ("missing required", [example(other=[1])], {"id": ("fixed", [], "int64")}),
    ("wrong kind", [example(id=[1.5])], {"id": ("fixed", [], "int64")}),
    ("wrong count", [example(vec=[1.0, 2.0])], {"vec": ("fixed", [3], "float32")}),
    ("malformed bytes", [b"\x0a\x05abc"], {"id": ("fixed", [], "int64")}),
    ("var wrong kind", [example(tags=[1, 2])], {"tags": ("var", None, "string")}),
    ("sequence bad count", [example(seq=[1, 2, 3])],
     {"seq": ("sequence", [2], "int64")}),
]


def build(mod, spec):
    out = {}
    for key, (kind, shape, dtype) in spec.items():
        d = mod_dtype(mod, dtype)
        if kind == "fixed":
            out[key] = mod.FixedLenFeature(shape, d)
        elif kind == "var":
            out[key] = mod.VarLenFeature(d)
        else:
            out[key] = mod.FixedLenSequenceFeature(shape, d, allow_missing=True)
    return out


@pytest.mark.parametrize("name,serialized,spec", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_are_tfs(name, serialized, spec):
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example(tf.constant(serialized), build(tf.io, spec))
    with pytest.raises(errors.InvalidArgumentError) as e:
        inflow.parse_example(serialized, build(inflow, spec))
    assert e.value.error_code == errors.INVALID_ARGUMENT
    assert list(spec)[0] in e.value.message or "malformed" in name
    with pytest.raises(errors.InvalidArgumentError):
        inflow.parse_single_example(serialized[0], build(inflow, spec))


def test_bad_configuration_is_rejected():
    with pytest.raises(ValueError):
        inflow.parse_example(EXAMPLES, {})
    with pytest.raises(errors.InvalidArgumentError):
        inflow.parse_example(EXAMPLES, {"x": inflow.FixedLenFeature([-1], "int64")})
    with pytest.raises(ValueError):
        inflow.parse_example(EXAMPLES[0], {"id": inflow.FixedLenFeature([], "int64")})


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.float32,
                                   np.float64, np.uint16])
@pytest.mark.parametrize("little_endian", [True, False])
def test_decode_raw_matches_tf(dtype, little_endian):
    data = bytes(range(48))
    got = inflow.decode_raw(data, dtype, little_endian=little_endian)
    want = tf.io.decode_raw(data, tf.as_dtype(dtype), little_endian=little_endian).numpy()
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    batch = np.array([data, data[::-1]], dtype=object)
    got = inflow.decode_raw(batch, dtype, little_endian=little_endian)
    want = tf.io.decode_raw(tf.constant(list(batch)), tf.as_dtype(dtype),
                            little_endian=little_endian).numpy()
    np.testing.assert_array_equal(got, want)
    assert got.shape == want.shape


def test_decode_raw_errors_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.decode_raw(b"abc", tf.int16)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.decode_raw(b"abc", np.int16)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.decode_raw([b"ab", b"abcd"], np.int16)


def test_decode_raw_to_float_is_cast_times_scale():
    data = bytes(range(200, 256)) + bytes(range(8))
    got = inflow.decode_raw_to_float(data, 1 / 255)
    want = (tf.cast(tf.io.decode_raw(data, tf.uint8), tf.float32) * (1 / 255)).numpy()
    np.testing.assert_array_equal(got, want)
    got = inflow.decode_raw_to_float([data, data], 2.0)
    assert got.shape == (2, len(data)) and got.dtype == np.float32
    np.testing.assert_array_equal(got[1], np.frombuffer(data, np.uint8).astype(np.float32) * 2)
