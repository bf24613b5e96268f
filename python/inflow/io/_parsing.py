"""tf.train.Example parsing: the feature specs, parse_single_example,
parse_example and decode_raw.

Each function works on values (bytes, lists or arrays of bytes: the result
is NumPy, computed at once) and on deferred values (an ``inflow.Node``, such
as the value ``reader.read(queue)`` returns: the result is Nodes, computed
in C++ on inflow's threads when a batching call runs them, with no GIL).
Errors are TF's: InvalidArgumentError naming the feature and the example.
"""

import collections

import numpy as np

from inflow import _inflow

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature",
           "SparseTensor", "SparseTensorValue", "parse_single_example", "parse_example",
           "parse_single_sequence_example", "decode_raw", "decode_raw_to_float"]


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with prod(shape) values (``tf.io.FixedLenFeature``).

    Parsed as an array of ``shape`` (``[batch] + shape`` from
    parse_example). Without ``default_value`` a missing feature is an error.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Any number of values, parsed as a SparseTensorValue
    (``tf.io.VarLenFeature``)."""


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A variable number of elements of ``shape``, stacked along a new
    leading dimension (``tf.io.FixedLenSequenceFeature``); in Examples
    ``allow_missing`` must be True. ``default_value`` pads the short rows
    of a batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseTensorValue(collections.namedtuple(
        "SparseTensorValue", ["indices", "values", "dense_shape"])):
    """A sparse result (``tf.compat.v1.SparseTensorValue``): indices int64
    [n, rank], values [n], dense_shape int64 [rank]. Its fields are Nodes
    when parsing was deferred."""


SparseTensor = SparseTensorValue


def _is_string_dtype(dtype):
    name = getattr(dtype, "name", dtype)
    if dtype in (bytes, str, object) or name in ("string", "str", "bytes", "object"):
        return True
    try:
        return np.dtype(dtype).kind in "OSU"
    except TypeError:
        return False


def _np_dtype(dtype):
    """The NumPy dtype for a dtype given as TF, NumPy or a name; object for
    strings."""
    if dtype is None:
        # np.dtype(None) is float64: no dtype is no float64.
        raise TypeError("a dtype is required, got None")
    if _is_string_dtype(dtype):
        return np.dtype(object)
    if dtype is float:
        return np.dtype(np.float32)
    if dtype is int:
        return np.dtype(np.int64)
    return np.dtype(getattr(dtype, "name", dtype))


def _shape(shape):
    if shape is None:
        raise ValueError("a FixedLenFeature needs a shape (a list of dims)")
    from inflow._validate import check_int
    if isinstance(shape, (int, np.integer)):
        return [check_int("feature spec", "shape", shape)]
    return [check_int("feature spec", "shape", d) for d in shape]


def _default(value, dtype, shape):
    if value is None:
        return None
    dt = _np_dtype(dtype)
    if dt == object:
        def enc(v):
            return v.encode() if isinstance(v, str) else v
        arr = np.asarray(value, dtype=object)
        arr = np.vectorize(enc, otypes=[object])(arr) if arr.size else arr
    else:
        arr = np.asarray(value, dtype=dt)
    if shape is not None and arr.size == int(np.prod(shape, dtype=np.int64)):
        arr = arr.reshape(shape)
    return arr


def _specs(features):
    """The plain tuples inflow's parser takes, one per feature, in the
    dict's order."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature specs")
    out = []
    for key, f in features.items():
        if isinstance(f, (FixedLenFeature, VarLenFeature, FixedLenSequenceFeature)) and \
                f.dtype is None:
            raise TypeError(f"feature {key!r}: dtype is required, got None")
        if isinstance(f, FixedLenFeature):
            shape = _shape(f.shape)
            out.append((key, "fixed", shape, _np_dtype(f.dtype),
                        _default(f.default_value, f.dtype, shape), False))
        elif isinstance(f, VarLenFeature):
            out.append((key, "var", [], _np_dtype(f.dtype), None, False))
        elif isinstance(f, FixedLenSequenceFeature):
            shape = _shape(f.shape)
            out.append((key, "sequence", shape, _np_dtype(f.dtype),
                        _default(f.default_value, f.dtype, None), bool(f.allow_missing)))
        else:
            raise ValueError(f"feature {key!r}: unsupported spec {f!r}")
    return out


def _parser(features):
    return _inflow.ExampleParser(_specs(features))


def _assemble(dense_keys, sparse_keys, features, dense, sparse):
    """The dict of `features` (in its order) from a parse's dense values
    and (indices, values, dense_shape) triples, keyed as the parser keys
    them."""
    out = {}
    for key, value in zip(dense_keys, dense):
        out[key] = value
    for key, (indices, values, dense_shape) in zip(sparse_keys, sparse):
        out[key] = SparseTensorValue(indices, values, dense_shape)
    return {k: out[k] for k in features}


def _deferred(parser, features, node, single):
    """Nodes for parsing `node` (shapes as TF infers them)."""
    batch = None
    if not single:
        shape = node.shape
        batch = shape[0] if shape else None
    dtypes, shapes = [], []
    for key in parser.dense_keys:
        f = features[key]
        shape = _shape(f.shape)
        lead = [] if single else [batch]
        if isinstance(f, FixedLenSequenceFeature):
            lead = lead + [None]
        dtypes.append(_np_dtype(f.dtype))
        shapes.append(lead + shape)
    rank = 1 if single else 2
    for key in parser.sparse_keys:
        dtypes += [np.int64, _np_dtype(features[key].dtype), np.int64]
        shapes += [[None, rank], [None], [rank]]
    nodes = _inflow._parse_step(parser, node, single, dtypes, shapes)
    n = len(parser.dense_keys)
    sparse = [tuple(nodes[n + 3 * i:n + 3 * i + 3]) for i in range(len(parser.sparse_keys))]
    return _assemble(parser.dense_keys, parser.sparse_keys, features, nodes[:n], sparse)


