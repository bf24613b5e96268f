"""inflow.data: tf.data's Dataset API over inflow's C++ Datasets.

    ds = (inflow.data.TFRecordDataset(files)
          .map(parse, num_parallel_calls=inflow.data.AUTOTUNE)
          .shuffle(10000, seed=7)
          .batch(128)
          .prefetch(inflow.data.AUTOTUNE))
    it = iter(ds)
    for images, labels in it: ...
    state = it.save()        # a few dozen bytes, whatever the buffers hold
    it2 = iter(ds); it2.restore(state)   # the same elements from there

Elements are NumPy values in the structure the source or the map function
gives (tuples, lists, dicts, namedtuples of arrays; 0-d values as NumPy
scalars and bytes, as tf.data's as_numpy_iterator gives them). Each stage
runs in C++; a Python function given to map or filter runs with the GIL
taken for each call (tf.py_function's way), on the map's own threads when
num_parallel_calls > 1. docs/python.md says what differs from tf.data.
"""

import collections
import functools
import json
import os

import numpy as np

from inflow import _inflow
from inflow import errors
from inflow._validate import check_int, check_path
from inflow._ops import _native_map_fn, _op_step

__all__ = ["Dataset", "Iterator", "TFRecordDataset", "TextLineDataset", "trace",
           "FixedLengthRecordDataset", "Options", "RaggedTensorValue", "AUTOTUNE",
           "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY"]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


# -- structures -----------------------------------------------------------------
#
# A structure is None (one component), a tuple, list or dict of structures,
# or ("namedtuple", type, [structures]). Elements cross to C++ as the flat
# list of their components.

class _Later:
    """The structure of a map function's result, known at its first call."""

    def __init__(self):
        self.value = None
        self.known = False
        # A dataset whose first element, pulled, calls the map function: set
        # by cache(), whose file may serve every element without a call.
        self.source = None

    def learn(self):
        source, self.source = self.source, None
        try:
            source._native.make_iterator().next()
        except errors.OutOfRangeError:
            pass

    def set(self, structure):
        if not self.known:
            self.value, self.known = structure, True
        elif structure != self.value:
            raise TypeError(
                f"the map function returned {_describe(structure)} for one element "
                f"and {_describe(self.value)} for another: every element must have "
                f"the same structure")


class _Derived:
    """A structure made from another (a ragged_batch's from its input's)
    once that one is known: at the first element."""

    def __init__(self, base, make):
        self.base, self.make, self.value = base, make, None

    def resolve(self):
        if self.value is None:
            if _unknown(self.base):
                return self.make(_resolve(self.base))  # not kept: may change
            self.value = self.make(self.base)
        return self.value


def _resolve(structure):
    if isinstance(structure, _Derived):
        return structure.resolve()
    if isinstance(structure, _Later):
        if not structure.known and structure.source is not None:
            structure.learn()
        return structure.value
    return structure


def _unknown(structure):
    """The structures of map functions not called yet within `structure`."""
    if isinstance(structure, _Later):
        return [structure] if not structure.known else _unknown(structure.value)
    if isinstance(structure, _Derived):
        return _unknown(structure.base)
    if isinstance(structure, dict):
        structure = list(structure.values())
    if isinstance(structure, (tuple, list)):
        return [u for s in structure for u in _unknown(s)]
    return []


def _describe(structure):
    if structure is None:
        return "one value"
    return f"a structure {structure!r}"


def _structure_of(value, lists=True):
    """``lists`` False: a list is one value (from_tensor_slices' rule, as
    tf.data's)."""
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return ("namedtuple", type(value), [_structure_of(v, lists) for v in value])
    if isinstance(value, tuple):
        return tuple(_structure_of(v, lists) for v in value)
    if isinstance(value, list) and lists:
        return [_structure_of(v, lists) for v in value]
    if isinstance(value, dict):
        return {k: _structure_of(v, lists) for k, v in sorted(value.items())}
    return None


def _flatten(value, out, lists=True):
    if isinstance(value, tuple) or (isinstance(value, list) and lists):
        for v in value:
            _flatten(v, out, lists)
    elif isinstance(value, dict):
        for k in sorted(value):
            _flatten(value[k], out, lists)
    else:
        out.append(value)
    return out


class RaggedTensorValue(collections.namedtuple("RaggedTensorValue",
                                               ["values", "row_splits"])):
    """A ragged batch (tf.compat.v1.ragged.RaggedTensorValue's fields): row
    i is values[row_splits[i]:row_splits[i + 1]]."""

    def to_list(self):
        return [self.values[a:b].tolist()
                for a, b in zip(self.row_splits[:-1], self.row_splits[1:])]


# The structure of a ragged_batch's component: two leaves, values and
# row_splits (empty for a batch of scalars, which comes back dense).
_RAGGED = "ragged"


