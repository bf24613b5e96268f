"""Keras's data utilities (``keras.utils``): Sequence, OrderedEnqueuer,
GeneratorEnqueuer, threadsafe_generator and ThreadSafeIterator; and
TFRecordSequence, a Sequence of TFRecord files read by record offset.

The enqueuers compute batches ahead with worker threads, or with worker
processes (``use_multiprocessing=True``) that hand NumPy arrays back
through shared memory instead of pickling them. Batches come out in
order, each index exactly once per epoch, and a failing or dying worker
is an error raised by get(), never a hang (docs/python.md, inflow.utils).
"""

from inflow.utils._sequence import Sequence, ThreadSafeIterator, threadsafe_generator
from inflow.utils._enqueuers import (GeneratorEnqueuer, OrderedEnqueuer, RemoteTraceback,
                                     WorkerProcessError)
from inflow._record_sequence import TFRecordSequence

__all__ = ["Sequence", "OrderedEnqueuer", "GeneratorEnqueuer", "ThreadSafeIterator",
           "threadsafe_generator", "WorkerProcessError", "RemoteTraceback",
           "TFRecordSequence"]