def _one_record(fn, serialized):
    """The bytes of one serialized record: bytes, str (UTF-8) or a
    one-element array of them; ValueError naming `fn` for more."""
    if isinstance(serialized, np.ndarray):
        if serialized.size != 1:
            raise ValueError(f"{fn}: serialized must be a scalar, "
                             f"got shape {list(serialized.shape)}")
        serialized = serialized.reshape(()).item()
    if isinstance(serialized, str):
        serialized = serialized.encode()
    return bytes(serialized)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized Example (``tf.io.parse_single_example``).

    ``serialized``: bytes (or a scalar array of bytes), or a deferred
    ``inflow.Node``. ``features``: a dict of FixedLenFeature,
    VarLenFeature and FixedLenSequenceFeature. Returns a dict: arrays for
    the fixed-length features, SparseTensorValue for the var-length ones
    (Nodes when ``serialized`` is a Node).
    """
    parser = _parser(features)
    if isinstance(serialized, _inflow.Node):
        return _deferred(parser, features, serialized, True)
    dense, sparse = parser.parse_single(_one_record("parse_single_example", serialized))
    return _assemble(parser.dense_keys, parser.sparse_keys, features, dense, sparse)


def parse_single_sequence_example(serialized, context_features=None,
                                  sequence_features=None, example_name=None, name=None):
    """Parses one serialized SequenceExample
    (``tf.io.parse_single_sequence_example``).

    ``serialized``: bytes (or a scalar array of bytes). ``context_features``:
    a dict of FixedLenFeature and VarLenFeature for the context;
    ``sequence_features``: a dict of FixedLenSequenceFeature and
    VarLenFeature for the feature lists (a FixedLenSequenceFeature comes
    back as ``[steps] + shape``, a VarLenFeature as a SparseTensorValue of
    (step, value) indices). Returns (context dict, feature lists dict).
    """
    if not context_features and not sequence_features:
        raise ValueError("Both context_features and sequence_features are None, but at "
                         "least one should have values.")
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if isinstance(serialized, _inflow.Node):
        raise TypeError("parse_single_sequence_example: serialized must be bytes "
                        "(a step of the graph API is not built for it)")
    record = _one_record("parse_single_sequence_example", serialized)
    parser = _inflow.SequenceExampleParser(
        _specs(context_features) if context_features else [],
        _specs(sequence_features) if sequence_features else [])
    parts = parser.parse_single(record)
    return tuple(_assemble(dense_keys, sparse_keys, features, dense, sparse)
                 for features, (dense_keys, sparse_keys, dense, sparse) in zip(
                     (context_features, sequence_features), parts))


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized Examples (``tf.io.parse_example``).

    ``serialized``: a list, tuple or 1-D array of bytes, or a deferred
    ``inflow.Node`` (a vector, as from ``reader.read_up_to``). Fixed-length
    features come back as ``[batch] + shape`` arrays, FixedLenSequence
    features padded to the longest example, var-length features as
    SparseTensorValue with 2-D indices.
    """
    parser = _parser(features)
    if isinstance(serialized, _inflow.Node):
        return _deferred(parser, features, serialized, False)
    if isinstance(serialized, (bytes, str)):
        raise ValueError("parse_example: serialized must be a vector of bytes; "
                         "use parse_single_example for one")
    if isinstance(serialized, np.ndarray) and serialized.ndim != 1:
        raise ValueError(f"parse_example: serialized must be a vector, got shape "
                         f"{list(serialized.shape)}")
    dense, sparse = parser.parse_batch(list(serialized))
    return _assemble(parser.dense_keys, parser.sparse_keys, features, dense, sparse)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, fixed_length=None,
               name=None, bytes=None):
    """Reinterprets bytes as numbers (``tf.io.decode_raw``).

    bytes -> a 1-D array; an array of S equal-length bytes -> S + [n];
    a Node -> a Node (a zero-copy view of the record's bytes where the
    alignment allows). The byte count must be a multiple of the element
    size (InvalidArgumentError otherwise).
    """
    if input_bytes is None:
        input_bytes = bytes
    if out_type is None:
        raise ValueError("decode_raw: out_type is required")
    if fixed_length is not None:
        raise NotImplementedError("decode_raw: fixed_length is not supported")
    dtype = _np_dtype(out_type)
    if isinstance(input_bytes, _inflow.Node):
        return _inflow._decode_raw_step(input_bytes, dtype, little_endian)
    if isinstance(input_bytes, str):
        input_bytes = input_bytes.encode()
    if isinstance(input_bytes, (list, tuple)):
        input_bytes = np.array(input_bytes, dtype=object)
    return _inflow._decode_raw(input_bytes, dtype, little_endian)


def decode_raw_to_float(input_bytes, scale=1.0):
    """decode_raw(bytes, uint8) cast to float32 and times ``scale`` in one
    pass (TF's ``tf.cast(tf.io.decode_raw(b, tf.uint8), tf.float32) *
    scale``; ``scale=1/255`` maps pixels to [0, 1]). bytes -> [n]; a list
    of equal-length bytes -> [len, n]; a Node -> a Node."""
    if isinstance(input_bytes, _inflow.Node):
        return _inflow._decode_raw_to_float_step(input_bytes, float(scale))
    if isinstance(input_bytes, np.ndarray):
        input_bytes = list(input_bytes.reshape(-1)) if input_bytes.ndim else \
            input_bytes.item()
    return _inflow._decode_raw_to_float(input_bytes, float(scale))
