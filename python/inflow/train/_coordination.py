"""Coordinator, QueueRunner, add_queue_runner, start_queue_runners.

tf.compat.v1.train's thread coordination, over inflow's C++ Coordinator and
QueueRunner. A queue runner's threads are inflow threads: they never hold
the GIL, except while they call a Python callable enqueue op. Queue runner
collections belong to the default graph (inflow.Graph), whose collection is
a C++ one, so runners that C++ producers register (string_input_producer,
batch, ...) start with start_queue_runners() like those added from Python.
"""

import atexit
import collections
import contextlib
import sys
import threading
import time

from inflow import _graph
from inflow import _inflow
from inflow import errors

__all__ = ["Coordinator", "LooperThread", "QueueRunner", "add_queue_runner",
           "start_queue_runners", "QUEUE_RUNNERS"]

# TF's GraphKeys.QUEUE_RUNNERS.
QUEUE_RUNNERS = _graph.GraphKeys.QUEUE_RUNNERS

# Python exceptions that crossed C++ as a Status, by the Status message
# (newest kept; bounded, since each holds a traceback and its frames).
_EXCEPTIONS = collections.OrderedDict()
_EXCEPTIONS_LOCK = threading.Lock()
_MAX_EXCEPTIONS = 256


def _register_exception(exc):
    """Remembers `exc` and returns the Status message that names it.

    Called by the extension when a Python callable run by an inflow thread
    raises; the message is the exception's type and text (an OpError's own
    message)."""
    if isinstance(exc, errors.OpError):
        message = exc.message
    else:
        message = "%s: %s" % (type(exc).__name__, exc)
    with _EXCEPTIONS_LOCK:
        _EXCEPTIONS[message] = exc
        _EXCEPTIONS.move_to_end(message)
        while len(_EXCEPTIONS) > _MAX_EXCEPTIONS:
            _EXCEPTIONS.popitem(last=False)
    return message


def _exception_for(status):
    """The exception for a native (code, message): the original Python
    exception when one crossed as it, else the inflow.errors class."""
    code, message = status
    with _EXCEPTIONS_LOCK:
        exc = _EXCEPTIONS.get(message)
    if exc is not None:
        return exc
    try:
        cls = errors.exception_type_from_error_code(code)
    except KeyError:
        cls = errors.UnknownError
    return cls(None, None, message)


def _code_of(exc):
    if isinstance(exc, errors.OpError):
        return exc.error_code
    return errors.UNKNOWN


def _is_native(thread):
    return isinstance(thread, _inflow._Thread)


