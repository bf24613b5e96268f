"""TFRecordSequence: batch i of TFRecord files, read by offset, Keras
Sequence-style.

    seq = TFRecordSequence(["train-0.tfrecord", "train-1.tfrecord"], 128, {
            "image": inflow.FixedLenFeature([784], "float32"),
            "label": inflow.FixedLenFeature([], "int64")}, shuffle=True, seed=7)
    for epoch in range(10):
        for i in range(len(seq)):
            batch = seq[i]          # {"image": float32 [128, 784], ...}
        seq.on_epoch_end()          # the next epoch's order

The records of ``files``, in order, are numbered 0 .. n-1 across the files;
batch i holds those at positions [i*batch_size, (i+1)*batch_size) of the
epoch's order. Each file's record offsets come from FILE.index (written by
``inflow records index FILES``) when it is fresh, else from a scan of the
file (docs/formats.md "Record index"). The records are read with pread and
parsed in C++ (include/inflow/input/record_sequence.h) with the GIL
released, so thread workers calling ``seq[i]`` at once run in parallel.
"""

import os
import secrets

from inflow import _inflow
from inflow._validate import check_int, check_optional_int, check_path
from inflow.io._parsing import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,
                                _specs)
from inflow.train._input import _group_sparse
from inflow.utils._sequence import Sequence

__all__ = ["TFRecordSequence"]

_INDEX_MODES = ("read", "write", "require", "memory")


class TFRecordSequence(Sequence):
    """Batches of plain TFRecord files by batch number: ``len(seq)`` batches
    per epoch, ``seq[i]`` a dict of NumPy arrays, ``seq.on_epoch_end()``
    between epochs (the interface of keras.utils.Sequence).

    files: a path or a list of paths (not patterns: ``train-*`` would also
      match the FILE.index files beside them), read in this order. GZIP and
      ZLIB files are refused (FailedPreconditionError): an offset in a
      compressed stream cannot be reached without inflating all before it.
    batch_size: records per batch (>= 1).
    features: a dict of FixedLenFeature, VarLenFeature and
      FixedLenSequenceFeature, parsed as parse_example parses a batch (a
      VarLenFeature as a SparseTensorValue); None gives the records
      themselves as "value" (an object array of bytes).
    shuffle: a new order of all records (across files) each epoch, drawn
      from ``seed``: a seed fixes every epoch's order. Without a seed one is
      drawn here, once, so that copies of the sequence (pickled to worker
      processes) have the same orders.
    drop_remainder: drop the last batch when it would be short (by default
      it is short: ``len(seq)`` is ceil(records / batch_size)).
    index: what is done with each FILE.index: "read" (default: used when
      fresh, a missing or stale one rebuilt in memory), "write" (rebuilt
      ones written), "require" (NotFoundError or FailedPreconditionError
      instead of scanning a file), "memory" (never looked at).

    ``seq[i]`` raises IndexError outside [-len, len), DataLossError for a
    damaged record (naming the file and the offset) and
    InvalidArgumentError for a record that does not parse (naming it too).
    """

    def __init__(self, files, batch_size, features, shuffle=False, seed=None,
                 drop_remainder=False, index="read"):
        f = "TFRecordSequence"
        if isinstance(files, (str, bytes, os.PathLike)):
            files = [files]
        try:
            files = list(files)
        except TypeError:
            raise TypeError(f"{f}: files must be a path or a list of paths, got "
                            f"{files!r} ({type(files).__name__})") from None
        files = [check_path(f, f"files[{i}]", p) for i, p in enumerate(files)]
        if not files:
            raise ValueError(f"{f}: files is empty")
        batch_size = check_int(f, "batch_size", batch_size, minimum=1)
        if features is not None:
            if not isinstance(features, dict) or not features:
                raise ValueError(f"{f}: features must be a non-empty dict of feature "
                                 f"specs or None, got {features!r}")
            for key, spec in features.items():
                if not isinstance(spec, (FixedLenFeature, VarLenFeature,
                                         FixedLenSequenceFeature)):
                    raise ValueError(f"{f}: feature {key!r} must be a FixedLenFeature, "
                                     "VarLenFeature or FixedLenSequenceFeature")
        seed = check_optional_int(f, "seed", seed)
        if seed is None:
            seed = secrets.randbits(62)
        if index not in _INDEX_MODES:
            raise ValueError(f"{f}: index must be one of {_INDEX_MODES}, got {index!r}")
        self._args = (files, batch_size, features, bool(shuffle), seed,
                      bool(drop_remainder), index)
        self._seq = _inflow._record_sequence(
            files, batch_size, _specs(features) if features is not None else None,
            bool(shuffle), seed, bool(drop_remainder), index)
        self._names = list(self._seq.names)
        self._sparse = list(self._seq.sparse)

    def __len__(self):
        return len(self._seq)

    def __getitem__(self, i):
        n = len(self._seq)
        i = check_int("TFRecordSequence", "index", i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"TFRecordSequence index out of range: batch {i} of {n}")
        return dict(zip(self._names, _group_sparse(self._seq.get(i), self._sparse)))

    def __iter__(self):
        """The epoch's batches in order (as keras.utils.Sequence)."""
        for i in range(len(self)):
            yield self[i]

    def on_epoch_end(self):
        """Ends the epoch: with shuffle, the next epoch's order."""
        self._seq.on_epoch_end()

    def batch_positions(self, i):
        """The global positions (record numbers across the files) of batch
        i's records in this epoch's order."""
        return list(self._seq.batch_positions(check_int("TFRecordSequence", "i", i)))

    @property
    def names(self):
        """The batch's keys, in order."""
        return list(self._names)

    @property
    def files(self):
        return list(self._seq.files)

    @property
    def num_records(self):
        """Records in all files."""
        return self._seq.num_records

    @property
    def epoch(self):
        """on_epoch_end() calls so far."""
        return self._seq.epoch

    @property
    def seed(self):
        """The seed of the shuffle (drawn at construction when none was
        given)."""
        return self._args[4]

    def __reduce__(self):
        # A copy in another process: the same files, options and seed, at
        # the same epoch (and so in the same order).
        return (_rebuild, (self._args, self.epoch))

    def __repr__(self):
        return (f"TFRecordSequence({len(self._args[0])} files, {self.num_records} "
                f"records, batch_size={self._args[1]}, {len(self)} batches)")


def _rebuild(args, epoch):
    seq = TFRecordSequence(*args)
    for _ in range(epoch):
        seq.on_epoch_end()
    return seq
