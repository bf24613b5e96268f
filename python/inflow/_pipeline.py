"""inflow.Pipeline: TF1's reading-from-files input pipeline in one object.

    with inflow.Pipeline("train-*.tfrecord", features={
            "image": inflow.FixedLenFeature([], "string"),
            "label": inflow.FixedLenFeature([], "int64")},
            raw_to_float={"image": (784, 1 / 255)}, num_epochs=10,
            batch_size=128, shuffle_batch=True, min_after_dequeue=10000,
            num_readers=4, seed=1) as batches:
        for batch in batches:          # {"image": float32 [128, 784], ...}
            ...

files -> string_input_producer -> num_readers reader threads (read_up_to ->
parse_example -> raw_to_float -> map_fn) -> batch_join / shuffle_batch_join
-> here. Every stage runs in C++ on the pipeline's own threads (map_fn takes
the GIL for its call only); each batch costs Python one call, which
returns NumPy arrays over inflow's buffers and waits with the GIL released.
"""

import json
import os

import numpy as np

from inflow import _inflow
from inflow.errors import OutOfRangeError
from inflow._ops import _native_pipeline_map, _op_step
from inflow._steps import Node, constant, py_func, reshape, run
from inflow._validate import check_int, check_optional_int, check_path
from inflow.io._parsing import FixedLenFeature, VarLenFeature, _np_dtype, _specs
from inflow.io._records import TFRecordOptions
from inflow.train._input import (FixedLengthRecordReader, ReaderBase, TextLineReader,
                                 TFRecordReader, WholeFileReader, _group_sparse)

__all__ = ["Pipeline", "load_pipeline", "Node", "run", "py_func", "reshape", "constant", "ReaderBase",
           "TFRecordReader", "TextLineReader", "FixedLengthRecordReader",
           "WholeFileReader"]

_READERS = ("tfrecord", "text", "fixed")


def _raw_to_float(spec, features):
    out = []
    for name, value in (spec or {}).items():
        if features is None or name not in features:
            raise ValueError(f"raw_to_float: {name!r} is not one of the features")
        length, scale = (value, 1.0) if isinstance(value, (int, np.integer)) else value
        out.append((str(name), (check_int("Pipeline", f"raw_to_float[{name!r}] length",
                                          length, minimum=0), float(scale))))
    return out


