"""Wrong argument types and values in the public API: a TypeError or
ValueError at the call naming the function, the argument and what was
given (never a traceback from inside the package, never a silent
conversion: a fractional size truncated, None taken as the file name
"None" or as float64). TF's own answer is noted for each: inflow raises
where TF does, and also where TF truncates or converts silently
(docs/conformance.md, "Python: argument checks")."""
import numpy as np
import pytest

import inflow
from inflow import errors


@pytest.fixture(autouse=True)
def _own_runners():
    inflow.train._coordination._clear_queue_runners()
    yield
    inflow.train._coordination._clear_queue_runners()


def node():
    return inflow.constant(np.array([1], np.int64))


TYPE_ERRORS = [
    # (call, what the message names); TF: TypeError unless noted.
    (lambda: inflow.train.string_input_producer([None, "a"]), r"string_tensor\[0\]"),
    (lambda: inflow.train.string_input_producer([5, "a"]), r"string_tensor\[0\]"),
    (lambda: inflow.train.string_input_producer(None), "string_tensor"),  # TF: ValueError
    (lambda: inflow.train.string_input_producer("ab"), "string_tensor"),  # TF: ValueError
    (lambda: inflow.train.string_input_producer(["a"], num_epochs=1.5), "num_epochs"),
    (lambda: inflow.train.string_input_producer(["a"], capacity=2.5), "capacity"),  # TF: 2
    (lambda: inflow.train.string_input_producer(["a"], capacity=None), "capacity"),
    (lambda: inflow.train.range_input_producer(2.5), "limit"),  # TF: a float queue
    (lambda: inflow.train.range_input_producer(None), "limit"),
    (lambda: inflow.train.slice_input_producer([np.arange(3)], num_epochs="2"),
     "num_epochs"),
    (lambda: inflow.train.input_producer(np.arange(3), capacity=1.5), "capacity"),
    (lambda: inflow.FIFOQueue(10, None), "dtypes"),  # was a float64 queue
    (lambda: inflow.FIFOQueue(10, [None]), r"dtypes\[0\]"),
    (lambda: inflow.FIFOQueue(2.5, np.int32), "capacity"),  # TF: truncated to 2
    (lambda: inflow.FIFOQueue("3", np.int32), "capacity"),
    (lambda: inflow.FIFOQueue(3, np.int32, shapes=[[1.5]]), "shapes"),
    (lambda: inflow.FIFOQueue(3, np.int32, shapes=[["a"]]), "shapes"),
    (lambda: inflow.PriorityQueue(3, [None], shapes=[[]]), r"types\[0\]"),
    (lambda: inflow.RandomShuffleQueue(3, 1.5, np.int32), "min_after_dequeue"),
    (lambda: inflow.FIFOQueue(3, np.int32, shapes=[[]]).dequeue_many(2.5), "n"),
    (lambda: inflow.FIFOQueue(3, np.int32, shapes=[[]]).dequeue_up_to(None), "n"),
    (lambda: inflow.train.batch([node()], batch_size=2.5), "batch_size"),
    (lambda: inflow.train.batch([node()], batch_size=None), "batch_size"),
    (lambda: inflow.train.batch([node()], batch_size="2"), "batch_size"),
    (lambda: inflow.train.batch([node()], batch_size=2, num_threads=1.5), "num_threads"),
    (lambda: inflow.train.batch([node()], batch_size=2, capacity=2.5), "capacity"),
    (lambda: inflow.train.batch([node()], batch_size=2, shapes=[[1.5]]), "shapes"),
    (lambda: inflow.train.shuffle_batch([node()], 2, capacity=10, min_after_dequeue=None),
     "min_after_dequeue"),
    (lambda: inflow.train.shuffle_batch([node()], 2, capacity=10, min_after_dequeue=1.5),
     "min_after_dequeue"),
    (lambda: inflow.TextLineReader().read_up_to(
        inflow.train.string_input_producer(["a"]), 2.5), "num_records"),
    (lambda: inflow.FixedLengthRecordReader(2.5), "record_bytes"),  # TF: accepted
    (lambda: inflow.TextLineReader(skip_header_lines=1.5), "skip_header_lines"),
    (lambda: inflow.Pipeline(None), "files"),
    (lambda: inflow.Pipeline([None]), r"files\[0\]"),
    (lambda: inflow.Pipeline("x", batch_size=None), "batch_size"),
    (lambda: inflow.Pipeline("x", batch_size=2.5), "batch_size"),
    (lambda: inflow.Pipeline("x", num_readers=1.5), "num_readers"),
    (lambda: inflow.Pipeline("x", num_epochs=1.5), "num_epochs"),
    (lambda: inflow.Pipeline("x", capacity=None), "capacity"),
    (lambda: inflow.py_func(lambda x: x, [node()], None), "dtype"),
    (lambda: inflow.reshape(node(), [0.5, 2]), "reshape: shape"),
    (lambda: inflow.parse_single_example(b"", {"x": inflow.FixedLenFeature([1.5], "int64")}),
     "shape"),
    (lambda: inflow.Pipeline("x", features={"x": inflow.FixedLenFeature([], "string")},
                             raw_to_float={"x": (2.5, 1.0)}), "raw_to_float"),
    (lambda: inflow.parse_single_example(b"", {"x": inflow.FixedLenFeature([], None)}),
     "'x'"),
]


@pytest.mark.parametrize("call,names", TYPE_ERRORS, ids=[str(i) for i in
                                                         range(len(TYPE_ERRORS))])
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, names):
    with pytest.raises(TypeError, match=names):
        call()


def test_an_unknown_dtype_is_invalid_argument_naming_the_argument():
    with pytest.raises(errors.InvalidArgumentError, match="FIFOQueue: dtypes.*'foo'"):
        inflow.FIFOQueue(10, "foo")
    with pytest.raises(errors.InvalidArgumentError, match=r"cast: dtype.*datetime64"):
        inflow.cast(np.arange(2), "datetime64")
    # complex64 is a dtype (checkpoints hold it) that cast does not convert to
    # (TF's does): an UnimplementedError naming both dtypes.
    with pytest.raises(errors.UnimplementedError, match="Cast int64 to complex64"):
        inflow.cast(np.arange(2), "complex64")


def test_wrong_values_are_value_errors_as_tf():
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        inflow.train.string_input_producer(["a"], num_epochs=0)  # TF: the same
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        inflow.train.slice_input_producer([np.arange(3)], num_epochs=-1)
    with pytest.raises(ValueError, match="shapes"):
        inflow.FIFOQueue(3, np.int32, shapes=[[-2]])  # TF: "Dimension -2 must be >= 0"


def test_tfs_defaults_given_as_none_are_taken():
    # TF takes None as the op's default: an unbounded queue, no minimum.
    assert inflow.FIFOQueue(None, np.int32).capacity == 2 ** 31 - 1
    q = inflow.RandomShuffleQueue(3, None, np.int32)
    q.enqueue(np.int32(1))
    assert q.dequeue(timeout=0) == 1
    # Integral values of other kinds are ints.
    assert inflow.FIFOQueue(np.int64(3), "int32").capacity == 3
