"""Exception classes named as TensorFlow's ``tf.errors``, one per status code.

Every error inflow reports is an :class:`OpError` subclass carrying TF's
canonical ``error_code`` (an int: ``OUT_OF_RANGE`` is 11) and the
``message``::

    try:
        q.dequeue()
    except inflow.errors.OutOfRangeError as e:
        assert e.error_code == inflow.errors.OUT_OF_RANGE

The hierarchy is TF's: ``OutOfRangeError`` is not a ``StopIteration``;
inflow's iterators translate it themselves.
"""

from inflow import _inflow

OpError = _inflow.OpError
CancelledError = _inflow.CancelledError
UnknownError = _inflow.UnknownError
InvalidArgumentError = _inflow.InvalidArgumentError
DeadlineExceededError = _inflow.DeadlineExceededError
NotFoundError = _inflow.NotFoundError
AlreadyExistsError = _inflow.AlreadyExistsError
PermissionDeniedError = _inflow.PermissionDeniedError
ResourceExhaustedError = _inflow.ResourceExhaustedError
FailedPreconditionError = _inflow.FailedPreconditionError
AbortedError = _inflow.AbortedError
OutOfRangeError = _inflow.OutOfRangeError
UnimplementedError = _inflow.UnimplementedError
InternalError = _inflow.InternalError
UnavailableError = _inflow.UnavailableError
DataLossError = _inflow.DataLossError
UnauthenticatedError = _inflow.UnauthenticatedError

# TF's canonical codes (tf.errors.OK, ...).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

_EXCEPTION_CLASSES = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}


def exception_type_from_error_code(error_code):
    """The exception class for ``error_code`` (tf.errors's function).

    Raises KeyError for a code that has no class (including OK).
    """
    return _EXCEPTION_CLASSES[error_code]


def error_code_from_exception_type(cls):
    """The code of the exception class ``cls`` (tf.errors's function).

    Raises KeyError for a class that is not one of inflow.errors's.
    """
    for code, c in _EXCEPTION_CLASSES.items():
        if c is cls:
            return code
    raise KeyError(cls)


__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "UnauthenticatedError",
    "exception_type_from_error_code", "error_code_from_exception_type",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]
