"""Tensors and NumPy: every dtype both ways, zero copy proven, lifetimes.

Zero copy: a C-contiguous array enqueued and dequeued comes back as a view
of the very same memory (its data pointer equals the enqueued array's), and
every dequeued array's data pointer equals the inflow buffer under it
(_inflow._buffer_address reads the tensor the array's base holds).
"""
import gc
import sys

import ml_dtypes
import numpy as np
import pytest

import inflow
from inflow import _inflow, errors

NUMERIC = [np.float32, np.float64, np.int32, np.uint8, np.int16, np.int8,
           np.int64, np.bool_, np.uint16, np.float16, np.uint32, np.uint64,
           ml_dtypes.bfloat16]


def address(arr):
    return arr.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_every_numeric_dtype_round_trips_without_a_copy(dtype):
    arr = (np.arange(12) % 7).astype(dtype).reshape(3, 4)
    q = inflow.FIFOQueue(2, [dtype], shapes=[[3, 4]])
    q.enqueue(arr)
    out = q.dequeue()
    assert out.dtype == np.dtype(dtype)
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(out.astype(np.float64), arr.astype(np.float64))
    if dtype is not ml_dtypes.bfloat16:
        assert address(out) == address(arr)  # the same memory
    assert _inflow._buffer_address(out) == address(out)
    assert _inflow.dtype_name(dtype) == np.dtype(dtype).name


def test_dequeue_many_views_inflows_batch_buffer():
    q = inflow.FIFOQueue(8, [np.float32, np.int64], shapes=[[2], []])
    for i in range(4):
        q.enqueue([np.full([2], i, np.float32), np.int64(i)])
    x, y = q.dequeue_many(4)
    assert isinstance(x.base, _inflow._TensorView)
    assert _inflow._buffer_address(x[1:]) == address(x)  # a view of it
    assert _inflow._buffer_address(x) == address(x)
    assert _inflow._buffer_address(y) == address(y)
    assert address(x) % 64 == 0  # inflow's aligned batch buffer
    np.testing.assert_array_equal(y, np.arange(4))
    assert x.flags.writeable  # a fresh batch buffer is inflow's own
    with pytest.raises(TypeError):
        _inflow._buffer_address(np.zeros(3))


def test_read_only_arrays_stay_read_only_and_writable_ones_writable():
    q = inflow.FIFOQueue(4, [np.int32])
    ro = np.arange(5, dtype=np.int32)
    ro.flags.writeable = False
    q.enqueue(ro)
    out = q.dequeue()
    assert not out.flags.writeable
    with pytest.raises(ValueError):
        out[0] = 1
    rw = np.arange(5, dtype=np.int32)
    q.enqueue(rw)
    out = q.dequeue()
    assert out.flags.writeable and address(out) == address(rw)


def test_non_contiguous_and_python_values_are_converted():
    q = inflow.FIFOQueue(4, [np.float32], shapes=[[3]])
    base = np.arange(6, dtype=np.float32)
    strided = base[::2]
    q.enqueue(strided)
    out = q.dequeue()
    np.testing.assert_array_equal(out, [0, 2, 4])
    assert address(out) != address(strided)  # had to be copied
    q.enqueue(([1, 2, 3],))  # a Python list as the one component
    np.testing.assert_array_equal(q.dequeue(), [1, 2, 3])
    q.enqueue(np.arange(3, dtype=np.float64))  # same-kind cast (a copy)
    assert q.dequeue().dtype == np.float32
    with pytest.raises(TypeError):
        q.enqueue(np.array(["a", "b", "c"]))
    qi = inflow.FIFOQueue(4, [np.int64], shapes=[[2]])
    with pytest.raises(TypeError):
        qi.enqueue(np.array([1.5, 2.5]))  # float -> int is not same-kind
    with pytest.raises(TypeError):
        qi.enqueue(([1.5, 2.0],))


def test_strings_are_object_arrays_of_bytes_and_scalars_are_numpy_scalars():
    q = inflow.FIFOQueue(4, ["string", np.float32, "string"],
                         shapes=[[2], [], []])
    q.enqueue([[b"ab", "c\u00e9"], 1.5, b"x\x00y"])
    s, f, b = q.dequeue()
    assert s.dtype == object and s.tolist() == [b"ab", "c\u00e9".encode()]
    assert type(f) is np.float32 and f == 1.5
    assert b == b"x\x00y" and type(b) is bytes
    q.enqueue([np.array([b"1", b"22"], dtype="S2"), np.float32(0), "s"])
    assert q.dequeue()[0].tolist() == [b"1", b"22"]
    with pytest.raises(TypeError):
        q.enqueue([[1, 2], 1.5, b"x"])


