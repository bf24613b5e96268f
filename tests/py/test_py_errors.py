"""inflow.errors: one class per canonical code, raised by real failures.

Every class is TF's name (tf.errors), derives from OpError, and carries TF's
code and the message; the codes are TF's numbers. Real operations raise
them: a dequeue on a closed empty queue (OUT_OF_RANGE, 11), an enqueue on a
closed queue (CANCELLED, 1), a timeout (DEADLINE_EXCEEDED, 4), a bad shape
or dtype (INVALID_ARGUMENT, 3).
"""
import pickle

import numpy as np
import pytest

import inflow
from inflow import _inflow, errors

CLASSES = {
    1: "CancelledError", 2: "UnknownError", 3: "InvalidArgumentError",
    4: "DeadlineExceededError", 5: "NotFoundError", 6: "AlreadyExistsError",
    7: "PermissionDeniedError", 8: "ResourceExhaustedError",
    9: "FailedPreconditionError", 10: "AbortedError", 11: "OutOfRangeError",
    12: "UnimplementedError", 13: "InternalError", 14: "UnavailableError",
    15: "DataLossError",
}


@pytest.mark.parametrize("code,name", sorted(CLASSES.items()))
def test_each_status_code_raises_its_class_with_code_and_message(code, name):
    cls = getattr(errors, name)
    with pytest.raises(cls) as info:
        _inflow._raise_status(code, "what went wrong: é")
    e = info.value
    assert type(e) is cls
    assert isinstance(e, errors.OpError) and isinstance(e, Exception)
    assert e.error_code == code
    assert e.message == "what went wrong: é"
    assert str(e) == e.message
    assert e.op is None and e.node_def is None
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code


def test_names_codes_and_hierarchy_are_tensorflows():
    import tensorflow as tf
    for code, name in CLASSES.items():
        assert hasattr(tf.errors, name), name
        assert getattr(tf.errors, name)(None, None, "m").error_code == code
        constant = {"CancelledError": "CANCELLED"}.get(name)
        if constant:
            assert getattr(errors, constant) == getattr(tf.errors, constant)
    for constant in ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT",
                     "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
                     "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                     "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                     "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                     "UNAUTHENTICATED"):
        assert getattr(errors, constant) == getattr(tf.errors, constant), constant
    assert errors.UnauthenticatedError(None, None, "m").error_code == 16
    # TF's hierarchy: OutOfRangeError is no StopIteration.
    assert not issubclass(errors.OutOfRangeError, StopIteration)
    assert errors.OpError.__module__ == "inflow.errors"
    assert errors.OutOfRangeError.__module__ == "inflow.errors"


def test_constructed_like_tf_and_picklable():
    e = errors.DataLossError(None, None, "corrupt record at offset 12")
    assert e.error_code == errors.DATA_LOSS and e.message.endswith("12")
    base = errors.OpError(None, None, "custom", errors.ABORTED)
    for original in (e, base):
        copy = pickle.loads(pickle.dumps(original))
        assert type(copy) is type(original)
        assert (copy.error_code, copy.message) == (original.error_code,
                                                   original.message)


def test_unknown_code_becomes_unknown_error():
    with pytest.raises(errors.UnknownError):
        _inflow._raise_status(99, "no such code")
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(0)
    with pytest.raises(KeyError):
        errors.error_code_from_exception_type(ValueError)


def test_real_failures_raise_their_classes():
    q = inflow.FIFOQueue(1, [np.int64], shapes=[[]], name="errs")
    with pytest.raises(errors.DeadlineExceededError) as info:
        q.dequeue(timeout=0.01)
    assert info.value.error_code == 4 and "errs" in info.value.message
    q.enqueue(np.int64(1))
    with pytest.raises(errors.DeadlineExceededError):
        q.enqueue(np.int64(2), timeout=0)
    with pytest.raises(errors.InvalidArgumentError) as info:
        q.enqueue(np.zeros([2], np.int64))
    assert info.value.error_code == 3
    q.close()
    with pytest.raises(errors.CancelledError) as info:
        q.enqueue(np.int64(3))
    assert info.value.error_code == 1
    with pytest.raises(errors.CancelledError):
        q.close()  # a second close, as TF 2.18
    assert q.dequeue() == 1
    with pytest.raises(errors.OutOfRangeError) as info:
        q.dequeue()
    assert info.value.error_code == 11
    assert "closed" in info.value.message
    with pytest.raises(errors.InvalidArgumentError):
        inflow.FIFOQueue(1, ["qint8"])
    with pytest.raises(errors.InvalidArgumentError):
        inflow.FIFOQueue(2**31, [np.int64])
    shared = inflow.FIFOQueue(2, [np.int64], shared_name="errors_shared")
    with pytest.raises(errors.InvalidArgumentError):
        inflow.FIFOQueue(3, [np.int64], shared_name="errors_shared")
    del shared