class Coordinator:
    """A coordinator for threads (tf.train.Coordinator).

    Threads that run while ``not coord.should_stop()`` stop together: any
    of them calls ``coord.request_stop(ex)`` (or runs inside
    ``with coord.stop_on_exception():``), the others see should_stop(), and
    ``coord.join(threads)`` waits for them and re-raises the first exception
    reported, with its traceback. Exceptions of
    ``clean_stop_exception_types`` (default: OutOfRangeError) count as a
    clean stop. Blocking inflow calls made by queue runner threads are
    released by a stop at once.

    Thread-safe. Works with inflow's threads (start_queue_runners) and with
    Python threads (threading.Thread) alike.
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        codes = []
        for t in self._clean_stop_exception_types:
            code = getattr(t, "_code", None)
            if isinstance(code, int):
                codes.append(code)
        self._native = _inflow._Coordinator(codes)
        self._lock = threading.Lock()
        self._registered_threads = set()

    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex = ex[1]
        if ex is None:
            return None
        if isinstance(ex, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Requests that the threads stop.

        `ex`: None for a clean stop, or the exception (or an exc_info
        triple) that caused it; the first one reported is what join()
        re-raises. A no-op once a stop was requested. After join(), an
        exception given here is raised at once (it cannot be reported).
        """
        ex = self._filter_exception(ex)
        if ex is None:
            self._native.request_stop()
            return
        message = _register_exception(ex)
        back = self._native.request_stop_status(_code_of(ex), message)
        if back is not None:
            raise ex

    def should_stop(self):
        """True once a stop was requested."""
        return self._native.should_stop()

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested or `timeout` seconds pass;
        returns should_stop()."""
        return self._native.wait_for_stop(timeout)

    def clear_stop(self):
        """Clears the stop flag and the recorded exception (after a join,
        to use the coordinator again)."""
        self._native.clear_stop()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context manager that reports any exception raised in it to
        request_stop() and swallows it::

            with coord.stop_on_exception():
                while not coord.should_stop():
                    ...
        """
        try:
            yield
        except BaseException:  # as TF: every exception stops the threads
            self.request_stop(ex=sys.exc_info())

    def register_thread(self, thread):
        """Adds `thread` (a Python or inflow thread) to those join()
        waits for."""
        if _is_native(thread):
            self._native.register_thread(thread)
        else:
            with self._lock:
                self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120,
             ignore_live_threads=False):
        """Waits for the threads to end, then re-raises the first reported
        exception.

        Waits for `threads` and the registered threads (queue runner
        threads register themselves) until all have ended or a stop was
        requested; then gives them `stop_grace_period_secs` to end. Raises
        the exception passed to request_stop() (the very object, with its
        traceback; a Python callable's exception in a QueueRunner thread
        too), or else RuntimeError naming the threads still running, unless
        `ignore_live_threads`.
        """
        threads = list(threads or [])
        with self._lock:
            py_threads = set(self._registered_threads)
            self._registered_threads = set()
        py_threads.update(t for t in threads if not _is_native(t))
        native = [t for t in threads if _is_native(t)]

        # Python threads: until they end or a stop is requested.
        while (any(t.is_alive() for t in py_threads)
               and not self.wait_for_stop(1.0)):
            pass
        stop_time = time.monotonic()
        # inflow threads (the native join waits as TF does, then for the
        # grace period after a stop).
        status = self._native.join(native, float(stop_grace_period_secs),
                                   False)
        _release(self)
        live_native = None
        if status is not None and self._native.recorded_error() is None:
            # No error was reported: the status names the inflow threads
            # still running.
            live_native = status[1]
            status = None
        # The Python threads' grace period, from when the stop was seen.
        remaining = stop_grace_period_secs - (time.monotonic() - stop_time)
        wait = 0.001
        while any(t.is_alive() for t in py_threads) and remaining >= 0:
            time.sleep(wait)
            remaining -= wait
            wait = max(min(2 * wait, remaining), 0.001)

        stragglers = sorted(t.name for t in py_threads if t.is_alive())
        if status is not None:
            raise _exception_for(status)
        if (stragglers or live_native) and not ignore_live_threads:
            parts = []
            if live_native:
                parts.append(live_native.split(": ", 1)[-1])
            parts.extend(stragglers)
            raise RuntimeError("Coordinator stopped with threads still "
                               "running: %s" % " ".join(parts))

    @property
    def joined(self):
        """True once join() ran (until clear_stop())."""
        return self._native.joined

    def raise_requested_exception(self):
        """Raises the exception passed to request_stop(), if any."""
        status = self._native.recorded_error()
        if status is not None:
            raise _exception_for(status)


