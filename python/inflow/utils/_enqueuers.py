"""OrderedEnqueuer and GeneratorEnqueuer (Keras's names): batches computed by
worker threads (or processes, inflow.utils._processes) and handed to one
consumer in submission order.

One start()..stop() is a _Run: a producer thread decides what to compute
next (batch indices, epoch by epoch, or "the generator's next element") and
appends a _Slot per request to ``slots``, the results in submission order,
at most ``max_queue_size`` of them untaken; the workers fill the slots in
any order; get() pops the head slot once it is done. Every wait is on a
Condition of the run's one lock; nothing polls.
"""

import collections
import itertools
import random
import threading
import time
import weakref

from inflow.utils import _sequence

__all__ = ["OrderedEnqueuer", "GeneratorEnqueuer", "WorkerProcessError", "RemoteTraceback"]

_START_METHODS = ("fork", "forkserver", "spawn")

# The "generator already executing" ValueError of a generator called from
# two threads at once, as Python words it.
_ALREADY_EXECUTING = "generator already executing"


class WorkerProcessError(RuntimeError):
    """A worker process died (a signal, os._exit, the out-of-memory killer)
    or could not start. ``index`` is the batch it was computing (None when
    it was idle, or for a generator's element), ``pid`` its process id,
    ``exitcode`` its exit code (-N for signal N). get() raises it in that
    batch's place (after the batches before it); for a worker that died
    idle or could not start, at once."""

    def __init__(self, message, index=None, pid=None, exitcode=None):
        super().__init__(message)
        self.index = index
        self.pid = pid
        self.exitcode = exitcode


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker process, as text:
    the ``__cause__`` of the exception get() raises."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text

    def __str__(self):
        return self.text


class _Slot:
    """One request: batch ``index`` (None for a generator's next element)
    and, once ``done``, its ``value`` or ``error``. ``end`` marks a
    generator's StopIteration."""

    __slots__ = ("index", "done", "value", "error", "end", "retried", "worker", "owner")

    def __init__(self, index=None, error=None):
        self.index = index
        self.done = error is not None
        self.value = None
        self.error = error
        self.end = False
        self.retried = False
        self.worker = None
        self.owner = None  # the worker process computing it (process workers)


