"""inflow.train's Coordinator, QueueRunner and the queue runner collection.

Python callables run as enqueue ops on inflow threads (taking the GIL only
for the call); an exception one raises comes back from coord.join() as the
very object, with the callable's frames in its traceback. Every wait here is
bounded.
"""
import os
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import numpy as np
import pytest

import inflow
from inflow import errors, train
from inflow.train import _coordination

# Each test uses its own collection, so runners do not leak between tests.
_counter = [0]


@pytest.fixture
def collection():
    _counter[0] += 1
    name = "test_collection_%d" % _counter[0]
    yield name
    _coordination._clear_queue_runners(name)


def counting_producer(limit):
    state = {"n": 0, "threads": set()}

    def produce():
        state["threads"].add(threading.current_thread().ident)
        state["n"] += 1
        if state["n"] > limit:
            raise errors.OutOfRangeError(None, None, "input exhausted")
        return np.int64(state["n"])
    return produce, state


def drain(q, timeout=10):
    out = []
    try:
        while True:
            out.append(int(q.dequeue(timeout=timeout)))
    except errors.OutOfRangeError:
        return out


def test_python_callable_fills_queue_then_closes_it_at_end_of_input():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
    produce, state = counting_producer(30)
    qr = train.QueueRunner(q, [produce])
    assert qr.queue is q and qr.enqueue_ops == [produce]
    assert qr.queue_closed_exception_types == (errors.OutOfRangeError,)
    coord = train.Coordinator()
    threads = qr.create_threads(coord=coord, start=True)
    assert [t.name for t in threads] == ["fifo_queue/enqueue:0",
                                         "fifo_queue/close"]
    assert drain(q) == list(range(1, 31))
    assert q.is_closed()
    # The callable ran on an inflow thread, not on this one.
    assert threading.main_thread().ident not in state["threads"]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    assert coord.joined and not any(t.is_alive() for t in threads)


def test_callable_exception_is_reraised_by_join_with_its_traceback():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])

    def parse_record():
        raise ValueError("bad record 7")

    def produce():
        return parse_record()

    coord = train.Coordinator()
    threads = train.QueueRunner(q, [produce]).create_threads(coord=coord, start=True)
    assert coord.wait_for_stop(10)
    with pytest.raises(ValueError) as info:
        coord.join(threads, stop_grace_period_secs=10)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "produce" in frames and "parse_record" in frames
    assert str(info.value) == "bad record 7"
    # The queue was not closed by the error (only end of input closes it),
    # but the closer cancelled it when the coordinator stopped.
    assert q.is_closed()
    with pytest.raises(ValueError) as again:
        coord.raise_requested_exception()
    assert again.value is info.value


def test_op_error_from_callable_keeps_its_class():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[3]])
    coord = train.Coordinator()
    # A wrong shape: the enqueue fails with InvalidArgumentError.
    threads = train.QueueRunner(q, [lambda: np.zeros(2, np.int64)]) \
        .create_threads(coord=coord, start=True)
    with pytest.raises(errors.InvalidArgumentError):
        coord.join(threads, stop_grace_period_secs=10)


def test_callable_that_enqueues_by_itself_and_enqueue_many():
    q = inflow.FIFOQueue(8, [np.int64], shapes=[[]])
    items = iter(range(10))

    def enqueue_op():  # a port of a TF enqueue op
        try:
            q.enqueue(next(items))
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "done")

    coord = train.Coordinator()
    threads = train.QueueRunner(q, [enqueue_op]).create_threads(coord=coord, start=True)
    assert drain(q) == list(range(10))
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)

    q2 = inflow.FIFOQueue(16, [np.int64], shapes=[[]])
    batches = iter([np.arange(3), np.arange(3, 5)])

    def next_batch():
        b = next(batches, None)
        if b is None:
            raise errors.OutOfRangeError(None, None, "done")
        return [b]

    coord2 = train.Coordinator()
    threads = train.QueueRunner(q2, [next_batch], enqueue_many=True) \
        .create_threads(coord2, start=True)
    assert drain(q2) == [0, 1, 2, 3, 4]
    coord2.request_stop()
    coord2.join(threads, stop_grace_period_secs=10)


