"""Keras's data utilities (``keras.utils``): Sequence, OrderedEnqueuer,
GeneratorEnqueuer, threadsafe_generator and ThreadSafeIterator; and
TFRecordSequence, a Sequence of TFRecord files read by record offset.

The enqueuers compute batches ahead with worker threads, or with worker
processes (``use_multiprocessing=True``) that hand NumPy arrays back
through shared memory instead of pickling them. Batches come out in
order, each index exactly once per epoch, and a failing or dying worker
is an error raised by get(), never a hang (docs/python.md, inflow.utils).
``to_keras`` hands a Sequence or an enqueuer to Keras 3's ``Model.fit``
(importing Keras only when called).
"""

from inflow.utils._sequence import Sequence, ThreadSafeIterator, threadsafe_generator
from inflow.utils._enqueuers import (GeneratorEnqueuer, OrderedEnqueuer, RemoteTraceback,
                                     WorkerProcessError)
from inflow._record_sequence import TFRecordSequence

__all__ = ["Sequence", "OrderedEnqueuer", "GeneratorEnqueuer", "ThreadSafeIterator",
           "threadsafe_generator", "WorkerProcessError", "RemoteTraceback",
           "TFRecordSequence", "to_keras"]


def to_keras(source, *, workers=1, max_queue_size=10, use_multiprocessing=False,
             shuffle=False, seed=None, start_method=None):
    """Keras 3 data for ``Model.fit`` / ``evaluate`` / ``predict`` over a
    Sequence (an OrderedEnqueuer is made over it with these options) or an
    enqueuer (started with ``workers`` and ``max_queue_size`` when not
    running): a Keras DataAdapter whose every pass takes the next
    ``len(sequence)`` batches of the enqueuer. Imports Keras when called.
    ``close()`` or ``with`` stops an enqueuer made or started here."""
    from inflow.utils import _keras
    return _keras.to_keras(source, workers=workers, max_queue_size=max_queue_size,
                           use_multiprocessing=use_multiprocessing, shuffle=shuffle,
                           seed=seed, start_method=start_method)