class _Run:
    """One start()..stop() of an enqueuer."""

    def __init__(self, enqueuer, workers, max_queue_size):
        self.lock = threading.Lock()
        # get() waits on consumer_cv for the head slot (or an error, or the
        # end); the producer waits on producer_cv for room, or for the
        # epoch's last batch to be taken.
        self.consumer_cv = threading.Condition(self.lock)
        self.producer_cv = threading.Condition(self.lock)
        self.slots = collections.deque()
        # Slots the producer made beyond max_queue_size: get() hands one to
        # the workers each time it takes a batch, in its own thread, so that
        # the workers never wait for the producer thread to be scheduled.
        # The producer is woken to refill it when half of it is used.
        self.staged = collections.deque()
        self.producer_waits = None  # "room" or "drain" while it waits
        self.workers = workers
        self.max_queue_size = max_queue_size
        # Staged slots hold no batch (an index, or a place for a
        # generator's next element): many, so that the producer thread
        # wakes once per tens of batches.
        self.stage_size = max(4 * max_queue_size, 64)
        self.refill_at = self.stage_size // 2
        self.stopping = False
        self.fatal = None        # ends the run at once (a worker process died, ...)
        self.exhausted = False   # a generator's StopIteration was seen
        self.finished = False    # the producer submits nothing more
        self.kind = enqueuer._kind
        self.name = f"an inflow.utils.{type(enqueuer).__name__}"
        self.backend = None
        self.producer = None
        self.stop_lock = threading.Lock()
        self.stopped = False

    # -- producer side -------------------------------------------------------

    def submit(self, slot):
        """Hands ``slot`` to the workers while fewer than max_queue_size
        batches are in the queue, else stages it (waiting while
        stage_size are staged); False when stopping (or when a
        generator is exhausted)."""
        with self.lock:
            self.producer_waits = "room"
            while (not self.stopping and not self.exhausted
                   and len(self.staged) >= self.stage_size):
                self.producer_cv.wait()
            self.producer_waits = None
            if self.stopping or self.exhausted:
                return False
            if self.staged or len(self.slots) >= self.max_queue_size:
                self.staged.append(slot)
                return True
            self.slots.append(slot)
            self.backend.submit(slot)
        # Outside the lock: process workers are sent the task now, by this
        # thread (the lock order is the backend's lock, then this one).
        self.backend.flush()
        return True

    def wait_all_taken(self):
        """Blocks until get() has taken every submitted slot; False when
        stopping."""
        with self.lock:
            self.producer_waits = "drain"
            while not self.stopping and (self.slots or self.staged):
                self.producer_cv.wait()
            self.producer_waits = None
            return not self.stopping

    def producer_failed(self, error):
        """An error of the producer (len(), on_epoch_end, ...): get() raises
        it after the batches submitted before it."""
        with self.lock:
            # After the staged slots, if any (they are handed out first).
            (self.staged if self.staged else self.slots).append(_Slot(error=error))
            self.finished = True
            self.notify_consumer()

    # -- worker side -----------------------------------------------------------

    def complete(self, slot, value=None, error=None, end=False):
        """Called with the lock held when a worker has finished ``slot``."""
        slot.value = value
        slot.error = error
        slot.end = end
        slot.done = True
        if end:
            self.exhausted = True
            self.staged.clear()  # slots past the generator's end
            self.producer_cv.notify_all()
        if self.slots and self.slots[0] is slot:
            self.notify_consumer()

    def fail(self, error):
        """A failure that ends the run now (a dead worker process): get()
        raises it instead of waiting for anything else."""
        with self.lock:
            if self.fatal is None and not self.stopping:
                self.fatal = error
            self.notify_consumer()
            self.producer_cv.notify_all()

    def notify_consumer(self):
        """(lock held) get() has something to look at: woken from its
        condition, or from its wait on a worker process's pipe."""
        self.consumer_cv.notify_all()
        poke = getattr(self.backend, "poke", None)
        if poke is not None:
            poke()

    # -- consumer side ---------------------------------------------------------

    def consume(self):
        while True:
            slot = error = None
            handed = False
            try:
                with self.lock:
                    while True:
                        if self.stopping:
                            return
                        if self.slots and self.slots[0].done:
                            slot = self.slots.popleft()
                            handed = self._hand_staged()
                            break
                        if self.fatal is not None:
                            slot, error = None, self.fatal
                            break
                        if self.finished and not self.slots:
                            break
                        owner = self.slots[0].owner if self.slots else None
                        if owner is not None:
                            # Process workers: get() reads the batch from
                            # its worker's pipe itself (no thread between).
                            self.lock.release()
                            try:
                                progress = self.backend.pump(owner)
                            finally:
                                self.lock.acquire()
                            if not progress:
                                self.consumer_cv.wait(0.05)
                            continue
                        self.consumer_cv.wait()
            except BaseException:
                # KeyboardInterrupt (or any other) while waiting: every
                # worker stops; a thread busy in __getitem__ is not waited
                # for (it ends when that returns).
                self.stop(None, wait_busy=False)
                raise
            if handed:
                self.backend.flush()
            if slot is None and error is None:
                self.stop(None)  # a finite generator's end
                return
            if slot is not None:
                if slot.error is not None:
                    error = self.annotate(slot)
                elif slot.end:
                    continue
                elif slot.value is None:
                    continue  # Keras skips None batches
            if error is not None:
                self.stop(None)
                raise error
            value = slot.value
            slot.value = None
            yield value

    def _hand_staged(self):
        """(lock held; get() took a batch) The next staged slot goes to the
        workers; True when one did (the caller flushes the backend after
        releasing the lock). The producer is woken when the staged slots
        are half used (it refills them in a run), or when every slot is
        taken (the end of an epoch)."""
        handed = False
        if self.staged and not self.stopping and not self.exhausted:
            slot = self.staged.popleft()
            self.slots.append(slot)
            if not slot.done:  # not a producer's error
                self.backend.submit(slot)
                handed = True
        waits = self.producer_waits
        if (waits == "room" and len(self.staged) <= self.refill_at) or \
                (waits == "drain" and not self.slots and not self.staged):
            self.producer_cv.notify()
        return handed

    def annotate(self, slot):
        error = slot.error
        slot.error = None
        if self.kind == "generator" and isinstance(error, ValueError) and \
                _ALREADY_EXECUTING in str(error):
            wrapped = RuntimeError(
                f"the generator given to GeneratorEnqueuer is not thread-safe: "
                f"{self.workers} worker threads called next() on it at once "
                f"(Python: {error}). Wrap it in inflow.utils.ThreadSafeIterator, "
                f"decorate its function with @inflow.utils.threadsafe_generator, "
                f"or start(workers=1)")
            wrapped.__cause__ = error
            return wrapped
        if getattr(error, "_inflow_annotated", False):
            return error
        where = ("next(generator)" if slot.index is None
                 else f"__getitem__({slot.index})")
        worker = f" in worker {slot.worker}" if slot.worker is not None else ""
        if hasattr(error, "add_note"):
            try:
                error.add_note(f"(raised by {where}{worker} of {self.name})")
            except Exception:  # noqa: BLE001  (an exception class refusing notes)
                pass
        return error

    # -- start and stop ----------------------------------------------------------

    def start(self, backend, produce):
        self.backend = backend
        backend.start()
        self.producer = threading.Thread(target=self._produce, args=(produce,),
                                         name="inflow-enqueuer-producer", daemon=True)
        self.producer.start()

    def _produce(self, produce):
        try:
            produce(self)
        except BaseException as e:  # noqa: BLE001  handed to get()
            self.producer_failed(e)

    def stop(self, timeout, wait_busy=True):
        with self.lock:
            self.stopping = True
            self.notify_consumer()
            self.producer_cv.notify_all()
            if self.backend is not None:
                self.backend.wake_all()
        with self.stop_lock:
            if self.stopped:
                return
            deadline = None if timeout is None else time.monotonic() + timeout
            me = threading.current_thread()
            done = True
            if self.producer is not None and self.producer is not me:
                self.producer.join(_remaining(deadline))
                done = not self.producer.is_alive()
            if self.backend is not None:
                done = self.backend.shutdown(deadline, wait_busy) and done
            with self.lock:
                self.slots.clear()
                self.staged.clear()
            # Until everything has ended, another stop() waits again.
            self.stopped = done


