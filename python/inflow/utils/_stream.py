"""Epochs of an enqueuer's stream, for the Keras and PyTorch bridges
(inflow.utils.to_keras, inflow.torch.SequenceDataset).

An EpochStream holds one running enqueuer (an OrderedEnqueuer it made over
a Sequence, or one it was given) and one ``get()`` generator of it, kept
across passes: each pass (``epoch()``) takes the next ``num_batches()``
batches of that stream, so a pass is exactly one of the enqueuer's epochs
when every pass runs to its end; the enqueuer keeps computing the next
epoch's batches between passes, and runs ``on_epoch_end`` itself.
"""

import collections
import threading

from inflow.utils import _enqueuers, _sequence

__all__ = ["EpochStream", "is_enqueuer"]


def is_enqueuer(source):
    return isinstance(source, _enqueuers._EnqueuerBase)


class EpochStream:
    """``source``: a Sequence (an OrderedEnqueuer is made over it with the
    options given, started on first use and stopped by close()) or an
    OrderedEnqueuer / GeneratorEnqueuer (used as it is; started with
    ``workers`` and ``max_queue_size`` when it is not running, and then
    stopped by close())."""

    def __init__(self, source, *, workers=1, max_queue_size=10, use_multiprocessing=False,
                 shuffle=False, seed=None, start_method=None, who="inflow.utils"):
        if is_enqueuer(source):
            if use_multiprocessing or shuffle or seed is not None or start_method is not None:
                raise ValueError(f"{who}: use_multiprocessing, shuffle, seed and start_method "
                                 "are the enqueuer's own; give them to the enqueuer, or "
                                 "give a Sequence here")
            self.enqueuer = source
        else:
            _sequence.check_sequence(source)
            self.enqueuer = _enqueuers.OrderedEnqueuer(
                source, use_multiprocessing=use_multiprocessing, shuffle=shuffle,
                seed=seed, start_method=start_method)
        self.workers = _enqueuers._positive_int("workers", workers)
        self.max_queue_size = _enqueuers._positive_int("max_queue_size", max_queue_size)
        self._lock = threading.RLock()
        self._batches = None      # the enqueuer's get() generator
        self._pending = collections.deque()  # batches peeked, not yet handed out
        self._started_here = False

    @property
    def sequence(self):
        """The Sequence (or generator) of the enqueuer."""
        return self.enqueuer.sequence

    def num_batches(self):
        """Batches per pass: the sequence's length now, None for a
        GeneratorEnqueuer or an endless PyDataset (a pass then runs until
        the stream ends)."""
        if isinstance(self.enqueuer, _enqueuers.GeneratorEnqueuer):
            return None
        return _sequence.num_batches(self.enqueuer.sequence)

    def __len__(self):
        """num_batches(), or TypeError when there is none."""
        n = self.num_batches()
        if n is None:
            raise TypeError("this source has no length (a generator or an endless PyDataset)")
        return n

    def _next(self):
        """The stream's next batch; StopIteration at its end. Lock held."""
        if self._pending:
            return self._pending.popleft()
        return self._pull()

    def _pull(self):
        """The enqueuer's next batch (after those peeked). Lock held."""
        if self._batches is None or not self.enqueuer.is_running():
            if not self.enqueuer.is_running():
                self.enqueuer.start(workers=self.workers, max_queue_size=self.max_queue_size)
                self._started_here = True
            self._batches = self.enqueuer.get()
        try:
            return next(self._batches)
        except BaseException:
            self._batches = None
            raise

    def peek(self, count):
        """Up to ``count`` batches from the front of the stream, left there
        to be handed out by the next pass (fewer at the stream's end)."""
        with self._lock:
            while len(self._pending) < count:
                try:
                    batch = self._pull()
                except StopIteration:
                    break
                self._pending.append(batch)
            return list(self._pending)[:count]

    def epoch(self):
        """A generator of one pass: the next num_batches() batches (read
        when the pass starts), or all the rest for an unknown length."""
        n = self.num_batches()
        taken = 0
        while n is None or taken < n:
            with self._lock:
                try:
                    batch = self._next()
                except StopIteration:
                    return
            taken += 1
            yield batch
            del batch

    def close(self, timeout=None):
        """Stops the enqueuer when it was made or started here; drops the
        batches peeked."""
        with self._lock:
            self._pending.clear()
            self._batches = None
            if self._started_here:
                self.enqueuer.stop(timeout)
                self._started_here = False
