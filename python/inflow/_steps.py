"""Deferred values: TF1's graph tensors without a graph.

``reader.read(queue)``, ``parse_single_example(value, ...)`` on a Node,
``decode_raw`` on a Node, ``slice_input_producer`` and ``py_func`` return
``inflow.Node`` objects: one output of a step that runs later, in C++. The
batching calls (``inflow.train.batch`` ...) run them on inflow's threads,
once per element, without the GIL; ``inflow.run`` runs them once here, as
``sess.run`` would.
"""

import numpy as np

from inflow import _inflow
from inflow.io._parsing import SparseTensorValue, _np_dtype

Node = _inflow.Node

__all__ = ["Node", "run", "py_func", "reshape", "constant"]


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
        return _inflow._reshape_step(tensor, [int(d) for d in shape])
    return np.reshape(tensor, shape)