def _remaining(deadline):
    return None if deadline is None else max(0.0, deadline - time.monotonic())


class _ThreadWorkers:
    """``workers`` threads taking slots in submission order and running
    ``compute(slot)``."""

    def __init__(self, run, compute, end_on_stop_iteration):
        self.run = run
        self.compute = compute
        self.end_on_stop_iteration = end_on_stop_iteration
        self.tasks = collections.deque()
        self.tasks_cv = threading.Condition(run.lock)
        self.threads = []
        self.busy = set()  # the threads inside compute()

    def start(self):
        for w in range(self.run.workers):
            t = threading.Thread(target=self._work, args=(w,),
                                 name=f"inflow-enqueuer-worker-{w}", daemon=True)
            t.start()
            self.threads.append(t)

    def submit(self, slot):  # lock held
        self.tasks.append(slot)
        self.tasks_cv.notify()

    def flush(self):
        pass  # the threads took the task from submit()

    def wake_all(self):  # lock held
        self.tasks.clear()
        self.tasks_cv.notify_all()

    def epoch_changed(self):
        pass  # the threads share the sequence

    def shutdown(self, deadline, wait_busy=True):
        me = threading.current_thread()
        with self.run.lock:
            busy = set(self.busy)
        for t in self.threads:
            if t is not me and (wait_busy or t not in busy):
                t.join(_remaining(deadline))
        return not any(t.is_alive() for t in self.threads if t is not me)

    def _work(self, w):
        run = self.run
        while True:
            with run.lock:
                while not self.tasks and not run.stopping:
                    self.tasks_cv.wait()
                if run.stopping:
                    return
                slot = self.tasks.popleft()
                self.busy.add(threading.current_thread())
            value = error = None
            end = False
            try:
                value = self.compute(slot)
            except StopIteration:
                if not self.end_on_stop_iteration:
                    raise
                end = True
            except BaseException as e:  # noqa: BLE001  handed to get()
                error = e
            slot.worker = w
            with run.lock:
                self.busy.discard(threading.current_thread())
                run.complete(slot, value, error, end)
            del value, error