def test_several_ops_and_the_last_to_end_closes_with_close_op():
    q = inflow.FIFOQueue(100, [np.int64], shapes=[[]])
    closed = []
    lock = threading.Lock()
    remaining = {"a": 5, "b": 7}

    def op(key):
        def run():
            with lock:
                if remaining[key] == 0:
                    raise errors.OutOfRangeError(None, None, key)
                remaining[key] -= 1
            return np.int64(1)
        return run

    def close_op():
        closed.append(True)
        q.close()

    coord = train.Coordinator()
    qr = train.QueueRunner(q, [op("a"), op("b")], close_op=close_op)
    threads = qr.create_threads(coord=coord, start=True)
    assert len(threads) == 3
    assert len(drain(q)) == 12
    assert closed == [True]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)


def test_request_stop_releases_blocked_runner_and_runs_cancel_op():
    q = inflow.FIFOQueue(1, [np.int64], shapes=[[]])
    cancelled = []

    def cancel_op():
        cancelled.append(True)
        q.close(cancel_pending_enqueues=True)

    coord = train.Coordinator()
    threads = train.QueueRunner(q, [lambda: np.int64(1)], cancel_op=cancel_op) \
        .create_threads(coord=coord, start=True)
    time.sleep(0.1)  # the runner is now blocked on the full queue
    assert all(t.is_alive() for t in threads)
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    assert cancelled == [True]
    assert not any(t.is_alive() for t in threads)


def test_custom_queue_closed_exception_types():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
    n = {"i": 0}

    def produce():
        n["i"] += 1
        if n["i"] > 3:
            raise errors.CancelledError(None, None, "upstream closed")
        return np.int64(n["i"])

    coord = train.Coordinator()
    qr = train.QueueRunner(q, [produce],
                           queue_closed_exception_types=(errors.CancelledError,))
    threads = qr.create_threads(coord=coord, start=True)
    assert drain(q) == [1, 2, 3]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    with pytest.raises(TypeError):
        train.QueueRunner(q, [produce], queue_closed_exception_types=(KeyError,))
    with pytest.raises(ValueError):
        train.QueueRunner(q, [produce], queue_closed_exception_types=())
    with pytest.raises(ValueError):
        train.QueueRunner(q, [])
    with pytest.raises(TypeError):
        train.QueueRunner(q, [42])


def test_exceptions_raised_without_a_coordinator():
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])

    def produce():
        raise KeyError("no coordinator")

    qr = train.QueueRunner(q, [produce])
    threads = qr.create_threads(start=True)
    assert len(threads) == 1  # no closer without a coordinator
    threads[0].join(timeout=10)
    assert not threads[0].is_alive()
    raised = qr.exceptions_raised
    assert len(raised) == 1 and isinstance(raised[0], KeyError)


def test_add_and_start_queue_runners_with_the_shared_collection(collection):
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
    produce, _ = counting_producer(5)
    qr = train.QueueRunner(q, [produce])
    train.add_queue_runner(qr, collection=collection)
    assert [r.name for r in _coordination._get_queue_runners(collection)] == \
        ["fifo_queue"]
    coord = train.Coordinator()
    threads = train.start_queue_runners(coord=coord, collection=collection)
    assert len(threads) == 2 and all(t.daemon for t in threads)
    # Threads still running for the same session: none are added (TF).
    assert train.start_queue_runners(coord=coord, collection=collection) == []
    assert drain(q) == [1, 2, 3, 4, 5]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    # Once they ended, start=False makes them again, not running; started
    # by hand they run until their coordinator stops (the closer waits for
    # that stop).
    coord2 = train.Coordinator()
    not_started = train.start_queue_runners(coord=coord2, start=False,
                                            collection=collection)
    assert len(not_started) == 2 and not any(t.is_alive() for t in not_started)
    for t in not_started:
        t.start()
    coord2.request_stop()
    coord2.join(not_started, stop_grace_period_secs=10)
    assert not any(t.is_alive() for t in not_started)


