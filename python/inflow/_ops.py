"""Custom ops: ``inflow.load_op_library`` (``tf.load_op_library``).

An op library is a shared library written in C++ against inflow's
``inflow/ops/`` headers (docs/custom_ops.md). Loading it returns a module
with one function per op, named with TF's snake_case of the op's name
(``ZeroOut`` -> ``zero_out``). A function takes the op's inputs
(positionally or by name) and its attributes (by name):

- given a Node (or an op without inputs), it returns Nodes: a step that the
  batching calls and ``inflow.run`` run on inflow's threads, in C++, without
  the GIL;
- given arrays, it runs the op once, now (with the GIL released), and
  returns arrays;
- ``Dataset.map(lib.zero_out)`` (or ``lib.zero_out.bind(preserve_index=1)``,
  or a ``functools.partial`` of it with attributes only) maps the op over
  the elements in C++, without the GIL: an element's components are the op's
  inputs, in order;
- ``inflow.Pipeline(..., map_fn=lib.zero_out)`` runs it on each parsed
  record, the components (in the features' order) its inputs, its outputs
  (of fully defined shapes) the pipeline's components, in C++;
  ``map_fn=lib.lengths.per_chunk()`` runs an op written over batches once
  per chunk of records.

An input the op declares mutable (``MutableInput``, a variable it updates
in place) must be a writeable, C-contiguous NumPy array of exactly its dtype.
No output gives an empty tuple, one output one value, several a tuple. Each
call (and each map) makes one kernel: a stateful op keeps its state for the
life of that Node or map. ``fn.instance(**attrs)`` makes one kernel called
on arrays again and again (a stateful op's state across eager calls).
"""

import functools
import os
import types

import numpy as np

from inflow import _inflow
from inflow._steps import Node, _as_node

__all__ = ["load_op_library"]


def _snake_case(name):
    """TF's op function name: ``ZeroOut`` -> ``zero_out``, ``DecodeCSV`` ->
    ``decode_csv``, ``SkipgramWord2vec`` -> ``skipgram_word2vec``."""
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0:
            before = name[i - 1]
            after = name[i + 1] if i + 1 < len(name) else ""
            if before.islower() or before.isdigit() or \
                    (before.isupper() and after.islower()):
                out.append("_")
        out.append(c.lower())
    return "".join(out)


def _describe_shape(shape):
    if shape is None:
        return "any shape"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _doc(op_def):
    lines = [op_def["doc"] or f"The op {op_def['name']}.", ""]
    for kind in ("inputs", "outputs"):
        if op_def[kind]:
            lines.append(kind.capitalize() + ":")
            for name, dtype, shape, mutable in op_def[kind]:
                lines.append(f"  {name}: {_inflow.dtype_name(dtype)} "
                             f"{_describe_shape(shape)}" +
                             (" (updated in place)" if mutable else ""))
    if op_def["attrs"]:
        lines.append("Attributes:")
        for name, type_name, default, has_default in op_def["attrs"]:
            lines.append(f"  {name}: {type_name}" +
                         (f" = {default!r}" if has_default else " (required)"))
    return "\n".join(lines)


class OpFunction:
    """One op of a loaded library (see the module's doc)."""

    def __init__(self, op_def, attrs=None, chunks=False):
        self._def = op_def
        self._attrs = dict(attrs or {})
        self._chunks = chunks
        self.__name__ = _snake_case(op_def["name"])
        self.__doc__ = _doc(op_def)

    @property
    def op_name(self):
        """The registered name (``ZeroOut``)."""
        return self._def["name"]

    def bind(self, **attrs):
        """This op with ``attrs`` given: for Dataset.map."""
        return OpFunction(self._def, {**self._attrs, **attrs}, self._chunks)

    def per_chunk(self, **attrs):
        """This op with ``attrs`` as an ``inflow.Pipeline`` map run once per
        chunk of the records read together (``read_batch``): its inputs are
        the components with a first dimension of the chunk's size, and each
        output must have that many rows. For an op written over batches:
        its per-call cost comes once per chunk, not once per record."""
        return OpFunction(self._def, {**self._attrs, **attrs}, True)

    def instance(self, **attrs):
        """One use of the op with ``attrs``, called with arrays again and
        again on one kernel: a stateful op's state lives across the calls
        (``skipgram_word2vec``'s position in its corpus)."""
        return OpInstance(self, {**self._attrs, **attrs})

    def _check_in_place(self, inputs):
        for (name, dtype, _, mutable), value in zip(self._def["inputs"], inputs):
            if mutable and not (isinstance(value, np.ndarray) and value.dtype == dtype
                                and value.flags.c_contiguous and value.flags.writeable):
                raise TypeError(
                    f"op '{self.op_name}': input '{name}' is updated in place: pass a "
                    f"writeable, C-contiguous NumPy array of "
                    f"{_inflow.dtype_name(dtype)}")

    def _split(self, args, kwargs):
        names = [i[0] for i in self._def["inputs"]]
        if len(args) > len(names):
            raise TypeError(f"{self.__name__}() takes {len(names)} inputs, "
                            f"got {len(args)}")
        inputs = list(args) + [None] * (len(names) - len(args))
        attrs = dict(self._attrs)
        for key, value in kwargs.items():
            if key in names:
                i = names.index(key)
                if i < len(args):
                    raise TypeError(f"{self.__name__}() got input {key!r} twice")
                inputs[i] = value
            else:
                attrs[key] = value
        for name, value in zip(names, inputs):
            if value is None:
                raise TypeError(f"{self.__name__}() is missing input {name!r}")
        return inputs, attrs

    def _result(self, outputs):
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __call__(self, *args, name=None, **kwargs):
        inputs, attrs = self._split(args, kwargs)
        if not inputs or any(isinstance(i, Node) for i in inputs):
            nodes = [_as_node(i) for i in inputs]
            op = _inflow._make_op(self.op_name, attrs, [n.shape for n in nodes])
            return self._result(_inflow._op_nodes(op, nodes))
        self._check_in_place(inputs)
        op = _inflow._make_op(self.op_name, attrs, None)
        return self._result(_inflow._op_run(op, inputs))

    def _map_fn(self):
        """The native map function of Dataset.map: one kernel per map."""
        return _inflow._op_map_fn(_inflow._make_op(self.op_name, self._attrs, None))

    def __repr__(self):
        return f"<inflow op function {self.__name__} ({self.op_name})>"