class _EnqueuerBase:
    _kind = None

    def __init__(self, use_multiprocessing, start_method, restart_workers):
        if start_method is not None and start_method not in _START_METHODS:
            raise ValueError(f"start_method must be one of {', '.join(_START_METHODS)} "
                             f"or None, got {start_method!r}")
        self.use_multiprocessing = bool(use_multiprocessing)
        self.start_method = start_method
        self.restart_workers = bool(restart_workers)
        self.workers = 0
        self._run = None
        self._start_lock = threading.Lock()

    def is_running(self):
        """True between start() and stop() (or the error that stopped it)."""
        run = self._run
        return run is not None and not run.stopping

    def start(self, workers=1, max_queue_size=10):
        """Starts ``workers`` worker threads (processes with
        use_multiprocessing=True) computing at most ``max_queue_size``
        batches ahead of the consumer. A call while running does nothing."""
        workers = _positive_int("workers", workers)
        max_queue_size = _positive_int("max_queue_size", max_queue_size)
        with self._start_lock:
            if self.is_running():
                return
            if self._run is not None:
                self._run.stop(None)
            run = _Run(self, workers, max_queue_size)
            produce = self._producer(run)
            if self.use_multiprocessing:
                from inflow.utils import _processes
                backend = _processes.ProcessWorkers(
                    run, self.sequence, self.start_method, self.restart_workers,
                    getattr(self, "random_seed", None))
            else:
                backend = self._thread_workers(run)
            self.workers = workers
            try:
                run.start(backend, produce)
            except BaseException:
                run.stop(None)
                raise
            self._run = run
            # The run is stopped when this enqueuer is dropped or at exit.
            _live_runs.add(run)
            weakref.finalize(self, run.stop, 5.0, False).atexit = False

    def stop(self, timeout=None):
        """Stops the producer and the workers and waits for them (at most
        ``timeout`` seconds in all when given). Batches not yet taken are
        dropped. Worker processes are gone and shared memory is released
        when this returns (timeout=None)."""
        run = self._run
        if run is not None:
            run.stop(timeout)

    def get(self):
        """An endless generator of batches in submission order (for a
        finite generator: until it is exhausted). Raises the first error of
        a worker, after stopping the enqueuer; ends when stop() is called."""
        run = self._run
        if run is None:
            raise RuntimeError(f"{type(self).__name__}.get() before start()")
        return run.consume()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