class Pipeline:
    """An iterable of batches (dicts of NumPy arrays) read from files.

    files: a path, a pattern ("train-*") or a list of them (NotFoundError
      for a pattern matching nothing).
    features: a dict of FixedLenFeature and VarLenFeature (the Example
      features to parse, in this order); a VarLenFeature comes out as a
      SparseTensorValue batched as tf.train.batch batches
      parse_single_example's: indices int64 [m, 2] (row in the batch,
      position), values [m], dense_shape [rows, longest row]. None gives
      the records themselves as "value".
    num_epochs (None: unlimited), shuffle (the file order), seed (files and
      shuffle_batch), reader: "tfrecord", "text" or "fixed" (with
      record_bytes, header_bytes, footer_bytes, hop_bytes), compression_type
      (None, "ZLIB", "GZIP"), skip_header_lines (text).
    num_readers: reader threads; read_batch: records per read.
    batch_size, shuffle_batch, min_after_dequeue, capacity (0: TF's usual
      min_after_dequeue + 3 * batch_size), allow_smaller_final_batch.
    raw_to_float: {feature: (length, scale)}: a FixedLenFeature([], string)
      decoded as uint8 bytes into float32 [length] times scale, in one pass.
    include_key: add each record's key ("file:offset") as "key".
    map_fn: fn(dict of arrays, a chunk of rows of one file) -> dict of
      arrays with the same number of rows; map_output: {name: (row shape,
      dtype)} of its result (None: the same as its input). Or an op of an op
      library (inflow.load_op_library, docs/custom_ops.md), run in C++ on
      each record: the components are its inputs, its outputs the result.
    nice: niceness (0..19) the reader threads add to their own. With more
      busy threads than cores, a positive value (5) lets the consuming loop
      run whenever it has a batch to take, and the readers in the CPU it
      leaves; 0 leaves their priority alone.

    Errors of any stage surface from next() naming the stage, the file and
    the offset ("read: corrupted record ... at offset 1041 in f.rec");
    the end of input raises OutOfRangeError from get_next() (also named
    next(), as TF1 iterators' get_next) and ends iteration.
    """

    def __init__(self, files, features=None, num_epochs=None, shuffle=True, seed=None,
                 reader="tfrecord", num_readers=1, batch_size=32, shuffle_batch=False,
                 min_after_dequeue=0, capacity=0, allow_smaller_final_batch=False,
                 raw_to_float=None, map_fn=None, map_output=None, compression_type=None,
                 read_batch=64, skip_header_lines=0, record_bytes=0, header_bytes=0,
                 footer_bytes=0, hop_bytes=0, include_key=False, name="pipeline", nice=0):
        if isinstance(files, (str, bytes, os.PathLike)):
            files = [files]
        try:
            files = list(files)
        except TypeError:
            raise TypeError("Pipeline: files must be a path, a pattern or a list of them, "
                            f"got {files!r} ({type(files).__name__})") from None
        files = [check_path("Pipeline", f"files[{i}]", f) for i, f in enumerate(files)]
        f = "Pipeline"
        num_epochs = check_optional_int(f, "num_epochs", num_epochs)
        if reader not in _READERS:
            raise ValueError(f"reader must be one of {_READERS}, got {reader!r}")
        if features is not None:
            for key, f in features.items():
                if not isinstance(f, (FixedLenFeature, VarLenFeature)):
                    raise ValueError(f"Pipeline: feature {key!r} must be a FixedLenFeature "
                                     "or a VarLenFeature")
                if isinstance(f, VarLenFeature) and map_fn is not None:
                    raise ValueError(f"Pipeline: map_fn is not supported with the "
                                     f"VarLenFeature {key!r}")
        specs = _specs(features) if features else None
        r2f = _raw_to_float(raw_to_float, features)
        map_spec = None
        original_map_fn = map_fn
        native_map = _native_pipeline_map(map_fn)
        if native_map is not None:
            # A custom op (inflow.load_op_library): its signature, in C++.
            map_fn = native_map
        elif map_fn is not None:
            in_names, in_dtypes, in_shapes = self._signature(features, dict(r2f), include_key)
            if map_output is None:
                out_names, out_dtypes, out_shapes = in_names, in_dtypes, in_shapes
            else:
                out_names = [str(k) for k in map_output]
                out_shapes = [[check_int("Pipeline", f"map_output[{k!r}] shape", d)
                               for d in map_output[k][0]] for k in map_output]
                out_dtypes = [_np_dtype(map_output[k][1]) for k in map_output]
            map_spec = (in_names, out_dtypes, out_shapes, out_names)
        self._pipeline = _inflow._pipeline(
            files, specs, num_epochs, bool(shuffle), seed, reader,
            TFRecordOptions.get_compression_type_string(compression_type),
            check_int(f, "skip_header_lines", skip_header_lines),
            check_int(f, "record_bytes", record_bytes),
            check_int(f, "header_bytes", header_bytes),
            check_int(f, "footer_bytes", footer_bytes), check_int(f, "hop_bytes", hop_bytes),
            check_int(f, "num_readers", num_readers), check_int(f, "read_batch", read_batch),
            check_int(f, "batch_size", batch_size), bool(shuffle_batch),
            check_int(f, "min_after_dequeue", min_after_dequeue),
            check_int(f, "capacity", capacity), bool(allow_smaller_final_batch), r2f,
            bool(include_key), map_fn, map_spec, str(name), check_int(f, "nice", nice))
        self._names = list(self._pipeline.names)
        self._sparse = list(self._pipeline.sparse)
        self._any_sparse = any(self._sparse)
        self._definition = _definition(
            files, features, num_epochs, shuffle, seed, reader, num_readers, batch_size,
            shuffle_batch, min_after_dequeue, capacity, allow_smaller_final_batch, r2f,
            original_map_fn, compression_type, read_batch, skip_header_lines, record_bytes,
            header_bytes, footer_bytes, hop_bytes, include_key, nice)

    def definition(self):
        """This pipeline as a pipeline definition (a dict; json.dump writes
        the file docs/custom_ops.md describes, which run-pipeline and
        from_definition read). ValueError when map_fn is a Python function,
        which a definition cannot hold (an op function can)."""
        if isinstance(self._definition, str):
            raise ValueError(self._definition)
        return json.loads(json.dumps(self._definition))

    def save_definition(self, path):
        """Writes definition() to ``path`` as JSON."""
        with open(check_path("save_definition", "path", path), "w",
                  encoding="utf-8") as f:
            json.dump(self.definition(), f, indent=2)
            f.write("\n")

    @classmethod
    def from_definition(cls, path, name="pipeline"):
        """The Pipeline of a pipeline definition file (kind "pipeline",
        docs/custom_ops.md "Pipeline definitions"), its op libraries loaded,
        started. InvalidArgumentError naming the file and the JSON path of a
        bad step; NotFoundError for a missing file."""
        self = cls.__new__(cls)
        self._pipeline = _inflow._pipeline_from_definition(
            check_path("Pipeline.from_definition", "path", path), str(name))
        self._names = list(self._pipeline.names)
        self._sparse = list(self._pipeline.sparse)
        self._any_sparse = any(self._sparse)
        with open(path, encoding="utf-8") as f:
            self._definition = json.load(f)
        return self

    @staticmethod
    def _signature(features, r2f, include_key):
        names, dtypes, shapes = [], [], []
        if features:
            for key, f in features.items():
                names.append(key)
                if key in r2f:
                    dtypes.append(np.dtype(np.float32))
                    shapes.append([r2f[key][0]])
                else:
                    dtypes.append(_np_dtype(f.dtype))
                    shapes.append([int(d) for d in f.shape])
        else:
            names, dtypes, shapes = ["value"], [np.dtype(object)], [[]]
        if include_key:
            names.append("key")
            dtypes.append(np.dtype(object))
            shapes.append([])
        return names, dtypes, shapes

    @property
    def names(self):
        """The batch's keys, in order."""
        return list(self._names)

    @property
    def files(self):
        """The files the patterns matched, sorted."""
        return list(self._pipeline.files)

    @property
    def fill_metric_tag(self):
        return self._pipeline.fill_metric_tag

    def get_next(self, timeout=None):
        """The next batch, a dict of NumPy arrays. OutOfRangeError at the end
        of input; a stage's error (DataLossError, InvalidArgumentError, ...)
        from this and every later call; DeadlineExceededError after
        ``timeout`` seconds."""
        return self._batch(self._pipeline.next(timeout))

    next = get_next

    def _batch(self, flat):
        # Every batch comes through here: the sparse grouping only when a
        # feature is sparse.
        if self._any_sparse:
            flat = _group_sparse(flat, self._sparse)
        return dict(zip(self._names, flat))

    def __iter__(self):
        return self

    def __next__(self):
        try:
            flat = self._pipeline.next(None)
        except OutOfRangeError:
            raise StopIteration from None
        return self._batch(flat)

    def close(self):
        """Stops and joins every thread; raises the first error of any stage
        (the end of input is not an error). Idempotent."""
        self._pipeline.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            try:
                self.close()
            except Exception:  # noqa: BLE001 - the body's exception wins
                pass
        return False