def test_coordinator_stop_protocol():
    coord = train.Coordinator()
    assert not coord.should_stop()
    start = time.monotonic()
    assert coord.wait_for_stop(0.05) is False
    assert time.monotonic() - start >= 0.05
    coord.request_stop()
    assert coord.should_stop() and coord.wait_for_stop(0.01)
    coord.raise_requested_exception()  # a clean stop raises nothing
    coord.join()
    assert coord.joined
    coord.clear_stop()
    assert not coord.should_stop() and not coord.joined
    # A clean-stop exception records nothing.
    coord.request_stop(errors.OutOfRangeError(None, None, "eof"))
    assert coord.should_stop()
    coord.join()
    coord.clear_stop()
    # The first error wins; after join an error is raised at once.
    first, second = RuntimeError("first"), RuntimeError("second")
    coord.request_stop(first)
    coord.request_stop(second)
    with pytest.raises(RuntimeError) as info:
        coord.join()
    assert info.value is first
    with pytest.raises(KeyError):
        coord.request_stop(KeyError("after join"))
    custom = train.Coordinator(clean_stop_exception_types=(KeyError,))
    custom.request_stop(KeyError("clean here"))
    custom.join()


def test_stop_on_exception_with_python_threads():
    coord = train.Coordinator()

    def worker(fail):
        with coord.stop_on_exception():
            if fail:
                time.sleep(0.05)
                raise IndexError("worker failed")
            while not coord.should_stop():
                coord.wait_for_stop(0.01)

    threads = [threading.Thread(target=worker, args=(i == 0,)) for i in range(3)]
    for t in threads:
        t.start()
    with pytest.raises(IndexError):
        coord.join(threads, stop_grace_period_secs=10)
    assert not any(t.is_alive() for t in threads)
    # stop_on_exception swallows (and records) the exception.
    coord2 = train.Coordinator()
    with coord2.stop_on_exception():
        raise errors.OutOfRangeError(None, None, "clean")
    assert coord2.should_stop()
    coord2.raise_requested_exception()


def test_join_names_threads_that_outlive_the_grace_period():
    coord = train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, args=(30,), name="sleepy")
    t.start()
    coord.register_thread(t)
    coord.request_stop()
    try:
        with pytest.raises(RuntimeError) as info:
            coord.join(stop_grace_period_secs=0.05)
        assert "still running" in str(info.value) and "sleepy" in str(info.value)
        coord.clear_stop()
        coord.register_thread(t)
        coord.request_stop()
        coord.join(stop_grace_period_secs=0.01, ignore_live_threads=True)
    finally:
        release.set()
        t.join(10)


def test_inflow_threads_that_ignore_stop_are_named():
    # A callable that sleeps past the grace period keeps its inflow thread.
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
    go = threading.Event()
    entered = threading.Event()

    def slow():
        entered.set()
        go.wait(10)
        raise errors.OutOfRangeError(None, None, "done")

    coord = train.Coordinator()
    threads = train.QueueRunner(q, [slow]).create_threads(coord=coord, start=True)
    # Stop only once the thread is inside the callable: a stop requested
    # before its first call ends the thread at once, with nothing to name.
    assert entered.wait(10)
    coord.request_stop()
    try:
        with pytest.raises(RuntimeError) as info:
            coord.join(threads, stop_grace_period_secs=0.05)
        assert "fifo_queue/enqueue:0" in str(info.value)
    finally:
        go.set()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)


