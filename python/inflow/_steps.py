"""Deferred values: TF1's graph tensors without a graph.

``reader.read(queue)``, ``parse_single_example(value, ...)`` on a Node,
``decode_raw``, ``cast``, ``one_hot`` and ``reshape`` on a Node,
``slice_input_producer`` and ``py_func`` return
``inflow.Node`` objects: one output of a step that runs later, in C++. The
batching calls (``inflow.train.batch`` ...) run them on inflow's threads,
once per element, without the GIL; ``inflow.run`` runs them once here, as
``sess.run`` would.
"""

import numpy as np

from inflow import _inflow
from inflow._validate import check_dtype, check_int
from inflow.io._parsing import SparseTensorValue, _np_dtype

Node = _inflow.Node

__all__ = ["Node", "run", "py_func", "reshape", "constant", "cast", "one_hot"]


def _as_node(value):
    """A Node for a Node or a constant value."""
    if isinstance(value, Node):
        return value
    if isinstance(value, SparseTensorValue):
        raise TypeError("a SparseTensorValue is not a single value; pass its fields")
    return _inflow._constant_step([value])[0]


def constant(value):
    """A Node always giving ``value`` (an array-like)."""
    return _as_node(value)


def _flatten(fetches, nodes, batches):
    """The structure of `fetches` with each Node replaced by its index in
    `nodes`; batching outputs (and their components) are noted in
    `batches`, to be dequeued once each."""
    from inflow.train._input import BatchComponent, BatchOutput
    if isinstance(fetches, Node):
        nodes.append(fetches)
        return ("node", len(nodes) - 1)
    if isinstance(fetches, SparseTensorValue):
        return ("sparse", [_flatten(f, nodes, batches) for f in fetches])
    if isinstance(fetches, BatchOutput):
        batches.setdefault(id(fetches), fetches)
        return ("batch", id(fetches))
    if isinstance(fetches, BatchComponent):
        batches.setdefault(id(fetches._output), fetches._output)
        return ("component", (id(fetches._output), fetches._index))
    if isinstance(fetches, dict):
        return ("dict", {k: _flatten(v, nodes, batches) for k, v in fetches.items()})
    if isinstance(fetches, (list, tuple)):
        return ("list" if isinstance(fetches, list) else "tuple",
                [_flatten(f, nodes, batches) for f in fetches])
    raise TypeError(f"inflow.run: cannot fetch {type(fetches).__name__}")


def _rebuild(spec, values, dequeued):
    kind, body = spec
    if kind == "node":
        return values[body]
    if kind == "sparse":
        return SparseTensorValue(*[_rebuild(s, values, dequeued) for s in body])
    if kind == "batch":
        output, raw = dequeued[body]
        return output._shape(raw)
    if kind == "component":
        return dequeued[body[0]][1][body[1]]
    if kind == "dict":
        return {k: _rebuild(s, values, dequeued) for k, s in body.items()}
    items = [_rebuild(s, values, dequeued) for s in body]
    return items if kind == "list" else tuple(items)


def run(fetches, timeout=None):
    """Evaluates ``fetches`` once (``sess.run``): a Node, a batching call's
    output or its components, or a list, tuple or dict of them. Every step
    runs once however many Nodes use it (``key, value`` of one read are one
    record), in C++ with the GIL released; each batching output is dequeued
    once (``images, labels = shuffle_batch(...)``; ``run([images,
    labels])`` is one batch). Errors are the steps' (OutOfRangeError at the
    end of input); ``timeout`` (seconds) bounds each wait; Ctrl-C
    interrupts it."""
    nodes, batches = [], {}
    spec = _flatten(fetches, nodes, batches)
    dequeued = {k: (b, b._next(timeout)) for k, b in batches.items()}
    values = _inflow._run(nodes, timeout) if nodes else []
    return _rebuild(spec, values, dequeued)


def py_func(func, inp, Tout, stateful=True, name=None, shapes=None):
    """A Python function as a step (``tf.compat.v1.py_func``).

    ``func`` gets the values of ``inp`` (Nodes or constants) as NumPy arrays
    and returns one array-like per ``Tout`` dtype (one value when ``Tout``
    is a single dtype). It runs on inflow's threads with the GIL taken for
    the call only. Raising StopIteration ends the input (OutOfRangeError,
    as TF's py_func); other exceptions stop the pipeline with their
    traceback in the message. ``shapes``: the static shape of each output,
    one per output even for a single ``Tout`` (None: unknown), needed by
    batching calls.
    """
    single = not isinstance(Tout, (list, tuple))
    dtypes = [_np_dtype(Tout)] if single else [_np_dtype(t) for t in Tout]
    nodes = _inflow._py_func_step(func, [_as_node(i) for i in inp], dtypes,
                                  None if shapes is None else [
                                      None if s is None else list(s) for s in shapes],
                                  not single)
    return nodes[0] if single else nodes