def load_pipeline(path, name="pipeline"):
    """A pipeline definition file built: an inflow.data.Dataset for kind
    "dataset", a started inflow.Pipeline for kind "pipeline"
    (docs/custom_ops.md, "Pipeline definitions")."""
    import json

    from inflow import data
    path = check_path("load_pipeline", "path", path)
    try:
        with open(path, encoding="utf-8") as f:
            kind = json.load(f).get("kind")
    except (OSError, ValueError, AttributeError):
        kind = None  # the C++ reader names what is wrong
    if kind == "pipeline":
        return Pipeline.from_definition(path, name)
    return data.Dataset.from_definition(path)


def _definition(files, features, num_epochs, shuffle, seed, reader, num_readers,
                batch_size, shuffle_batch, min_after_dequeue, capacity,
                allow_smaller_final_batch, r2f, map_fn, compression_type, read_batch,
                skip_header_lines, record_bytes, header_bytes, footer_bytes, hop_bytes,
                include_key, nice):
    """The pipeline definition of Pipeline's arguments, or the reason there
    is none (a str)."""
    libraries, steps = [], []
    files_attrs = {"patterns": list(files), "shuffle": bool(shuffle)}
    if num_epochs is not None:
        files_attrs["num_epochs"] = int(num_epochs)
    steps.append({"op": "files", "attrs": files_attrs})
    common = {"num_readers": int(num_readers), "read_batch": int(read_batch),
              "include_key": bool(include_key)}
    compression = TFRecordOptions.get_compression_type_string(compression_type)
    if reader == "tfrecord":
        steps.append({"op": "tfrecord_reader",
                      "attrs": {"compression_type": compression, **common}})
    elif reader == "text":
        steps.append({"op": "text_line_reader",
                      "attrs": {"skip_header_lines": int(skip_header_lines), **common}})
    else:
        steps.append({"op": "fixed_length_record_reader", "attrs": {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes),
            "footer_bytes": int(footer_bytes), "hop_bytes": int(hop_bytes),
            "encoding": compression, **common}})
    for key, f in (features or {}).items():
        dtype = _np_dtype(f.dtype)
        name = "string" if dtype == np.dtype(object) else dtype.name
        if isinstance(f, VarLenFeature):
            steps.append({"op": "var_len_feature", "attrs": {"key": key, "dtype": name}})
            continue
        attrs = {"key": key, "dtype": name, "shape": [int(d) for d in f.shape]}
        if f.default_value is not None:
            attrs["default"] = np.asarray(f.default_value).ravel().tolist()
        steps.append({"op": "fixed_len_feature", "attrs": attrs})
    for key, (length, scale) in r2f:
        steps.append({"op": "raw_to_float",
                      "attrs": {"feature": key, "length": length, "scale": scale}})
    if map_fn is not None:
        step, library = _op_step(map_fn)
        if step is None:
            return ("this Pipeline's map_fn is a Python function, which a definition "
                    "cannot hold: make it a custom op (docs/custom_ops.md)")
        steps.append(step)
        if library is not None:
            libraries.append(library)
    batch = {"batch_size": int(batch_size), "shuffle": bool(shuffle_batch),
             "capacity": int(capacity), "min_after_dequeue": int(min_after_dequeue),
             "allow_smaller_final_batch": bool(allow_smaller_final_batch),
             "nice": int(nice)}
    if seed is not None:
        batch["seed"] = int(seed)
    steps.append({"op": "batch", "attrs": batch})
    out = {"version": 1, "kind": "pipeline"}
    if libraries:
        out["op_libraries"] = libraries
    out["steps"] = steps
    return out