EXIT_CHILD = textwrap.dedent("""
    import numpy as np
    import inflow
    from inflow import errors, train
    q = inflow.FIFOQueue(2, [np.int64], shapes=[[]])
    n = [0]
    def produce():
        n[0] += 1
        if n[0] > {limit}:
            raise errors.OutOfRangeError(None, None, "done")
        return np.int64(n[0])
    train.add_queue_runner(train.QueueRunner(q, [produce]))
    threads = train.start_queue_runners(daemon={daemon})
    print(q.dequeue(), flush=True)
    {tail}
""")


@pytest.mark.parametrize("daemon,limit,tail", [
    # Daemon threads blocked on a full queue do not keep the process alive.
    (True, 10**9, ""),
    # A non-daemon runner is waited for at exit; it ends by itself once
    # the consumer drains.
    (False, 5, "import threading\n"
               "threading.Thread(target=lambda: [q.dequeue() for _ in "
               "range(4)]).start()"),
])
def test_interpreter_exits_with_runner_threads(daemon, limit, tail):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    # At exit Python ends a daemon thread that wants the GIL with
    # pthread_exit, whose unwinding must pass through inflow's thread code
    # (an abort, "exception not rethrown", in about 2 exits of 3 when it was
    # caught there): several exits, so that one lands in the callable.
    for _ in range(8 if daemon else 1):
        proc = subprocess.run(
            [sys.executable, "-c",
             EXIT_CHILD.format(daemon=daemon, limit=limit, tail=tail)],
            capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split()[0] == "1"


def test_a_coordinator_nobody_holds_lives_while_its_threads_run(collection):
    import gc
    q = inflow.FIFOQueue(2, [np.int64], shapes=[[]])
    produce, _ = counting_producer(4)
    train.add_queue_runner(train.QueueRunner(q, [produce]), collection=collection)
    threads = train.start_queue_runners(coord=train.Coordinator(),
                                        collection=collection)
    gc.collect()
    assert drain(q) == [1, 2, 3, 4]  # not stopped by a collected coordinator
    for t in threads:
        t.join(timeout=0.01)
    with pytest.raises(RuntimeError):
        threads[0].start()


def test_looper_thread_calls_its_target_until_stop():
    coord = train.Coordinator()
    calls = []
    looper = train.LooperThread.loop(coord, 0.01, calls.append, args=(1,))
    assert looper.daemon
    deadline = time.monotonic() + 10
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    coord.request_stop()
    coord.join(stop_grace_period_secs=10)  # registered by the looper
    assert len(calls) >= 3 and not looper.is_alive()

    class Failing(train.LooperThread):
        def run_loop(self):
            raise OverflowError("looper failed")

    coord2 = train.Coordinator()
    Failing(coord2, None).start()
    with pytest.raises(OverflowError):
        coord2.join(stop_grace_period_secs=10)
    with pytest.raises(ValueError):
        train.LooperThread(object(), 1.0)
    with pytest.raises(ValueError):
        train.LooperThread(train.Coordinator(), 1.0, args=(1,))


@pytest.mark.parametrize("raising, kind, text", [
    (lambda: next(iter(())), StopIteration, ""),
    (lambda: {}["k"], KeyError, "'k'"),
    (lambda: int("x"), ValueError, "invalid literal for int() with base 10: 'x'"),
], ids=["next_of_an_empty_iterator", "dict_key_error", "int_value_error"])
def test_exceptions_raised_from_c_are_reraised_by_join(raising, kind, text):
    # Python 3.11 leaves exceptions set from C unnormalized (no exception
    # object yet); join() still gets the exception itself, traceback and all.
    q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
    coord = train.Coordinator()
    threads = train.QueueRunner(q, [raising]).create_threads(coord=coord, start=True)
    with pytest.raises(kind) as info:
        coord.join(threads, stop_grace_period_secs=10)
    assert type(info.value) is kind and str(info.value) == text
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "<lambda>" in frames