def reshape(tensor, shape, name=None):
    """``tf.reshape``: a Node (or array) with the same elements in ``shape``;
    one dimension may be -1."""
    if isinstance(tensor, Node):
        return _inflow._reshape_step(tensor, [check_int("reshape", "shape", d, minimum=-1)
                                              for d in shape])
    return np.reshape(tensor, shape)



def cast(x, dtype, name=None):
    """``tf.cast``: ``x`` (a Node, an array-like or a SparseTensorValue,
    whose values are cast) as ``dtype``, shape unchanged. A Node gives a
    Node; a value gives a NumPy array at once, computed the same way.

    As TF: integers wrap; floats to integers truncate toward zero, and NaN,
    infinities and values out of range give int32's and int64's minimum
    (the narrower types take the low bits of the int32 result, uint32 and
    uint64 those of the int64 one); to bool is ``x != 0``; float16 and
    bfloat16 round to nearest even. UnimplementedError for strings
    (docs/conformance.md, "Python: cast and one_hot")."""
    dtype = check_dtype("cast", "dtype", dtype)
    if isinstance(x, SparseTensorValue):
        return SparseTensorValue(x.indices, cast(x.values, dtype), x.dense_shape)
    if isinstance(x, Node):
        return _inflow._cast_step(x, dtype)
    return _inflow._cast(x, dtype)


def _value_dtype(value, hint):
    """The dtype TF's convert_to_tensor(value, dtype_hint=hint) gives a
    one_hot on_value / off_value: an array's own; a Python number takes the
    hint when it can (an int any number dtype, a float a float dtype), else
    int32 / float32; bool is bool; str and bytes are strings."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _np_dtype(value.dtype)
    hint = None if hint is None else _np_dtype(hint)
    if isinstance(value, (str, bytes)):
        return np.dtype(object)
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(value, int):
        if hint is not None and hint.kind in "iuf" or \
                (hint is not None and hint.name == "bfloat16"):
            return hint
        return np.dtype(np.int32)
    if isinstance(value, float):
        if hint is not None and (hint.kind == "f" or hint.name == "bfloat16"):
            return hint
        return np.dtype(np.float32)
    raise TypeError(f"one_hot: on_value and off_value must be scalars, got "
                    f"{type(value).__name__}")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None):
    """``tf.one_hot``: ``indices`` (uint8, int8, int32 or int64; a Node or an
    array-like) as one-hot rows of ``depth`` values, the new dimension at
    ``axis`` (None or -1: last). An index that is negative or >= depth gives
    a row of ``off_value``. The dtype is ``dtype``, else on_value's or
    off_value's, else float32 (TypeError when they disagree, as TF); a Node
    gives a Node, a value a NumPy array at once."""
    depth = check_int("one_hot", "depth", depth, minimum=0)
    axis = -1 if axis is None else check_int("one_hot", "axis", axis, minimum=-1)
    if dtype is not None:
        dtype = check_dtype("one_hot", "dtype", dtype)
    on_dtype = None if on_value is None else _value_dtype(on_value, dtype)
    off_dtype = None if off_value is None else _value_dtype(off_value, dtype)
    if dtype is not None:
        for what, d in (("on_value", on_dtype), ("off_value", off_dtype)):
            if d is not None and d != dtype:
                raise TypeError(f"one_hot: dtype {_inflow.dtype_name(d)} of {what} "
                                f"does not match dtype {_inflow.dtype_name(dtype)}")
    elif on_dtype is not None or off_dtype is not None:
        dtype = on_dtype if on_dtype is not None else off_dtype
    else:
        dtype = np.dtype(np.float32)
    if on_dtype is not None and off_dtype is not None and on_dtype != off_dtype:
        raise TypeError(f"one_hot: dtype {_inflow.dtype_name(on_dtype)} of on_value "
                        f"does not match dtype {_inflow.dtype_name(off_dtype)} of "
                        "off_value")
    if dtype == np.dtype(object) and (on_value is None or off_value is None):
        raise TypeError("one_hot: a string one_hot needs both on_value and off_value")
    if on_value is None:
        on_value = 1
    if off_value is None:
        off_value = 0
    if isinstance(indices, Node):
        return _inflow._one_hot_step(indices, depth, on_value, off_value, dtype, axis)
    return _inflow._one_hot(indices, depth, on_value, off_value, dtype, axis)