class OrderedEnqueuer(_EnqueuerBase):
    """Batches of a Sequence, computed ahead by worker threads or processes,
    handed out in index order (``keras.utils.OrderedEnqueuer``).

    ``sequence``: an inflow.utils.Sequence, a Keras ``Sequence`` or
    ``PyDataset``, or any object with ``__len__`` and ``__getitem__``.
    ``shuffle``: each epoch in a fresh random order, drawn from ``seed``
    (an int, for a reproducible order; None: from Python's ``random``).
    ``start_method`` ("fork", "forkserver", "spawn"; None: multiprocessing's
    default) and ``restart_workers`` (replace a worker process that dies and
    compute its batch again, once) apply with ``use_multiprocessing=True``.

    Every epoch yields each index exactly once, in order (or that epoch's
    shuffled order); ``on_epoch_end()`` runs in this process once between
    epochs, after the epoch's last batch was taken from get() and before any
    batch of the next one is asked for; ``len()`` is read again each epoch.
    A Sequence of length 0 is refused by start() (ValueError), and ends
    get() with that error if its length drops to 0 at a later epoch.
    """

    _kind = "sequence"

    def __init__(self, sequence, use_multiprocessing=False, shuffle=False, *,
                 seed=None, start_method=None, restart_workers=False):
        _sequence.check_sequence(sequence)
        super().__init__(use_multiprocessing, start_method, restart_workers)
        self.sequence = sequence
        self.shuffle = bool(shuffle)
        if seed is None:
            seed = random.getrandbits(64)
        self._rng = random.Random(seed)

    def _thread_workers(self, run):
        sequence = self.sequence
        return _ThreadWorkers(run, lambda slot: sequence[slot.index], False)

    def _producer(self, run):
        # The producer thread holds no reference to the enqueuer, which
        # stops its run when dropped.
        sequence, shuffle, rng = self.sequence, self.shuffle, self._rng
        first_count = _batch_count(sequence, shuffle)  # start() fails on length 0
        on_epoch_begin = _sequence.epoch_hook(sequence, "on_epoch_begin")
        on_epoch_end = _sequence.epoch_hook(sequence, "on_epoch_end")

        def produce(run):
            n = first_count
            while True:
                if on_epoch_begin is not None:
                    on_epoch_begin()
                if n is None:
                    order = itertools.count()  # an endless PyDataset: one endless epoch
                elif shuffle:
                    order = list(range(n))
                    rng.shuffle(order)
                else:
                    order = range(n)
                for i in order:
                    if not run.submit(_Slot(i)):
                        return
                if not run.wait_all_taken():
                    return
                if on_epoch_end is not None:
                    on_epoch_end()
                if on_epoch_end is not None or on_epoch_begin is not None:
                    run.backend.epoch_changed()
                n = _batch_count(sequence, shuffle)
        return produce


def _batch_count(sequence, shuffle):
    n = _sequence.num_batches(sequence)
    if n == 0:
        raise ValueError(f"{type(sequence).__name__} has no batches (its length is 0): "
                         "an OrderedEnqueuer needs at least one")
    if n is None and shuffle:
        raise ValueError(f"shuffle=True needs a finite sequence; "
                         f"{type(sequence).__name__}.num_batches is None")
    return n


class GeneratorEnqueuer(_EnqueuerBase):
    """Elements of a generator (or any iterator), pulled ahead by worker
    threads or processes (``keras.utils.GeneratorEnqueuer``).

    With thread workers, several threads call ``next()`` on the one
    generator: it must be thread-safe (:class:`ThreadSafeIterator`,
    :func:`threadsafe_generator`); a plain generator gets a RuntimeError
    from get() saying so, never elements lost or interleaved. With
    process workers (use_multiprocessing=True) each process has its own
    copy of the generator (so each yields all of its elements), seeded
    with ``random_seed + worker number`` when ``random_seed`` is given.
    Elements come out in the order the workers' next() calls were
    requested, skipping None; a finite generator ends get().
    """

    _kind = "generator"

    def __init__(self, generator, use_multiprocessing=False, random_seed=None, *,
                 start_method=None, restart_workers=False):
        super().__init__(use_multiprocessing, start_method, restart_workers)
        if not hasattr(generator, "__next__"):
            generator = iter(generator)
        self.sequence = generator
        self.random_seed = random_seed

    def _thread_workers(self, run):
        generator = self.sequence
        return _ThreadWorkers(run, lambda slot: next(generator), True)

    def _producer(self, run):
        def produce(run):
            while run.submit(_Slot()):
                pass
            with run.lock:
                if run.exhausted:
                    run.finished = True
                    run.notify_consumer()
        return produce


# The runs not yet stopped, stopped at interpreter exit (before
# multiprocessing's own exit handler) so that no worker is left.
_live_runs = weakref.WeakSet()


def _stop_live_runs():
    for run in list(_live_runs):
        try:
            run.stop(2.0, wait_busy=False)
        except Exception:  # noqa: BLE001  exiting anyway
            pass


def _register_exit_handler():
    import atexit
    atexit.register(_stop_live_runs)


_register_exit_handler()