class OpInstance:
    """One use of an op (OpFunction.instance): its kernel lives as long as
    this object, and each call runs it once on arrays, now, with the GIL
    released."""

    def __init__(self, function, attrs):
        self._function = function
        self._op = _inflow._make_op(function.op_name, attrs, None)
        self.__name__ = function.__name__
        self.__doc__ = function.__doc__

    @property
    def attrs(self):
        """The attributes, defaults filled in."""
        return self._op.attrs

    def __call__(self, *args, **kwargs):
        inputs, attrs = self._function._split(args, kwargs)
        if len(attrs) != len(self._function._attrs) or any(
                k not in self._function._attrs for k in attrs):
            raise TypeError(f"{self.__name__}: an instance takes inputs only; "
                            "give the attributes to instance()")
        self._function._check_in_place(inputs)
        return self._function._result(_inflow._op_run(self._op, inputs))

    def __repr__(self):
        return f"<inflow op instance {self.__name__} ({self._function.op_name})>"


def _as_op_function(map_func):
    """The op function of an op function, a bound one, or a partial of one
    with attributes only; None for any other callable."""
    if isinstance(map_func, functools.partial) and \
            isinstance(map_func.func, OpFunction) and not map_func.args:
        map_func = map_func.func.bind(**map_func.keywords)
    return map_func if isinstance(map_func, OpFunction) else None


def _native_map_fn(map_func):
    """(the C++ Dataset map function, the number of outputs) for an op
    function (see _as_op_function), None for any other callable."""
    op = _as_op_function(map_func)
    if op is None:
        return None
    return op._map_fn(), len(op._def["outputs"])


# The library each op was loaded from, for pipeline definitions.
_LIBRARY_OF = {}


def _op_step(map_fn):
    """A pipeline definition's step for an op function map_fn, and its
    library (None, None for any other callable)."""
    op = _as_op_function(map_fn)
    if op is None:
        return None, None
    def plain(v):  # as JSON holds it: a dtype by its name
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (type, np.dtype)):
            return np.dtype(v).name
        return v
    attrs = {k: plain(v) for k, v in op._attrs.items()}
    step = {"op": op.op_name, "attrs": attrs,
            "options": {"unit": "chunk" if op._chunks else "record"}}
    return step, _LIBRARY_OF.get(op.op_name)


def _native_pipeline_map(map_fn):
    """The C++ Pipeline map of an op function (see _as_op_function): run on
    each record, the parsed components its inputs; None for any other
    callable."""
    op = _as_op_function(map_fn)
    if op is None:
        return None
    return _inflow._op_pipeline_map(_inflow._make_op(op.op_name, op._attrs, None),
                                    op._chunks)


def load_op_library(library_filename):
    """Loads the op library (a path to its .so) and returns a module with a
    function per op (TF's ``tf.load_op_library``). Loading a library again
    gives a module with the same functions. Errors: NotFoundError for a
    missing file or dependency, InvalidArgumentError for a missing symbol,
    a library of another inflow ABI version, or a bad declaration;
    AlreadyExistsError for an op name registered before."""
    path = os.fspath(library_filename)
    names = _inflow._load_op_library(path)
    for op_name in names:
        _LIBRARY_OF.setdefault(op_name, path)
    stem = os.path.splitext(os.path.basename(path))[0]
    module = types.ModuleType(stem, f"The ops of the op library {path}.")
    module.__file__ = path
    module.op_names = list(names)
    for op_name in names:
        function = OpFunction(_inflow._op_def(op_name))
        setattr(module, function.__name__, function)
    return module