class LooperThread(threading.Thread):
    """A Python thread that calls a function until the coordinator stops
    (tf.train.LooperThread).

    `target(*args, **kwargs)` (or run_loop() in a subclass) runs back to back
    when `timer_interval_secs` is None, else every `timer_interval_secs`
    seconds; start_loop() runs before the first call and stop_loop() after
    the last. An exception stops the coordinator (and join() re-raises
    it). The thread is a daemon, registered with `coord`.
    """

    def __init__(self, coord, timer_interval_secs, target=None, args=None,
                 kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %r"
                             % (coord,))
        if target is None and (args or kwargs):
            raise ValueError("'args' and 'kwargs' need a 'target'")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._loop_target = target
        self._loop_args = tuple(args or ())
        self._loop_kwargs = dict(kwargs or {})
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling `target` and returns it."""
        looper = LooperThread(coord, timer_interval_secs, target=target,
                              args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                due = time.monotonic()
                while not self._coord.wait_for_stop(due - time.monotonic()):
                    due += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Runs once before the first run_loop()."""

    def stop_loop(self):
        """Runs once after the last run_loop()."""

    def run_loop(self):
        """One call of the loop: the target's, unless overridden."""
        if self._loop_target is not None:
            self._loop_target(*self._loop_args, **self._loop_kwargs)


