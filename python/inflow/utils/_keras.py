"""to_keras: an inflow Sequence or enqueuer as Keras 3 data for
``Model.fit`` / ``evaluate`` / ``predict``.

Imported by inflow.utils.to_keras only (``import inflow`` does not import
Keras). The object returned is a Keras ``DataAdapter``: Keras 3's
``get_data_adapter`` takes any DataAdapter as it is, so Keras's own
PyDataset machinery (its thread pool or multiprocessing Pool, its index
shuffling) stays out of the way and inflow's enqueuer makes the batches.
"""

import numpy as np

try:
    import keras
    from keras.src.trainers import data_adapters as _adapters
    from keras.src.trainers.data_adapters import data_adapter_utils as _utils
    from keras.src.trainers.data_adapters.data_adapter import DataAdapter as _DataAdapter
except ImportError as e:
    raise ImportError(
        "inflow.utils.to_keras needs Keras 3 (keras.src.trainers.data_adapters), which "
        f"cannot be imported here ({e}); scripts/install-deps installs it in .venv") from e

from inflow.utils import _stream

__all__ = ["KerasData", "to_keras"]

# Batches peeked for the tf.data signature (Keras peeks as many).
_SPEC_BATCHES = getattr(_utils, "NUM_BATCHES_FOR_TENSOR_SPEC", 2)


def _standardize(batch):
    """A batch as Keras's PyDatasetAdapter takes it: a dict, or a tuple
    (inputs,), (inputs, targets) or (inputs, targets, sample_weights)."""
    if isinstance(batch, dict):
        return batch
    if isinstance(batch, np.ndarray):
        return (batch,)
    if isinstance(batch, list):
        batch = tuple(batch)
    if not isinstance(batch, tuple) or len(batch) not in (1, 2, 3):
        raise ValueError(
            "a batch for Keras must be a dict, an array, or a tuple or list of 1 to 3 "
            "items: (inputs,), (inputs, targets) or (inputs, targets, sample_weights); "
            f"got {type(batch).__name__} {str(batch)[:100]}")
    return batch


class KerasData(_DataAdapter):
    """A Keras 3 DataAdapter over an inflow enqueuer's stream: give it to
    ``fit`` (``x=``, or ``validation_data=``), ``evaluate`` or ``predict``.

    Each pass Keras makes (an epoch, without steps_per_epoch) takes the
    next ``len(sequence)`` batches of the enqueuer, in the enqueuer's order;
    fit's ``shuffle``, ``batch_size`` and ``class_weight`` are not seen
    (the enqueuer's ``shuffle=True, seed=`` shuffles). ``close()`` (or
    leaving ``with``) stops an enqueuer made or started here.
    """

    def __init__(self, stream):
        self.stream = stream
        self._signature = None

    # -- iterators, one per pass ---------------------------------------------

    def _epoch(self):
        for batch in self.stream.epoch():
            yield _standardize(batch)

    def get_numpy_iterator(self):
        return _utils.get_numpy_iterator(self._epoch())

    def get_jax_iterator(self):
        return _utils.get_jax_iterator(self._epoch())

    def get_torch_dataloader(self):
        return _utils.get_torch_dataloader(self._epoch())

    def get_tf_dataset(self):
        from keras.src.utils.module_utils import tensorflow as tf

        if self._signature is None:
            n = self.stream.num_batches()
            first = self.stream.peek(_SPEC_BATCHES if n is None else min(_SPEC_BATCHES, n))
            if not first:
                raise ValueError("inflow.utils.to_keras: the source has no batches")
            self._signature = _utils.get_tensor_spec([_standardize(b) for b in first])
        ds = tf.data.Dataset.from_generator(self._epoch, output_signature=self._signature)
        # The enqueuer computes ahead already; tf.data prefetching would
        # take batches from the stream that an abandoned pass then drops.
        options = tf.data.Options()
        options.autotune.enabled = False
        options.threading.private_threadpool_size = 1
        return ds.with_options(options)

    # -- sizes ------------------------------------------------------------------

    @property
    def num_batches(self):
        return self.stream.num_batches()

    @property
    def batch_size(self):
        return None

    @property
    def has_partial_batch(self):
        return None

    @property
    def partial_batch_size(self):
        return None

    # on_epoch_begin / on_epoch_end: the DataAdapter's no-ops; the enqueuer
    # runs the sequence's own hooks between its epochs.

    # -- lifetime -------------------------------------------------------------------

    @property
    def enqueuer(self):
        return self.stream.enqueuer

    def __len__(self):
        return len(self.stream)

    def close(self, timeout=None):
        self.stream.close(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def to_keras(source, *, workers=1, max_queue_size=10, use_multiprocessing=False,
             shuffle=False, seed=None, start_method=None):
    """Keras data (a :class:`KerasData` adapter) over ``source``: a Sequence
    (inflow's, a Keras PyDataset, any object with ``__len__`` and
    ``__getitem__``), for which an OrderedEnqueuer is made with the options
    given, or an OrderedEnqueuer / GeneratorEnqueuer (started with
    ``workers`` and ``max_queue_size`` when not running).

    ``model.fit(inflow.utils.to_keras(seq, workers=2), epochs=3)``
    """
    stream = _stream.EpochStream(
        source, workers=workers, max_queue_size=max_queue_size,
        use_multiprocessing=use_multiprocessing, shuffle=shuffle, seed=seed,
        start_method=start_method, who="inflow.utils.to_keras")
    data = KerasData(stream)
    if _adapters.get_data_adapter(data) is not data:
        raise RuntimeError(
            f"Keras {keras.__version__} does not take a custom DataAdapter in fit(); "
            "inflow.utils.to_keras needs Keras 3.5 or later")
    return data