def _map_leaves(structure, leaf):
    """`structure` with each of its leaves (components) replaced by leaf()."""
    structure = _resolve(structure)
    if structure is None:
        return leaf()
    if isinstance(structure, tuple) and len(structure) == 3 and \
            structure[0] == "namedtuple" and isinstance(structure[1], type):
        return ("namedtuple", structure[1], [_map_leaves(s, leaf) for s in structure[2]])
    if isinstance(structure, tuple):
        return tuple(_map_leaves(s, leaf) for s in structure)
    if isinstance(structure, list):
        return [_map_leaves(s, leaf) for s in structure]
    if isinstance(structure, dict):
        return {k: _map_leaves(s, leaf) for k, s in structure.items()}
    return leaf()


def _unflatten(structure, leaves, pos=0):
    """(value, next position)."""
    structure = _resolve(structure)
    if structure is None:
        return leaves[pos], pos + 1
    if structure is _RAGGED:
        values, splits = leaves[pos], leaves[pos + 1]
        if splits.size == 0:
            return values, pos + 2
        return RaggedTensorValue(values, splits), pos + 2
    if isinstance(structure, tuple) and len(structure) == 3 and \
            structure[0] == "namedtuple" and isinstance(structure[1], type):
        values = []
        for s in structure[2]:
            v, pos = _unflatten(s, leaves, pos)
            values.append(v)
        return structure[1](*values), pos
    if isinstance(structure, (tuple, list)):
        values = []
        for s in structure:
            v, pos = _unflatten(s, leaves, pos)
            values.append(v)
        return (tuple(values) if isinstance(structure, tuple) else values), pos
    out = {}
    for k, s in structure.items():
        out[k], pos = _unflatten(s, leaves, pos)
    return out, pos