class QueueRunner:
    """Threads that keep a queue filled (tf.train.QueueRunner).

    `enqueue_ops`: one thread each. An op is a Python callable, called
    again and again on an inflow thread with the GIL taken only for the
    call; it returns the element to enqueue (a batch of rows with
    ``enqueue_many=True``), or None when it enqueued by itself (as
    ``lambda: q.enqueue(next_item())``, a TF enqueue op's port). Or an op
    is a C++ op from another inflow binding (read+parse, ...), which runs
    without the GIL. An op raising one of `queue_closed_exception_types`
    (default: OutOfRangeError) ends its thread, and the last thread to end
    so closes the queue (`close_op`, a callable, when given); any other
    exception goes to the coordinator, and join() re-raises it. When the
    coordinator stops, a closer thread cancels pending enqueues
    (`cancel_op`, default ``queue.close(cancel_pending_enqueues=True)``).
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None,
                 cancel_op=None, queue_closed_exception_types=None,
                 queue_runner_def=None, import_scope=None,
                 enqueue_many=False, name=None):
        if queue_runner_def is not None or import_scope is not None:
            raise ValueError("inflow has no GraphDef: queue_runner_def and "
                             "import_scope are not supported")
        if queue is None:
            raise ValueError("QueueRunner needs a queue")
        if not enqueue_ops:
            raise ValueError("QueueRunner needs at least one enqueue op")
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        queue_closed_exception_types = tuple(queue_closed_exception_types)
        if not queue_closed_exception_types:
            raise ValueError("queue_closed_exception_types must name at least "
                             "one exception type")
        codes = []
        for t in queue_closed_exception_types:
            if not (isinstance(t, type) and issubclass(t, errors.OpError)
                    and isinstance(getattr(t, "_code", None), int)):
                raise TypeError("queue_closed_exception_types must be "
                                "inflow.errors.OpError subclasses, got %r"
                                % (t,))
            codes.append(t._code)
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op
        self._cancel_op = cancel_op
        self._queue_closed_exception_types = queue_closed_exception_types
        self._native = _inflow._QueueRunner.create(
            queue, self._enqueue_ops, close_op, cancel_op, codes,
            name or "", bool(enqueue_many))

    @classmethod
    def _from_native(cls, native):
        """A QueueRunner object over a runner C++ made."""
        qr = cls.__new__(cls)
        qr._native = native
        qr._queue = native.queue
        qr._enqueue_ops = []
        qr._close_op = None
        qr._cancel_op = None
        qr._queue_closed_exception_types = (errors.OutOfRangeError,)
        return qr

    @property
    def queue(self):
        """The queue the runner fills."""
        return self._queue

    @property
    def enqueue_ops(self):
        """The enqueue ops (empty for a runner C++ made)."""
        return list(self._enqueue_ops)

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def name(self):
        """The prefix of the runner's thread names (the queue's name)."""
        return self._native.name

    @property
    def exceptions_raised(self):
        """Exceptions raised by threads that ran without a coordinator."""
        return [_exception_for(s) for s in self._native.exceptions_raised()]

    def create_threads(self, sess=None, coord=None, daemon=False,
                       start=False):
        """One thread per enqueue op, plus a closer thread when `coord` is
        given; registered with `coord` and started when `start`.

        `sess` keys TF's per-session count: while threads made for the same
        `sess` still run, no new ones are made (an empty list). Returns
        thread objects with name, is_alive() and join().
        """
        session = "" if sess is None else "session:%x" % id(sess)
        threads = self._native.create_threads(coord, bool(start), session,
                                              bool(daemon))
        _keep_alive(coord, threads)
        if not daemon:
            _track_non_daemon(threads)
        return threads

    def __repr__(self):
        return "<inflow.train.QueueRunner %r ops=%d>" % (
            self.name, self._native.num_enqueue_ops)


def add_queue_runner(qr, collection=QUEUE_RUNNERS):
    """Adds `qr` to collection `collection` of the default graph, which
    start_queue_runners() starts (tf.train.add_queue_runner)."""
    if isinstance(qr, _inflow._QueueRunner):  # a runner C++ made
        qr = QueueRunner._from_native(qr)
    if not isinstance(qr, QueueRunner):
        raise TypeError("add_queue_runner: expected an inflow.train.QueueRunner, "
                        "got %s" % type(qr).__name__)
    _graph.get_default_graph().add_to_collection(collection, qr)


def _graph_of(sess):
    """The graph start_queue_runners starts: `sess` itself when it is an
    inflow.Graph, its ``graph`` when that is one, else the default graph."""
    if isinstance(sess, _graph.Graph):
        return sess
    graph = getattr(sess, "graph", None)
    if isinstance(graph, _graph.Graph):
        return graph
    return _graph.get_default_graph()


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=QUEUE_RUNNERS):
    """Starts the threads of every queue runner in collection `collection`
    of the default graph (tf.train.start_queue_runners, which starts
    sess.graph's): those added from Python and those C++ producers and
    batching calls registered. Returns their thread objects; pass them to
    coord.join().

    `sess`: an inflow.Graph (or an object whose ``graph`` is one) starts
    that graph's runners; anything else (a TF program's session) is
    ignored. Runners whose threads still run add none.
    """
    graph = _graph_of(sess)
    threads = graph._native.start(coord, bool(start), collection, bool(daemon))
    _keep_alive(coord, threads)
    if not daemon:
        _track_non_daemon(threads)
    return threads


def _get_queue_runners(collection=QUEUE_RUNNERS):
    """The runners in `collection` of the default graph (for tests and
    tools)."""
    return [r for r in _graph.get_default_graph().get_collection(collection)
            if isinstance(r, QueueRunner)]


def _clear_queue_runners(collection=QUEUE_RUNNERS):
    """Empties `collection` of the default graph (for tests)."""
    _graph.get_default_graph().clear_collection(collection)


# Coordinators with inflow threads, kept until joined: the threads use the
# native coordinator, whose destruction would stop them (TF's threads keep
# their coordinator alive the same way).
_LIVE_COORDINATORS = set()
_LIVE_LOCK = threading.Lock()


def _keep_alive(coord, threads):
    if coord is not None and threads:
        with _LIVE_LOCK:
            _LIVE_COORDINATORS.add(coord)


def _release(coord):
    with _LIVE_LOCK:
        _LIVE_COORDINATORS.discard(coord)


# Non-daemon threads: the interpreter waits for them at exit, as for a
# non-daemon threading.Thread.
_NON_DAEMON = []
_NON_DAEMON_LOCK = threading.Lock()


def _track_non_daemon(threads):
    with _NON_DAEMON_LOCK:
        _NON_DAEMON[:] = [t for t in _NON_DAEMON if t.is_alive()]
        _NON_DAEMON.extend(threads)


def _join_non_daemon():
    with _NON_DAEMON_LOCK:
        threads = list(_NON_DAEMON)
    for t in threads:
        t.join()


atexit.register(_join_non_daemon)