def test_empty_and_scalar_tensors():
    q = inflow.PaddingFIFOQueue(4, [np.int8], shapes=[[None, 3]])
    q.enqueue(np.zeros([0, 3], np.int8))
    out = q.dequeue()
    assert out.shape == (0, 3) and out.dtype == np.int8
    assert _inflow._roundtrip(np.int64(7)) == 7
    assert _inflow._roundtrip(b"") == b""


def test_enqueued_array_is_kept_alive_and_released():
    q = inflow.FIFOQueue(4, [np.float64])
    arr = np.arange(1000, dtype=np.float64)
    before = sys.getrefcount(arr)
    q.enqueue(arr)
    assert sys.getrefcount(arr) == before + 1  # the tensor's reference
    out = q.dequeue()
    del out
    gc.collect()
    assert sys.getrefcount(arr) == before
    # The queue alone keeps an array alive.
    q.enqueue(np.full(10, 3.0))
    gc.collect()
    np.testing.assert_array_equal(q.dequeue(), np.full(10, 3.0))


def test_dequeued_array_outlives_its_queue():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[3]])
    q.enqueue_many([np.arange(6).reshape(2, 3)])
    out = q.dequeue_many(2)
    del q
    gc.collect()
    np.testing.assert_array_equal(out, np.arange(6).reshape(2, 3))


def test_dtype_spellings():
    import tensorflow as tf
    assert _inflow.dtype_name(float) == "float32"
    assert _inflow.dtype_name(int) == "int64"
    assert _inflow.dtype_name(bool) == "bool"
    for s in (bytes, str, "string", object, np.dtype("S5"), tf.string):
        assert _inflow.dtype_name(s) == "string"
    assert _inflow.dtype_name(tf.float16) == "float16"
    assert _inflow.dtype_name("double") == "float64"
    assert _inflow.as_numpy_dtype("string") == np.dtype(object)
    assert _inflow.as_numpy_dtype("bfloat16") == np.dtype(ml_dtypes.bfloat16)
    assert _inflow.dtype_name(np.complex64) == "complex64"
    assert _inflow.dtype_name(tf.complex128) == "complex128"
    assert _inflow.as_numpy_dtype("complex128") == np.dtype(np.complex128)
    with pytest.raises(errors.InvalidArgumentError):
        _inflow.dtype_name("qint8")
    with pytest.raises(errors.InvalidArgumentError):
        _inflow.dtype_name(np.datetime64)


def test_tf_dtype_names_at_the_top_level():
    q = inflow.FIFOQueue(2, [inflow.float32, inflow.string, inflow.int64])
    assert q.dtypes == [inflow.float32, inflow.string, inflow.int64]
    assert inflow.string == np.dtype(object) and inflow.bool == np.bool_
    assert inflow.bfloat16 == ml_dtypes.bfloat16
    for name in ("float16", "float64", "int8", "int16", "int32", "uint8",
                 "uint16", "uint32", "uint64"):
        assert getattr(inflow, name) == np.dtype(name)


def test_import_inflow_does_not_import_ml_dtypes_and_bfloat16_still_works():
    # ml_dtypes costs most of `import inflow`'s time: it is imported when
    # bfloat16 is first used, by the attribute or by a bfloat16 tensor.
    import subprocess
    code = """
import sys
import numpy as np
import inflow
assert "ml_dtypes" not in sys.modules, "import inflow imported ml_dtypes"
q = inflow.FIFOQueue(2, [np.float32, "string"])
q.enqueue([np.float32(1.5), b"x"])
q.dequeue()
assert "ml_dtypes" not in sys.modules, "a float32 queue imported ml_dtypes"
q = inflow.FIFOQueue(2, "bfloat16")
q.enqueue(np.array([1.5, -2.0]))
out = q.dequeue()
import ml_dtypes
assert out.dtype == ml_dtypes.bfloat16, out.dtype
assert out.astype(np.float32).tolist() == [1.5, -2.0]
assert inflow.bfloat16 == ml_dtypes.bfloat16
assert "bfloat16" in dir(inflow) or inflow.bfloat16 is not None
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    code = """
import sys
import inflow
b = inflow.bfloat16
import ml_dtypes
assert b == ml_dtypes.bfloat16
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_tensor_of_more_dimensions_than_numpy_1_allows_is_a_clear_error():
    # NumPy 2 makes arrays of up to 64 dimensions, NumPy 1 of up to 32:
    # inflow hands out at most 32, whichever NumPy runs.
    fine = np.zeros([1] * 32, np.float32)
    assert _inflow._roundtrip(fine).shape == fine.shape
    with pytest.raises(ValueError, match="at most 32 dimensions; the tensor has 33"):
        _inflow._roundtrip(np.zeros([1] * 33, np.float32))