def _to_array(value):
    """A component as inflow takes it: Python floats as float32 and ints as
    int64 (tf.data's conversions), str and bytes as strings."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, bool):
        return np.asarray(value)
    if isinstance(value, int):
        return np.asarray(value, np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    if isinstance(value, (str, bytes)):
        return np.asarray(value.encode() if isinstance(value, str) else value, object)
    array = np.asarray(value)
    if array.dtype == np.float64 and not isinstance(value, np.ndarray):
        array = array.astype(np.float32)
    return array


def _to_user(array):
    """A component as the consumer gets it: 0-d as a NumPy scalar (bytes for
    a string)."""
    if isinstance(array, np.ndarray) and array.ndim == 0:
        return array[()]
    return array


def _call(fn, element):
    """fn(*element) for a tuple, fn(element) otherwise (tf.data's rule)."""
    if isinstance(element, tuple) and not hasattr(type(element), "_fields"):
        return fn(*element)
    return fn(element)


# -- element specs and tracing ------------------------------------------------------

_SCALAR_BYTES = [(np.dtype(object), [])]
_SCALAR_INT64 = [(np.dtype(np.int64), [])]


def _batched(spec, n):
    """The spec of batches of `n` (None: unknown, the last may be short)."""
    if spec is None or any(s is None for _, s in spec):
        return None
    return [(d, [n] + list(s)) for d, s in spec]


def _unbatched(spec):
    if spec is None or any(not s for _, s in spec):
        return None
    return [(d, list(s)[1:]) for d, s in spec]


def trace(map_func):
    """Marks ``map_func`` as made of inflow's steps only (parse_example,
    parse_single_example, decode_raw, decode_raw_to_float, cast, reshape,
    one_hot, ... on their ``inflow.Node`` arguments, as in the TF1 graph
    API): Dataset.map then calls it once, on placeholder Nodes of the
    element's components (tf.data's tracing), and runs the steps it
    returns in C++ on each element, without the GIL. Its Python code runs
    only at that call: no branch on an element's value, no NumPy on it.
    inflow.io's step functions themselves (and functools.partial of them)
    are traced without the mark. Returns map_func."""
    if not callable(map_func):
        raise TypeError("trace: map_func is not callable")
    try:
        map_func._inflow_trace = True
    except AttributeError:  # a builtin or a bound method: wrap it
        original = map_func

        def map_func(*args):
            return original(*args)
        map_func._inflow_trace = True
    return map_func


def _traceable(map_func):
    """Marked with trace(), or one of inflow.io's step functions (maybe
    through functools.partial)."""
    while isinstance(map_func, functools.partial):
        map_func = map_func.func
    if getattr(map_func, "_inflow_trace", False):
        return True
    from inflow import io as _io
    return any(map_func is getattr(_io, name, None) for name in _STEP_FUNCTIONS)


_STEP_FUNCTIONS = ("parse_example", "parse_single_example", "decode_raw",
                   "decode_raw_to_float")


def _trace(map_func, structure, spec):
    """(output nodes, output structure) of map_func traced
    on placeholder Nodes of the element's components; TypeError when it
    does not give Nodes only, or the element's components are not known."""
    if spec is None or _unknown(structure) or isinstance(structure, _Derived):
        raise TypeError(
            "map: a traced map_func needs the element's dtypes and shapes, which "
            "inflow knows after a record source, range, from_tensor_slices of "
            "numeric arrays, batch, unbatch, shuffle, repeat, take, skip, shard, "
            "cache, prefetch and traced maps, not here")
    element_nodes = _inflow._element_nodes([d for d, _ in spec], [s for _, s in spec])
    element, used = _unflatten(structure, list(element_nodes))
    if used != len(element_nodes):
        raise TypeError(f"map: the element has {len(element_nodes)} components, "
                        f"its structure {used}")
    result = _call(map_func, element)
    outputs = _flatten(result, [])
    if not outputs or not all(isinstance(o, _inflow.Node) for o in outputs):
        kinds = sorted({type(o).__name__ for o in outputs
                        if not isinstance(o, _inflow.Node)})
        raise TypeError("map: a traced map_func must return inflow Nodes only "
                        f"(made by inflow's steps), got {', '.join(kinds) or 'nothing'}")
    return outputs, _structure_of(result)


# -- Dataset ----------------------------------------------------------------------

class _Steps:
    """A Dataset's pipeline definition as it is chained (immutable: each
    step makes a new one)."""

    def __init__(self, steps, libraries=()):
        self.steps, self.libraries = tuple(steps), tuple(libraries)

    @staticmethod
    def source(op, attrs):
        return _Steps([{"op": op, "attrs": attrs}])

    def then(self, op, attrs, options=None, library=None):
        step = {"op": op, "attrs": dict(attrs or {})}
        if options:
            step["options"] = dict(options)
        libraries = self.libraries
        if library is not None and library not in libraries:
            libraries += (library,)
        return _Steps(self.steps + (step,), libraries)

    def as_dict(self):
        out = {"version": 1, "kind": "dataset"}
        if self.libraries:
            out["op_libraries"] = list(self.libraries)
        out["steps"] = json.loads(json.dumps(list(self.steps)))
        return out


def _cannot(what):
    return f"{what}, which a pipeline definition cannot hold"


class Dataset:
    """A pipeline of stages run in C++ (tf.data.Dataset's names)."""

    def __init__(self, native, structure, spec=None):
        self._native = native
        self._structure = structure
        # The flat components' (dtype, shape) where known (sources of
        # records, range, and the steps that keep or batch them), for
        # map's tracing; None when not known.
        self._spec = spec
        # Its pipeline definition so far, recorded as the steps are chained:
        # _Steps, or the reason it has none (a str).
        self._def = "this Dataset's source cannot be written as a step"

    def _then(self, native, structure, op=None, attrs=None, options=None,
              library=None, reason=None, spec=None):
        """The Dataset after this one: `native`, whose definition is this
        one's and the step `op` (or, with `reason`, none); `spec` its
        components' (dtype, shape), when known."""
        out = Dataset(native, structure, spec)
        if isinstance(self._def, str):
            out._def = self._def
        elif reason is not None:
            out._def = reason
        else:
            out._def = self._def.then(op, attrs, options, library)
        return out

    def definition(self):
        """This dataset as a pipeline definition (a dict, kind "dataset";
        json.dump writes what from_definition and `inflow run-pipeline`
        read), recorded as its steps were chained: the sources range,
        TFRecordDataset, TextLineDataset and FixedLengthRecordDataset, a
        map of an op function, batch, shuffle, repeat, take, skip, shard,
        enumerate, unbatch, cache and prefetch (docs/custom_ops.md,
        "Pipeline definitions"). ValueError naming the first step a
        definition cannot hold: a map or filter of a Python function, and
        any other step."""
        if isinstance(self._def, str):
            raise ValueError(f"Dataset.definition: {self._def}")
        return self._def.as_dict()

    def save_definition(self, path):
        """Writes definition() to ``path`` as JSON."""
        definition = self.definition()
        with open(check_path("Dataset.save_definition", "path", path), "w",
                  encoding="utf-8") as f:
            json.dump(definition, f, indent=2)

    # sources

    @staticmethod
    def range(*args):
        """range(stop), range(start, stop[, step]): int64 scalars."""
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range takes 1 to 3 arguments, got {len(args)}")
        args = [check_int("Dataset.range", f"argument {i}", a) for i, a in enumerate(args)]
        start, stop, step = (0, args[0], 1) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) == 3 else 1)
        if step == 0:
            raise ValueError("Dataset.range: step must not be 0")
        out = Dataset(_inflow._data_range(start, stop, step), None, _SCALAR_INT64)
        out._def = _Steps.source("range", {"start": start, "stop": stop, "step": step})
        return out

    @staticmethod
    def from_tensor_slices(tensors):
        """Element i: row i of every array of `tensors` (any structure)."""
        leaves = [_to_array(v) for v in _flatten(tensors, [], lists=False)]
        if not leaves:
            raise ValueError("from_tensor_slices: nothing to slice")
        for a in leaves:
            if a.ndim == 0:
                raise ValueError("from_tensor_slices: a 0-d value has no rows to slice")
        if len({a.shape[0] for a in leaves}) != 1:
            raise ValueError("from_tensor_slices: the arrays have different numbers "
                             f"of rows: {[a.shape[0] for a in leaves]}")
        # The element spec where every leaf is numeric (or bool).
        spec = None
        if all(a.dtype.kind in "biufc" for a in leaves):
            spec = [(a.dtype, list(a.shape[1:])) for a in leaves]
        out = Dataset(_inflow._data_from_tensor_slices(leaves),
                      _structure_of(tensors, lists=False), spec)
        out._def = _cannot("its source is from_tensor_slices (arrays)")
        return out

    @staticmethod
    def from_definition(path):
        """The Dataset of a pipeline definition file (kind "dataset",
        docs/custom_ops.md "Pipeline definitions"), its op libraries loaded.
        Elements are a component, or a tuple of them when there are
        several. InvalidArgumentError naming the file and the JSON path of
        a bad step; NotFoundError for a missing file."""
        path = check_path("Dataset.from_definition", "path", path)
        native, components = _inflow._data_from_definition(path)
        out = Dataset(native, None if components == 1 else (None,) * components)
        with open(path, encoding="utf-8") as f:
            read = json.load(f)
        out._def = _Steps(read.get("steps", []), read.get("op_libraries", []))
        return out

    @staticmethod
    def zip(*datasets):
        """Element i of each: a tuple of their elements (or a dict, given a
        dict of datasets); as many as the shortest."""
        if len(datasets) == 1 and isinstance(datasets[0], (tuple, list, dict)):
            datasets = datasets[0]
        if isinstance(datasets, dict):
            keys = sorted(datasets)
            parts = [datasets[k] for k in keys]
            structure = {k: d._structure for k, d in zip(keys, parts)}
        else:
            parts = list(datasets)
            structure = tuple(d._structure for d in parts)
        for d in parts:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: {type(d).__name__} is not a Dataset")
        if not parts:
            raise ValueError("zip: no datasets")
        out = Dataset(_inflow._data_zip([d._native for d in parts]), structure)
        out._def = _cannot("its source is zip")
        return out

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """The elements `generator(*args)` yields (called again for each
        pass). The structure is the first element's; output_types,
        output_shapes and output_signature are accepted and not checked."""
        if not callable(generator):
            raise TypeError("from_generator: generator is not callable")
        args = tuple(args or ())
        structure = _Later()

        class _Flat:
            def __init__(self):
                self.it = iter(generator(*args))

            def __next__(self):
                try:
                    value = next(self.it)
                except StopIteration:
                    return None
                structure.set(_structure_of(value))
                return [_to_array(v) for v in _flatten(value, [])]

        out = Dataset(_inflow._data_from_generator(_Flat), structure)
        out._def = _cannot("its source is from_generator (a Python generator)")
        return out

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The file names matching the pattern(s), each once: sorted, or
        (shuffle, tf.data's default) in an order drawn from `seed` anew
        each pass."""
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else \
            list(file_pattern)
        patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in patterns]
        if seed is not None:
            seed = check_int("Dataset.list_files", "seed", seed)
        out = Dataset(_inflow._data_list_files(
            patterns, True if shuffle is None else bool(shuffle), seed), None)
        out._def = _cannot("its source is list_files")
        return out

    # transformations

    def flat_map(self, map_func, name=None):
        """The elements of map_func(element) (a Dataset) for each element."""
        return self._nested("flat_map", map_func, None, None)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """tf.data's interleave: cycle_length of the map_func(element)
        datasets read in turn, block_length elements each. num_parallel_calls
        > 1 (or AUTOTUNE) reads the open datasets ahead on that many threads
        (map_func itself is called in turn), in the same order unless
        deterministic=False."""
        cycle = 0 if cycle_length is None or cycle_length == AUTOTUNE else \
            check_int("Dataset.interleave", "cycle_length", cycle_length, 1)
        block = 1 if block_length is None else \
            check_int("Dataset.interleave", "block_length", block_length, 1)
        calls = 0 if num_parallel_calls is None else \
            check_int("Dataset.interleave", "num_parallel_calls", num_parallel_calls)
        if calls < AUTOTUNE:
            raise ValueError(f"interleave: num_parallel_calls {calls} is below -1 (AUTOTUNE)")
        return self._nested("interleave", map_func, cycle, block, calls,
                            True if deterministic is None else bool(deterministic))

    def _nested(self, kind, map_func, cycle, block, calls=0, deterministic=True):
        if not callable(map_func):
            raise TypeError(f"{kind}: map_func is not callable")
        in_structure = self._structure
        out_structure = _Later()

        def call(leaves):
            element, _ = _unflatten(in_structure, [_to_user(a) for a in leaves])
            result = _call(map_func, element)
            if not isinstance(result, Dataset):
                raise TypeError(f"{kind}: map_func must return a Dataset, "
                                f"not {type(result).__name__}")
            out_structure.set(_resolve(result._structure))
            return result._native

        reason = _cannot(f"it has a {kind} step (a Python function)")
        if kind == "flat_map":
            return self._then(self._native.flat_map_py(call), out_structure, reason=reason)
        return self._then(self._native.interleave_py(call, cycle, block, calls, deterministic),
                          out_structure, reason=reason)

    def unbatch(self, name=None):
        """Each element split along its first dimension. ValueError (as
        tf.data's) when a component is known to be a scalar."""
        if self._spec is not None and any(s is not None and len(s) == 0
                                          for _, s in self._spec):
            raise ValueError("Cannot unbatch an input with scalar components.")
        return self._then(self._native.unbatch(), self._structure, "unbatch",
                          spec=_unbatched(self._spec))

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None,
                     name=None):
        """tf.data's ragged_batch: batch_size elements whose first dimension
        varies; each array component comes back as a RaggedTensorValue
        (values: the rows concatenated, row_splits: int64 [rows + 1]), each
        scalar component as an array of the batch's values."""
        n = check_int("Dataset.ragged_batch", "batch_size", batch_size)
        if n < 1:
            raise ValueError(f"ragged_batch: batch_size {n} is not >= 1")
        return self._then(self._native.ragged_batch(n, bool(drop_remainder)),
                          _Derived(self._structure,
                                   lambda structure: _map_leaves(structure, lambda: _RAGGED)),
                          reason=_cannot("it has a ragged_batch step"))

    def sparse_batch(self, batch_size, row_shape, name=None):
        """tf.data's sparse_batch: batch_size single-array elements of rank
        len(row_shape) as an inflow.io.SparseTensorValue (indices, values,
        dense_shape [rows, *row_shape]; -1: the batch's largest)."""
        from inflow.io import SparseTensorValue
        n = check_int("Dataset.sparse_batch", "batch_size", batch_size)
        if n < 1:
            raise ValueError(f"sparse_batch: batch_size {n} is not >= 1")
        shape = [check_int("Dataset.sparse_batch", "row_shape", d) for d in row_shape]
        return self._then(self._native.sparse_batch(n, shape),
                          ("namedtuple", SparseTensorValue, [None, None, None]),
                          reason=_cannot("it has a sparse_batch step"))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches padding each component to padded_shapes (in the element's
        structure; None or -1 for the batch's largest) with padding_values
        (zeros and b"" by default)."""
        n = check_int("Dataset.padded_batch", "batch_size", batch_size)
        if n < 1:
            raise ValueError(f"padded_batch: batch_size {n} is not >= 1")
        shapes = []
        if padded_shapes is not None:
            for shape in _flatten(padded_shapes, [], lists=False):
                shapes.append([-1 if d is None else int(d) for d in
                               (list(shape) if shape is not None else [])])
        values = None
        if padding_values is not None:
            values = [_to_array(v) for v in _flatten(padding_values, [])]
        return self._then(self._native.padded_batch(n, shapes, values, bool(drop_remainder)),
                          self._structure, reason=_cannot("it has a padded_batch step"))

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """map_func(element) for each element; num_parallel_calls > 1 (or
        AUTOTUNE) runs that many calls at once on threads of the map's."""
        if not callable(map_func):
            raise TypeError("map: map_func is not callable")
        calls = 0 if num_parallel_calls is None else \
            check_int("Dataset.map", "num_parallel_calls", num_parallel_calls)
        if calls < AUTOTUNE:
            raise ValueError(f"map: num_parallel_calls {calls} is below -1 (AUTOTUNE)")
        deterministic = True if deterministic is None else bool(deterministic)
        native_fn = _native_map_fn(map_func)
        if native_fn is not None:
            # A custom op (inflow.load_op_library): mapped in C++, without
            # the GIL; the element's components are its inputs.
            fn, outputs = native_fn
            step, library = _op_step(map_func)
            return self._then(self._native.map_native(fn, calls, deterministic),
                              None if outputs == 1 else (None,) * outputs,
                              step["op"], step["attrs"],
                              {"num_parallel_calls": calls, "deterministic": deterministic},
                              library)
        if _traceable(map_func):
            # Made of inflow's steps (parse_example, decode_raw, ...): run in
            # C++ per element, without the GIL.
            outputs, structure = _trace(map_func, self._structure, self._spec)
            return self._then(
                self._native.map_nodes(outputs, calls, deterministic),
                structure,
                reason=_cannot("its map's map_func is a traced Python function"),
                spec=[(o.dtype, o.shape) for o in outputs])
        in_structure = self._structure
        out_structure = _Later()

        def flat_call(leaves):
            element, _ = _unflatten(in_structure, [_to_user(a) for a in leaves])
            result = _call(map_func, element)
            out_structure.set(_structure_of(result))
            return [_to_array(v) for v in _flatten(result, [])]

        native = self._native.map_py(flat_call, calls, deterministic)
        return self._then(native, out_structure, reason=(
            "its map's map_func is a Python function, which a pipeline definition "
            "cannot hold: make it a custom op (docs/custom_ops.md)"))

    def filter(self, predicate, name=None):
        """The elements for which predicate(element) is true."""
        if not callable(predicate):
            raise TypeError("filter: predicate is not callable")
        structure = self._structure

        def flat_call(leaves):
            element, _ = _unflatten(structure, [_to_user(a) for a in leaves])
            return bool(_call(predicate, element))

        return self._then(self._native.filter_py(flat_call), structure,
                          reason=_cannot("it has a filter step (a Python predicate)"))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """batch_size consecutive elements stacked; num_parallel_calls > 1
        (or AUTOTUNE) stacks the batches on that many threads (the same
        batches, in order)."""
        n = check_int("Dataset.batch", "batch_size", batch_size)
        if n < 1:
            raise ValueError(f"batch: batch_size {n} is not >= 1")
        calls = 0 if num_parallel_calls is None else \
            check_int("Dataset.batch", "num_parallel_calls", num_parallel_calls)
        if calls < AUTOTUNE:
            raise ValueError(f"batch: num_parallel_calls {calls} is below -1 (AUTOTUNE)")
        return self._then(self._native.batch(n, bool(drop_remainder), calls), self._structure,
                          "batch", {"batch_size": n, "drop_remainder": bool(drop_remainder),
                                    "num_parallel_calls": calls},
                          spec=_batched(self._spec, n if drop_remainder else None))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        n = check_int("Dataset.shuffle", "buffer_size", buffer_size)
        if n < 1:
            raise ValueError(f"shuffle: buffer_size {n} is not >= 1")
        if seed is not None:
            seed = check_int("Dataset.shuffle", "seed", seed)
        attrs = {"buffer_size": n,
                 "reshuffle_each_iteration": bool(reshuffle_each_iteration)}
        if seed is not None:
            attrs["seed"] = seed
        return self._then(self._native.shuffle(n, seed, bool(reshuffle_each_iteration)),
                          self._structure, "shuffle", attrs, spec=self._spec)

    def repeat(self, count=None, name=None):
        n = -1 if count is None else check_int("Dataset.repeat", "count", count)
        if n < -1:
            raise ValueError(f"repeat: count {n} is below -1")
        return self._then(self._native.repeat(n), self._structure, "repeat", {"count": n}, spec=self._spec)

    def take(self, count, name=None):
        n = check_int("Dataset.take", "count", count)
        return self._then(self._native.take(n), self._structure, "take", {"count": n}, spec=self._spec)

    def skip(self, count, name=None):
        n = check_int("Dataset.skip", "count", count)
        return self._then(self._native.skip(n), self._structure, "skip", {"count": n}, spec=self._spec)

    def shard(self, num_shards, index, name=None):
        n = check_int("Dataset.shard", "num_shards", num_shards)
        i = check_int("Dataset.shard", "index", index)
        if n < 1 or not 0 <= i < n:
            raise ValueError(f"shard: index {i} is not in [0, num_shards {n})")
        return self._then(self._native.shard(n, i), self._structure, "shard",
                          {"num_shards": n, "index": i}, spec=self._spec)

    def enumerate(self, start=0, name=None):
        """(int64 position from start, element) pairs."""
        n = check_int("Dataset.enumerate", "start", start)
        return self._then(self._native.enumerate(n), (None, self._structure), "enumerate",
                          {"start": n})

    def concatenate(self, dataset, name=None):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate: {type(dataset).__name__} is not a Dataset")
        return self._then(self._native.concatenate(dataset._native), self._structure,
                          reason=_cannot("it has a concatenate step"))

    def cache(self, filename="", name=None):
        """The first pass that reads the input to its end keeps its
        elements, in memory (filename "") or in that file; later passes read
        them instead of the input. A pass that stops early keeps nothing."""
        if isinstance(filename, bytes):
            filename = filename.decode()
        for later in _unknown(self._structure):
            later.source = self  # a cache file gives elements without calls
        filename = os.fspath(filename)
        return self._then(self._native.cache(filename), self._structure, "cache",
                          {"filename": filename}, spec=self._spec)

    def prefetch(self, buffer_size, name=None):
        """Up to buffer_size elements computed ahead on a thread (AUTOTUNE:
        2 at first, doubled while the consumer finds none ready, within the
        memory budget)."""
        n = check_int("Dataset.prefetch", "buffer_size", buffer_size)
        if n < 1 and n != AUTOTUNE:
            raise ValueError(f"prefetch: buffer_size {n} is not >= 1 (or AUTOTUNE)")
        return self._then(self._native.prefetch(n), self._structure, "prefetch",
                          {"buffer_size": n}, spec=self._spec)

    def with_options(self, options, name=None):
        """This dataset with `options` (an Options) for its whole pipeline:
        the fields set there over those of an earlier with_options."""
        if not isinstance(options, Options):
            raise TypeError(f"with_options: {type(options).__name__} is not an "
                            "inflow.data.Options")
        a = options.autotune
        budget = a.cpu_budget
        if budget is None:
            budget = options.threading.private_threadpool_size
        if budget is not None:
            budget = check_int("Options", "autotune.cpu_budget", budget)
        ram = None if a.ram_budget is None else check_int("Options", "autotune.ram_budget",
                                                          a.ram_budget)
        enabled = None if a.enabled is None else bool(a.enabled)
        return self._then(self._native.with_options(budget, ram, enabled), self._structure,
                          reason=_cannot("it has options (with_options)"), spec=self._spec)

    def options(self):
        """The pipeline's Options: those set by with_options along it."""
        budget, ram, enabled = self._native.options()
        out = Options()
        out.autotune.cpu_budget, out.autotune.ram_budget = budget, ram
        out.autotune.enabled = enabled
        return out

    # running it

    def cardinality(self):
        """The number of elements, INFINITE_CARDINALITY or
        UNKNOWN_CARDINALITY (as tf.data's, a Python int here)."""
        return self._native.cardinality()

    def __len__(self):
        n = self.cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("the dataset is infinite")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("the dataset's length is unknown")
        return n

    def __iter__(self):
        return Iterator(self)

    def as_numpy_iterator(self):
        return Iterator(self)

    def __repr__(self):
        return f"<inflow.data.Dataset {self._native.debug_string()}>"


class Iterator:
    """One pass over a Dataset; save() and restore() its position."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._native = dataset._native.make_iterator()

    def __iter__(self):
        return self

    def __next__(self):
        try:
            leaves = self._native.next()
        except errors.OutOfRangeError:
            raise StopIteration from None
        value, _ = _unflatten(self._dataset._structure, [_to_user(a) for a in leaves])
        return value

    def get_next(self, timeout=None):
        """The next element; OutOfRangeError at the end (TF1's get_next),
        DeadlineExceededError after `timeout` seconds (nothing is lost)."""
        leaves = self._native.next(timeout)
        value, _ = _unflatten(self._dataset._structure, [_to_user(a) for a in leaves])
        return value

    def stats(self):
        """What each stage did since this iterator started: a dict with
        "stages" (source first; each its "stage" name, "elements",
        "seconds" of its own work, "busy" (1: saturated), "threads",
        "buffer_size" and mean "buffer_fill"), the "bottleneck" stage's
        name, "wall_seconds", "thread_budget" and "threads"."""
        return self._native.stats()

    def save(self):
        """The position, as bytes for restore()."""
        return self._native.save()

    def restore(self, state):
        """Moves to a position save() gave on an iterator of the same
        pipeline; InvalidArgumentError for any other bytes."""
        if not isinstance(state, (bytes, bytearray, memoryview)):
            raise TypeError(f"restore: the state must be bytes, not {type(state).__name__}")
        self._native.restore(bytes(state))

    def _restored(self, state):
        """A new native iterator of this pipeline at `state` (for a Saver,
        which swaps it in once the variables are restored too)."""
        if not isinstance(state, (bytes, bytearray, memoryview)):
            raise TypeError(f"restore: the state must be bytes, not {type(state).__name__}")
        native = self._dataset._native.make_iterator()
        native.restore(bytes(state))
        return native

    def _restore_swap(self, native):
        self._native = native


class AutotuneOptions:
    """Options.autotune: enabled (False: AUTOTUNE fixed: the hardware
    threads for a map, 2 for a prefetch), cpu_budget (threads the stages
    may keep busy; None: the hardware threads), ram_budget (bytes the
    AUTOTUNE prefetch buffers may hold; None: an eighth of the memory)."""

    def __init__(self):
        self.enabled = None
        self.cpu_budget = None
        self.ram_budget = None


class ThreadingOptions:
    """Options.threading: private_threadpool_size, the thread budget when
    autotune.cpu_budget is not set."""

    def __init__(self):
        self.private_threadpool_size = None


class Options:
    """tf.data.Options' names for what inflow's pipeline takes: autotune
    (AutotuneOptions) and threading (ThreadingOptions); fields left None
    are not set."""

    def __init__(self):
        self.autotune = AutotuneOptions()
        self.threading = ThreadingOptions()

    def __repr__(self):
        a = self.autotune
        return (f"Options(autotune.enabled={a.enabled}, autotune.cpu_budget={a.cpu_budget}, "
                f"autotune.ram_budget={a.ram_budget})")


class TextLineDataset(Dataset):
    """The lines of `filenames` (without their line ends): bytes scalars."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        files = _file_names("TextLineDataset", filenames)
        size = 0 if buffer_size is None else check_int("TextLineDataset", "buffer_size",
                                                       buffer_size)
        super().__init__(_inflow._data_text_line(files, compression_type or "", size), None,
                         _SCALAR_BYTES)
        self._def = _Steps.source("text_line", _file_attrs(files, compression_type, size))


class FixedLengthRecordDataset(Dataset):
    """Each file's records of record_bytes between header_bytes and
    footer_bytes (a partial last record is left out): bytes scalars."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None):
        files = _file_names("FixedLengthRecordDataset", filenames)
        record = check_int("FixedLengthRecordDataset", "record_bytes", record_bytes, 1)
        header = 0 if header_bytes is None else \
            check_int("FixedLengthRecordDataset", "header_bytes", header_bytes, 0)
        footer = 0 if footer_bytes is None else \
            check_int("FixedLengthRecordDataset", "footer_bytes", footer_bytes, 0)
        size = 0 if buffer_size is None else \
            check_int("FixedLengthRecordDataset", "buffer_size", buffer_size)
        super().__init__(_inflow._data_fixed_length(files, record, header, footer,
                                                    compression_type or "", size), None,
                         _SCALAR_BYTES)
        self._def = _Steps.source("fixed_length_record", {
            **_file_attrs(files, compression_type, size), "record_bytes": record,
            "header_bytes": header, "footer_bytes": footer})


def _file_attrs(files, compression_type, buffer_size):
    """A file source step's attributes (buffer_size 0: the default)."""
    attrs = {"files": list(files), "compression": compression_type or ""}
    if buffer_size > 0:
        attrs["buffer_size"] = buffer_size
    return attrs


def _file_names(where, filenames):
    if isinstance(filenames, (str, bytes)):
        filenames = [filenames]
    files = [f.decode() if isinstance(f, bytes) else str(f) for f in filenames]
    if not files:
        raise ValueError(f"{where}: no files")
    return files


_INDEX_MODES = ("memory", "read", "write", "require")


class TFRecordDataset(Dataset):
    """The records of `filenames`, in order: bytes scalars. With
    num_parallel_reads > 1 (or AUTOTUNE: the hardware threads) that many
    files are read at once and their records handed out in turn, in
    tf.data's order.

    index ("read", "write", "require", "memory"; True: "read") reads each
    record by its number through the files' record indexes (FILE.index:
    used when fresh, also written, required, or never looked at): a
    shard() then reads only its own records and a restore seeks at once.
    shuffle_records=True (index "read" unless given) gives every record of
    every file once per pass in an order drawn from seed and the pass,
    with no shuffle buffer."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, shuffle_records=False, seed=None, index=None,
                 reshuffle_each_iteration=True, name=None):
        if isinstance(filenames, (str, bytes)):
            filenames = [filenames]
        files = [f.decode() if isinstance(f, bytes) else str(f) for f in filenames]
        if not files:
            raise ValueError("TFRecordDataset: no files")
        size = 0 if buffer_size is None else check_int("TFRecordDataset", "buffer_size",
                                                       buffer_size)
        reads = 1 if num_parallel_reads is None else check_int(
            "TFRecordDataset", "num_parallel_reads", num_parallel_reads)
        if reads != AUTOTUNE and reads < 1:
            raise ValueError("TFRecordDataset: num_parallel_reads must be >= 1 or "
                             f"AUTOTUNE, not {reads}")
        if index is True:
            index = "read"
        if index not in (None, False) + _INDEX_MODES:
            raise ValueError(f"TFRecordDataset: index {index!r} is not one of "
                             f"{', '.join(_INDEX_MODES)} (or True, None)")
        if seed is not None:
            seed = check_int("TFRecordDataset", "seed", seed)
        super().__init__(_inflow._data_tfrecord(
            files, compression_type or "", size, reads, index or "", bool(shuffle_records),
            seed, bool(reshuffle_each_iteration)), None, _SCALAR_BYTES)
        if index or shuffle_records:
            self._def = _cannot("its TFRecordDataset reads by record index "
                                "(index, shuffle_records)")
        else:
            self._def = _Steps.source("tfrecord", {
                **_file_attrs(files, compression_type, size), "num_parallel_reads": reads})
