"""Argument checks shared by the public API: a wrong type or value is a
TypeError or ValueError naming the function, the argument and what was
given, raised where the call is made (never a traceback from inside the
package, never a silent conversion such as a float batch size truncated or
None turned into the name "None")."""

import numbers
import os

import numpy as np

__all__ = ["check_int", "check_optional_int", "check_path", "check_strings",
           "check_dtype", "check_dtypes"]


def _given(value):
    return f"{value!r} ({type(value).__name__})"


def check_int(func, arg, value, minimum=None):
    """``value`` as an int: an int or NumPy integer (not a bool, not a float
    even when whole, not None); ValueError below ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{func}: {arg} must be an int, got {_given(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{func}: {arg} must be >= {minimum}, got {value}")
    return value


def check_optional_int(func, arg, value, minimum=None):
    """None, or check_int(...)."""
    return None if value is None else check_int(func, arg, value, minimum)


def check_path(func, arg, value):
    """A file name as str: str, bytes (decoded as the OS does) or an
    os.PathLike."""
    if isinstance(value, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(value))
        return path
    raise TypeError(f"{func}: {arg} must be a str, bytes or os.PathLike, "
                    f"got {_given(value)}")


def check_strings(func, arg, values):
    """A list of str from a list, tuple or array of str / bytes (bytes
    decoded as UTF-8, undecodable bytes kept by surrogateescape). A single
    str is refused (TF would take its characters as names), and so is any
    element that is not a string (None is no file name)."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{func}: {arg} must be a list of strings, got a single "
                        f"string {values!r}; pass [{values!r}]")
    if values is None or not isinstance(values, (list, tuple, np.ndarray)):
        raise TypeError(f"{func}: {arg} must be a list of strings, got "
                        f"{_given(values)}")
    out = []
    for i, v in enumerate(np.asarray(values, dtype=object).reshape(-1)):
        if isinstance(v, (bytes, np.bytes_)):
            v = bytes(v).decode("utf-8", "surrogateescape")
        elif isinstance(v, os.PathLike):
            v = os.fsdecode(os.fspath(v))
        elif not isinstance(v, str):
            raise TypeError(f"{func}: {arg}[{i}] must be a str or bytes, got "
                            f"{_given(v)}")
        out.append(str(v))
    return out


def check_dtype(func, arg, value):
    """A dtype as inflow takes it (a numpy dtype or type, a Python type, a
    TF-style name or object): its numpy dtype. None is a TypeError naming
    the argument; a dtype inflow does not hold ("complex64", "foo") is
    InvalidArgumentError naming it."""
    from inflow import _inflow
    from inflow.errors import InvalidArgumentError
    if value is None:
        raise TypeError(f"{func}: {arg} must be a dtype, got None")
    try:
        return _inflow.as_numpy_dtype(value)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(None, None, f"{func}: {arg}: {e.message}") from None


def check_dtypes(func, arg, values):
    """One dtype or a list/tuple of them: a list of check_dtype results
    (``arg[i]`` named for a bad element)."""
    if isinstance(values, (list, tuple)):
        if not values:
            raise ValueError(f"{func}: {arg} must name at least one dtype, got "
                             f"{values!r}")
        return [check_dtype(func, f"{arg}[{i}]", v) for i, v in enumerate(values)]
    return [check_dtype(func, arg, values)]
